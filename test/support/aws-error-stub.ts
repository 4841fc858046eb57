import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface AwsErrorAnswer {
  readonly status: number;
  readonly contentType: string;
  readonly body: string;
}

/** An S3 error as S3 answers it (REST XML). */
export function s3ErrorAnswer(status: number, code: string): AwsErrorAnswer {
  return {
    status,
    contentType: 'application/xml',
    body: `<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>${code} from the stub</Message></Error>`,
  };
}

/** An error of a JSON-protocol service (DynamoDB, EventBridge, SES v2) as it answers it. */
export function jsonErrorAnswer(status: number, type: string): AwsErrorAnswer {
  return { status, contentType: 'application/x-amz-json-1.0', body: JSON.stringify({ __type: type, message: `${type} from the stub` }) };
}

/**
 * An AWS endpoint on port 0 that answers every request with one error: real SDK clients pointed at
 * it raise the errors the service would (name, status, throttling marks), so adapters classify them
 * as they would in AWS. `answer` may be changed between requests.
 */
export async function startAwsErrorStub(initial: AwsErrorAnswer): Promise<{
  endpoint: string;
  answer: AwsErrorAnswer;
  requests: number;
  close(): Promise<void>;
}> {
  const stub = {
    endpoint: '',
    answer: initial,
    requests: 0,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      stub.requests += 1;
      res.writeHead(stub.answer.status, { 'content-type': stub.answer.contentType }).end(stub.answer.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  stub.endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return stub;
}
