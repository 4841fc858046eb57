import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request as a stub sees it: method, path, query, headers and the whole body. */
export interface StubRequest {
  readonly method: string;
  readonly path: string;
  readonly query: URLSearchParams;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

export interface StubAnswer {
  readonly status: number;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body: string;
}

export interface HttpStub {
  /** e.g. http://127.0.0.1:53122 */
  readonly endpoint: string;
  readonly requests: StubRequest[];
  close(): Promise<void>;
}

/**
 * A local HTTP server on port 0 that answers each request with `answer`: the frame of the small AWS
 * service stand-ins (each speaks its service's protocol in `answer`), so a real SDK client pointed at
 * it serializes, signs and parses as it would against AWS.
 */
export async function startHttpStub(answer: (request: StubRequest) => StubAnswer): Promise<HttpStub> {
  const requests: StubRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://stub');
      const request = { method: req.method ?? 'GET', path: decodeURIComponent(url.pathname), query: url.searchParams, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      requests.push(request);
      const { status, headers = {}, body } = answer(request);
      res.writeHead(status, headers).end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The message AWS sends with a refusal: it names the caller's and the resource's ARNs, which no command may print. */
export const REFUSAL_MESSAGE = 'User: arn:aws:iam::123456789012:user/ci-bot is not authorized to perform this action on resource: arn:aws:secret:eu-central-1:123456789012:internal';

/** An AWS REST-JSON answer: the body as JSON and, for an error, its type in `x-amzn-errortype`, as the SDK reads it. */
export function restJsonAnswer(status: number, body: unknown, errorType?: string): StubAnswer {
  return {
    status,
    headers: { 'content-type': 'application/json', ...(errorType !== undefined && { 'x-amzn-errortype': errorType }) },
    body: JSON.stringify(body),
  };
}
