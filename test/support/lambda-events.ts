import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';

/**
 * What the Lambda runtime and API Gateway hand a handler: a context and an HTTP API event. Apart
 * from the harness (lambda-harness.ts), so a fast test can call a door or the export API's router
 * without joining the slow tier.
 */
export function lambdaContext(functionName: string): Context {
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:us-east-1:123456789012:function:${functionName}`,
    memoryLimitInMB: '1024',
    awsRequestId: `req-${Math.random().toString(16).slice(2)}`,
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'test',
    getRemainingTimeInMillis: () => 900_000,
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

/** An API Gateway HTTP API (payload format 2.0) event. */
export function httpApiEvent(
  method: 'GET' | 'POST',
  routeKey: string,
  rawPath: string,
  options: { pathParameters?: Record<string, string>; body?: string; base64?: boolean; headers?: Record<string, string> } = {},
): APIGatewayProxyEventV2 {
  return {
    version: '2.0',
    routeKey,
    rawPath,
    rawQueryString: '',
    headers: { 'content-type': 'application/json', host: 'api.example.test', ...options.headers },
    ...(options.pathParameters && { pathParameters: options.pathParameters }),
    ...(options.body !== undefined && {
      body: options.base64 ? Buffer.from(options.body).toString('base64') : options.body,
    }),
    isBase64Encoded: options.base64 ?? false,
    requestContext: {
      accountId: '123456789012',
      apiId: 'api123',
      domainName: 'api.example.test',
      domainPrefix: 'api',
      http: { method, path: rawPath, protocol: 'HTTP/1.1', sourceIp: '203.0.113.9', userAgent: 'vitest' },
      requestId: `r-${Math.random().toString(16).slice(2)}`,
      routeKey,
      stage: '$default',
      time: '23/Nov/2026:06:00:00 +0000',
      timeEpoch: Date.parse('2026-11-23T06:00:00Z'),
    },
  };
}

/**
 * What the SQS event source hands the export function for one message of the scheduled-runs queue
 * (batch size 1): its body as Scheduler sent it, and its receive count (1 on the first receive).
 */
export function sqsEvent(body: unknown, receiveCount: number, messageId = 'msg-1'): { Records: Record<string, unknown>[] } {
  const text = JSON.stringify(body);
  const sent = String(Date.now());
  return {
    Records: [
      {
        messageId,
        receiptHandle: `handle-${messageId}-${receiveCount}`,
        body: text,
        attributes: { ApproximateReceiveCount: String(receiveCount), SentTimestamp: sent, SenderId: 'AROAEXAMPLE:scheduler', ApproximateFirstReceiveTimestamp: sent },
        messageAttributes: {},
        md5OfBody: 'md5',
        eventSource: 'aws:sqs',
        eventSourceARN: 'arn:aws:sqs:us-east-1:123456789012:scheduled-runs',
        awsRegion: 'us-east-1',
      },
    ],
  };
}
