import { inspect } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import {
  AuthenticationError,
  NotFoundError,
  PlanningApiError,
  PlanningApiUnreachableError,
  RequestTimeoutError,
} from '../../../shared/core/errors';
import type { Log } from '../../../shared/core/logger';
import { createLimiter, toArray, type RequestEvent } from '../../../shared/planning-api';

import {
  API_KEY,
  BASIC_TOKEN,
  sendJson,
  sendText,
  startServer,
  testCredentials,
  type Handler,
  type TestServer,
} from './test-server';
import { planningClient, type FlatClientOptions } from '../../support/planning-client';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const RISK = { data: [{ id: 'r-1', key: 'RR-1', title: 'Late supplier' }] };

interface Recorder {
  log: Log;
  lines: string[];
  sleeps: number[];
  events: RequestEvent[];
}

function recorder(): Recorder {
  const lines: string[] = [];
  const write = (level: string) => (message: unknown, ...extra: unknown[]) => {
    lines.push(`${level} ${JSON.stringify(message)} ${JSON.stringify(extra)}`);
  };
  return {
    log: { debug: write('debug'), info: write('info'), warn: write('warn'), error: write('error') },
    lines,
    sleeps: [],
    events: [],
  };
}

async function clientFor(handler: Handler, options: FlatClientOptions = {}, rec = recorder()) {
  server = await startServer(handler);
  const client = planningClient({
    credentials: testCredentials(server.url),
    retry: { baseDelayMs: 2, maxDelayMs: 50 },
    log: rec.log,
    sleep: (ms) => {
      rec.sleeps.push(ms);
      return Promise.resolve();
    },
    onRequest: (event) => rec.events.push(event),
    ...options,
  });
  return { client, server, rec };
}

/** Answers `failures` with the given status (and headers) before answering the risk. */
function failingThen(statuses: { status: number; headers?: Record<string, string>; body?: unknown }[]): Handler {
  let calls = 0;
  return (_req, res) => {
    const failure = statuses[calls];
    calls += 1;
    if (failure) sendJson(res, failure.status, failure.body ?? { error: 'busy' }, failure.headers);
    else sendJson(res, 200, RISK);
  };
}

describe('retries', () => {
  it('retries a 429 with Retry-After 0 at once, costing exactly one extra request', async () => {
    const { client, server, rec } = await clientFor(failingThen([{ status: 429, headers: { 'Retry-After': '0' } }]));
    const risk = await client.getRisk('r-1');
    expect(risk.id).toBe('r-1');
    expect(server.requests).toHaveLength(2);
    expect(rec.sleeps).toEqual([0]);
  });

  it.each([500, 502, 503, 504])('retries a %i and then succeeds', async (status) => {
    const { client, server } = await clientFor(failingThen([{ status }]));
    await expect(client.getRisk('r-1')).resolves.toMatchObject({ id: 'r-1' });
    expect(server.requests).toHaveLength(2);
  });

  it('waits until a Retry-After HTTP-date, and caps a long Retry-After at maxDelayMs', async () => {
    const now = Date.parse('2025-03-10T12:00:00Z');
    const { client, rec } = await clientFor(
      failingThen([
        { status: 429, headers: { 'Retry-After': 'Mon, 10 Mar 2025 12:00:01 GMT' } },
        { status: 503, headers: { 'Retry-After': 'Mon, 10 Mar 2025 11:59:00 GMT' } },
        { status: 429, headers: { 'Retry-After': '3600' } },
      ]),
      { clock: () => new Date(now), retry: { baseDelayMs: 2, maxDelayMs: 2000 } },
    );
    await client.getRisk('r-1');
    expect(rec.sleeps).toEqual([1000, 0, 2000]);
  });

  it('backs off with full jitter when the server gives no Retry-After', async () => {
    const { client, rec } = await clientFor(failingThen([{ status: 503 }, { status: 503 }, { status: 503 }]), {
      retry: { baseDelayMs: 10, maxDelayMs: 25 },
      random: () => 0.5,
    });
    await client.getRisk('r-1');
    // ceilings 10, 20, 25 (capped) times 0.5
    expect(rec.sleeps).toEqual([5, 10, 12]);
  });

  it('gives up after maxAttempts with an error naming the operation, the status and the attempts', async () => {
    const { client, server } = await clientFor(
      (_req, res) => sendJson(res, 503, { errorMessages: ['Service is down for maintenance'] }),
      { retry: { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 2 } },
    );
    const error = await client.getRisk('r-1').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PlanningApiError);
    expect(error).toMatchObject({ operation: 'getRisk', status: 503 });
    expect((error as Error).message).toBe(
      'getRisk: the planning API answered 503 (gave up after 3 attempts): Service is down for maintenance',
    );
    expect(server.requests).toHaveLength(3);
  });

  it.each([400, 409, 422, 501])('does not retry a %i', async (status) => {
    const { client, server } = await clientFor((_req, res) => sendJson(res, status, { error: 'nope' }));
    const error = await client.getRisk('r-1').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PlanningApiError);
    expect(error).not.toBeInstanceOf(NotFoundError);
    expect((error as PlanningApiError).status).toBe(status);
    expect((error as Error).message).toBe(`getRisk: the planning API answered ${status}: nope`);
    expect(server.requests).toHaveLength(1);
  });

  it('retries a connection reset', async () => {
    let calls = 0;
    const { client, server } = await clientFor((req, res) => {
      calls += 1;
      if (calls === 1) res.socket?.destroy();
      else sendJson(res, 200, RISK);
      void req;
    });
    await expect(client.getRisk('r-1')).resolves.toMatchObject({ id: 'r-1' });
    expect(server.requests).toHaveLength(2);
  });

  it('reports a server that keeps resetting as unreachable after the last attempt', async () => {
    const { client } = await clientFor((_req, res) => void res.socket?.destroy(), { retry: { maxAttempts: 2, baseDelayMs: 1 } });
    const error = await client.getRisk('r-1').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PlanningApiError);
    expect(error).toBeInstanceOf(PlanningApiUnreachableError);
    expect((error as Error).message).toMatch(/^getRisk: could not reach the planning API at baseUrl http:\/\/127\.0\.0\.1:\d+ \(the Risk group\) \(gave up after 2 attempts\): fetch failed/);
  });

  it('times out a request that gets no answer, retries it, then throws RequestTimeoutError', async () => {
    // Each attempt times out once the server has it (never answered), not by a clock.
    const attempts: AbortController[] = [];
    const { client, server } = await clientFor(() => attempts.at(-1)!.abort(new DOMException('timed out', 'TimeoutError')), {
      timeoutMs: 80,
      retry: { maxAttempts: 2, baseDelayMs: 1 },
      timeoutSignal: () => {
        attempts.push(new AbortController());
        return attempts.at(-1)!.signal;
      },
    });
    const error = await client.getRisk('r-1').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RequestTimeoutError);
    expect((error as Error).message).toMatch(/^getRisk: no complete response from baseUrl http:\/\/127\.0\.0\.1:\d+ \(the Risk group\) within 80 ms \(gave up after 2 attempts\)$/);
    expect(server.requests).toHaveLength(2);
  });

  it('times out a response whose body stalls after the headers', async () => {
    const { client } = await clientFor(
      (_req, res) => {
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.write('{"data": [');
      },
      { timeoutMs: 80, retry: { maxAttempts: 1 } },
    );
    await expect(client.getRisk('r-1')).rejects.toBeInstanceOf(RequestTimeoutError);
  });

  it('recovers when only the first attempt is slow', async () => {
    // Attempts time out when the test says so, not by a clock: the first one once the server has it.
    const attempts: { ms: number; timeOut: () => void }[] = [];
    let firstArrived!: () => void;
    const arrived = new Promise<void>((resolve) => (firstArrived = resolve));
    let calls = 0;
    const { client, server, rec } = await clientFor(
      (_req, res) => {
        calls += 1;
        if (calls === 1) firstArrived(); // never answered
        else sendJson(res, 200, RISK);
      },
      {
        timeoutMs: 250,
        timeoutSignal: (ms) => {
          const controller = new AbortController();
          attempts.push({ ms, timeOut: () => controller.abort(new DOMException('timed out', 'TimeoutError')) });
          return controller.signal;
        },
      },
    );
    const risk = client.getRisk('r-1');
    await arrived;
    attempts[0]!.timeOut();
    await expect(risk).resolves.toMatchObject({ id: 'r-1' });
    expect(server.requests).toHaveLength(2);
    expect(attempts.map((a) => a.ms)).toEqual([250, 250]);
    expect(rec.events.map((e) => e.outcome)).toEqual(['timeout', 'ok']);
  });

  it('does not hold a concurrency slot while sleeping before a retry', async () => {
    const limiter = createLimiter(1);
    const activeDuringSleep: number[] = [];
    const { client } = await clientFor(failingThen([{ status: 429, headers: { 'Retry-After': '0' } }]), {
      limiter,
      sleep: () => {
        activeDuringSleep.push(limiter.active);
        return Promise.resolve();
      },
    });
    await client.getRisk('r-1');
    expect(activeDuringSleep).toEqual([0]);
  });

  it('lets another request through while one waits for its retry', async () => {
    const limiter = createLimiter(1);
    const order: string[] = [];
    let releaseSleep!: () => void;
    let sleeping!: () => void;
    const slowIsSleeping = new Promise<void>((resolve) => (sleeping = resolve));
    const { client } = await clientFor(
      (req, res) => {
        order.push(req.path);
        if (req.path.endsWith('/risk/slow') && order.filter((p) => p.endsWith('/risk/slow')).length === 1) {
          sendJson(res, 503, {});
        } else sendJson(res, 200, { data: [{ id: req.path.split('/').pop() }] });
      },
      {
        limiter,
        sleep: () => {
          sleeping();
          return new Promise<void>((resolve) => (releaseSleep = resolve));
        },
      },
    );
    const slow = client.getRisk('slow');
    await slowIsSleeping;
    expect(limiter.active).toBe(0);
    await expect(client.getRisk('fast')).resolves.toMatchObject({ id: 'fast' });
    releaseSleep();
    await expect(slow).resolves.toMatchObject({ id: 'slow' });
    expect(order).toEqual(['/api/v1/risk/slow', '/api/v1/risk/fast', '/api/v1/risk/slow']);
  });

  it('reports every attempt to onRequest, marking the ones that are retried', async () => {
    const { client, rec } = await clientFor(failingThen([{ status: 429, headers: { 'Retry-After': '0' } }]));
    await client.getRisk('r-1');
    expect(rec.events).toEqual([
      expect.objectContaining({ operation: 'getRisk', method: 'GET', status: 429, outcome: 'http-error', attempt: 1, retried: true }),
      expect.objectContaining({ operation: 'getRisk', method: 'GET', status: 200, outcome: 'ok', attempt: 2, retried: false }),
    ]);
    expect(rec.events[0]!.path).toBe('/api/v1/risk/r-1?fields=all');
    expect(typeof rec.events[0]!.durationMs).toBe('number');
  });

  it('keeps working when the onRequest hook throws', async () => {
    const { client } = await clientFor(failingThen([]), {
      onRequest: () => {
        throw new Error('metrics down');
      },
    });
    await expect(client.getRisk('r-1')).resolves.toMatchObject({ id: 'r-1' });
  });
});

describe('error statuses', () => {
  it('turns a 404 into NotFoundError naming the operation and the id', async () => {
    const { client } = await clientFor((_req, res) => sendJson(res, 404, { errorMessages: ['Risk does not exist'] }));
    const error = await client.getRisk('r-404').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error).toMatchObject({ operation: 'getRisk', status: 404 });
    expect((error as Error).message).toBe('getRisk: risk "r-404" was not found (404): Risk does not exist');
  });

  it('names the missing parent of a list in its NotFoundError', async () => {
    const { client, server } = await clientFor((_req, res) => sendJson(res, 404, {}));
    const error = await toArray(client.listRisks('NOPE')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NotFoundError);
    expect((error as Error).message).toMatch(/^listRisks: risk register "NOPE" was not found \(404\)/);
    expect(server.requests).toHaveLength(1);
  });

  it('treats an empty single-record result as not found', async () => {
    const { client } = await clientFor((_req, res) => sendJson(res, 200, { Data: [] }));
    await expect(client.getKeyResult('KR-9')).rejects.toThrow(new NotFoundError('getKeyResult: key result "KR-9" was not found (empty result)', { operation: 'getKeyResult' }));
  });

  it('turns a 401 into AuthenticationError telling the user to check the e-mail and API key', async () => {
    const { client, server } = await clientFor((_req, res) => sendJson(res, 401, { error: 'Unauthorized' }));
    const error = await toArray(client.listRiskRegisters()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthenticationError);
    expect((error as Error).message).toBe(
      'listRiskRegisters: the planning API rejected the credentials (401). Check the e-mail and API key in the credentials document: Unauthorized',
    );
    expect(server.requests).toHaveLength(1);
  });

  it('turns a 403 into AuthenticationError that also mentions missing access', async () => {
    const { client } = await clientFor((_req, res) => sendText(res, 403, 'Forbidden'));
    const error = await client.listSprints('b-7').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthenticationError);
    expect((error as Error).message).toBe(
      'listSprints: the planning API refused access (403). Check the e-mail and API key; the user may also lack access to board "b-7": Forbidden',
    );
  });

  it.each([
    ['errorMessages', { errorMessages: ['First problem', 'Second problem'], errors: {} }, 'First problem; Second problem'],
    ['error', { error: 'Invalid boardId' }, 'Invalid boardId'],
    ['errors map', { errorMessages: [], errors: { boardId: 'is required' } }, 'boardId: is required'],
    ['plain text', 'Bad things happened\n  on line 2', 'Bad things happened on line 2'],
    ['HTML page', '<html><head><title>400 Bad Request</title></head><body><h1>nginx</h1></body></html>', '400 Bad Request'],
  ])('surfaces the text of an error body with %s', async (_shape, body, expected) => {
    const { client } = await clientFor((_req, res) =>
      typeof body === 'string' ? sendText(res, 400, body, body.startsWith('<') ? 'text/html' : 'text/plain') : sendJson(res, 400, body),
    );
    await expect(client.listCollections()).rejects.toThrow(`listCollections: the planning API answered 400: ${expected}`);
  });

  it('truncates a long error body', async () => {
    const { client } = await clientFor((_req, res) => sendText(res, 400, 'x'.repeat(5000)));
    const error = (await client.listCollections().catch((e: unknown) => e)) as Error;
    expect(error.message.length).toBeLessThan(400);
    expect(error.message.endsWith('…')).toBe(true);
  });
});

describe('secrets', () => {
  function assertNoSecret(value: unknown): void {
    const texts = [
      JSON.stringify(value),
      inspect(value, { depth: 10, showHidden: true }),
      value instanceof Error ? `${value.message} ${value.stack ?? ''} ${String(value.cause)}` : '',
    ].join('\n');
    expect(texts).not.toContain(API_KEY);
    expect(texts).not.toContain(BASIC_TOKEN);
  }

  it('sends Basic credentials', async () => {
    const { client, server } = await clientFor(failingThen([]));
    await client.getRisk('r-1');
    expect(server.requests[0]!.headers.authorization).toBe(`Basic ${BASIC_TOKEN}`);
  });

  it('never puts the API key or the Authorization header into errors, logs or events, even when the server echoes them', async () => {
    const rec = recorder();
    // A misbehaving proxy that echoes the request headers back in its error bodies.
    const { client } = await clientFor(
      (req, res) => {
        const echo = `Denied for ${req.headers.authorization} (key ${API_KEY})`;
        if (req.path.endsWith('/r-401')) sendJson(res, 401, { errorMessages: [echo] });
        else if (req.path.endsWith('/r-403')) sendText(res, 403, echo);
        else if (req.path.endsWith('/r-404')) sendJson(res, 404, { error: echo });
        else sendJson(res, 503, { error: echo });
      },
      { retry: { maxAttempts: 2, baseDelayMs: 1 } },
      rec,
    );
    const errors = await Promise.all(['r-401', 'r-403', 'r-404', 'r-503'].map((id) => client.getRisk(id).catch((e: unknown) => e)));
    expect(errors.map((e) => (e as Error).constructor.name)).toEqual([
      'AuthenticationError',
      'AuthenticationError',
      'NotFoundError',
      'PlanningApiError',
    ]);
    expect((errors[0] as Error).message).toContain('[REDACTED]');
    for (const error of errors) assertNoSecret(error);
    assertNoSecret(rec.lines);
    assertNoSecret(rec.events);
    expect(rec.lines.length).toBeGreaterThan(0);
  });

  it('does not expose the credentials on the client object', async () => {
    const { client } = await clientFor(failingThen([]));
    assertNoSecret(client);
    expect(Object.keys(client)).toEqual([]);
  });

  it('keeps network and timeout errors free of secrets', async () => {
    const { client } = await clientFor(() => undefined, { timeoutMs: 30, retry: { maxAttempts: 1 } });
    assertNoSecret(await client.getRisk('x').catch((e: unknown) => e));
    const unreachable = planningClient({
      credentials: testCredentials('http://127.0.0.1:1'),
      retry: { maxAttempts: 1 },
    });
    const error = await unreachable.getRisk('x').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PlanningApiError);
    assertNoSecret(error);
  });
});

describe('response bodies', () => {
  it('reports a 200 that is not JSON as a schema mismatch', async () => {
    const { client } = await clientFor((_req, res) => sendText(res, 200, '<html>login</html>', 'text/html'));
    await expect(client.getRisk('r-1')).rejects.toThrow('getRisk: the response is not JSON (starts with "<html>login</html>")');
  });
});
