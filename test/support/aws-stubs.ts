import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Small HTTP stubs of the two AWS operations that have no local emulator here: EventBridge
 * PutEvents and Lambda Invoke (asynchronous). Real SDK clients talk to them through
 * AWS_ENDPOINT_URL_EVENTBRIDGE / AWS_ENDPOINT_URL_LAMBDA, so the handlers' adapters run for real.
 */
async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

export interface PutEventEntry {
  readonly Source: string;
  readonly DetailType: string;
  readonly Detail: string;
  readonly EventBusName?: string;
}

export async function startEventBridgeStub(): Promise<{ endpoint: string; events: PutEventEntry[]; close(): Promise<void> }> {
  const events: PutEventEntry[] = [];
  const server = createServer((req, res) => {
    void readBody(req).then((body) => {
      if (req.headers['x-amz-target'] !== 'AWSEvents.PutEvents') {
        res.writeHead(400, { 'content-type': 'application/x-amz-json-1.1' }).end(JSON.stringify({ __type: 'UnknownOperationException' }));
        return;
      }
      const entries = (JSON.parse(body) as { Entries: PutEventEntry[] }).Entries;
      events.push(...entries);
      res
        .writeHead(200, { 'content-type': 'application/x-amz-json-1.1' })
        .end(JSON.stringify({ FailedEntryCount: 0, Entries: entries.map(() => ({ EventId: randomUUID() })) }));
    });
  });
  const endpoint = await listen(server);
  return { endpoint, events, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** Answers asynchronous invocations with 202 like Lambda, and runs `onInvoke` in the background. */
export async function startLambdaStub(onInvoke: (functionName: string, payload: unknown) => Promise<unknown>): Promise<{
  endpoint: string;
  invocations: { functionName: string; payload: unknown; invocationType: string }[];
  /** Resolves when every invocation started so far has finished. */
  settled(): Promise<void>;
  close(): Promise<void>;
}> {
  const invocations: { functionName: string; payload: unknown; invocationType: string }[] = [];
  const running: Promise<unknown>[] = [];
  const server = createServer((req, res) => {
    void readBody(req).then((body) => {
      const match = /^\/2015-03-31\/functions\/([^/]+)\/invocations/.exec(req.url ?? '');
      if (req.method !== 'POST' || !match) {
        res.writeHead(404, { 'x-amzn-errortype': 'ResourceNotFoundException' }).end('{}');
        return;
      }
      const functionName = decodeURIComponent(match[1]!);
      const invocationType = String(req.headers['x-amz-invocation-type'] ?? 'RequestResponse');
      const payload: unknown = JSON.parse(body || 'null');
      invocations.push({ functionName, payload, invocationType });
      running.push(onInvoke(functionName, payload).catch(() => undefined));
      res.writeHead(202).end();
    });
  });
  const endpoint = await listen(server);
  return {
    endpoint,
    invocations,
    settled: async () => {
      await Promise.all(running);
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
