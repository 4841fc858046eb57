import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach } from 'vitest';
import { PlanningApiClient } from '../../../shared/planning-api';

import type { Credentials } from '../../../shared/planning-api/credentials';
import { planningClient, type FlatClientOptions } from '../../support/planning-client';

/**
 * A small real HTTP server for the client's unit tests: each test scripts the answers it needs
 * (short pages, empty pages, Retry-After dates, error bodies, resets, stalls) with a handler.
 */

export interface SeenRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  body: unknown;
}

export type Handler = (request: SeenRequest, response: ServerResponse) => void | Promise<void>;

export interface TestServer {
  url: string;
  requests: SeenRequest[];
  /** Requests being handled right now, and the most seen at once. */
  readonly inFlight: number;
  readonly maxInFlight: number;
  close(): Promise<void>;
}

export async function startServer(handler: Handler): Promise<TestServer> {
  const requests: SeenRequest[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const server = createServer((req, res) => {
    inFlight += 1;
    maxInFlight = Math.max(maxInFlight, inFlight);
    const done = (): void => {
      inFlight -= 1;
    };
    res.on('close', done);
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://localhost');
      const text = Buffer.concat(chunks).toString('utf8');
      const seen: SeenRequest = {
        method: req.method ?? 'GET',
        path: url.pathname,
        query: url.searchParams,
        headers: req.headers,
        body: text ? (JSON.parse(text) as unknown) : undefined,
      };
      requests.push(seen);
      Promise.resolve(handler(seen, res)).catch((error: unknown) => {
        res.statusCode = 500;
        res.end(String(error));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    get inFlight() {
      return inFlight;
    },
    get maxInFlight() {
      return maxInFlight;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export function sendJson(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  response.writeHead(status, { 'Content-Type': 'application/json', ...headers });
  response.end(JSON.stringify(body));
}

export function sendText(response: ServerResponse, status: number, text: string, contentType = 'text/plain'): void {
  response.writeHead(status, { 'Content-Type': contentType });
  response.end(text);
}

export const API_KEY = 'k3y-SECRET-0123456789';
export const EMAIL = 'ann@example.com';
export const BASIC_TOKEN = Buffer.from(`${EMAIL}:${API_KEY}`).toString('base64');

export function testCredentials(url: string, overrides: Partial<Credentials> = {}): Credentials {
  return { email: EMAIL, apiKey: API_KEY, baseUrl: url, legacyBaseUrl: `${url}/legacy/`, companyPrefix: 'acme', ...overrides };
}

/** A v1 list of `total` records `{ id: 'r-<n>' }`, served `pageCap` at a time at most. */
export function v1Page(
  request: SeenRequest,
  options: { total: number; key?: 'data' | 'Data'; pageCap?: number; makeRecord?: (index: number) => Record<string, unknown> },
): Record<string, unknown> {
  const startAt = Number(request.query.get('startAt') ?? 0);
  const pageLimit = Number(request.query.get('pageLimit') ?? 50);
  const size = Math.min(pageLimit, options.pageCap ?? Number.POSITIVE_INFINITY);
  const end = Math.min(options.total, startAt + size);
  const make = options.makeRecord ?? ((i: number) => ({ id: `r-${i}`, title: `Record ${i}` }));
  const records = [];
  for (let i = startAt; i < end; i += 1) records.push(make(i));
  return { startAt, pageLimit, total: options.total, [options.key ?? 'data']: records };
}

/**
 * A client against a fresh test server per call, with near-zero backoff; the server is closed after
 * each test. Call once at the top level of a test file.
 */
export function useTestClient(): (
  handler: Handler,
  options?: FlatClientOptions,
) => Promise<{ client: PlanningApiClient; server: TestServer }> {
  let server: TestServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });
  return async (handler, options = {}) => {
    server = await startServer(handler);
    const client = planningClient({
      credentials: testCredentials(server.url),
      retry: { baseDelayMs: 1, maxDelayMs: 5 },
      ...options,
    });
    return { client, server };
  };
}
