// The simulator's contract shapes: pinned to the contract vocabulary (vocabulary.test.ts covers 'docs').
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { client } from '../../simulator/http-helpers';
import { startSimulator, type RunningSimulator } from '../../simulator/index';

let sim: RunningSimulator;
let admin: ReturnType<typeof client>;
const delays = delayProbe();

beforeAll(async () => {
  sim = await startSimulator({ tenant: 'tiny', wait: delays.wait, vocabulary: 'contract' });
  admin = client(sim);
});
afterAll(async () => {
  await sim.close();
});
beforeEach(() => {
  sim.setFaults({});
  sim.setLatency(0);
  sim.clearRequests();
  delays.reset();
});

/**
 * The simulator's delays, seen without a clock: every delay is recorded, and while `hold()` is on
 * a delay lasts until `release()` (or the simulator closes).
 */
function delayProbe() {
  let applied: number[] = [];
  let holding = false;
  let held: (() => void)[] = [];
  let started: (() => void) | undefined;
  return {
    get applied(): readonly number[] {
      return applied;
    },
    wait: (ms: number): Promise<void> => {
      applied.push(ms);
      started?.();
      if (!holding) return Promise.resolve();
      return new Promise<void>((resolve) => held.push(resolve));
    },
    /** Holds every delay from now on; resolves when the next one starts. */
    hold(): Promise<void> {
      holding = true;
      return new Promise<void>((resolve) => {
        started = () => {
          started = undefined;
          resolve();
        };
      });
    },
    release(): void {
      holding = false;
      for (const resolve of held) resolve();
      held = [];
    },
    reset(): void {
      this.release();
      applied = [];
      started = undefined;
    },
  };
}

describe('injected faults', () => {
  it('answers 429 with Retry-After once, then normally, and logs the fault', async () => {
    sim.injectFault({ status: 429, retryAfter: '2' });
    const limited = await admin.v1('riskregister');
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('2');
    expect(limited.json).toEqual({ errorMessages: [expect.any(String)] });
    expect((await admin.v1('riskregister')).status).toBe(200);
    expect(sim.requests.map((r) => [r.status, r.fault])).toEqual([
      [429, 'injected'],
      [200, undefined],
    ]);
  });

  it('applies a fault only to matching requests, the given number of times', async () => {
    sim.injectFault({ status: 503, times: 2, match: (r) => r.method === 'POST' && r.path.endsWith('/items') });
    expect((await admin.legacyGet('boards')).status).toBe(200);
    const first = await admin.legacyPost('items', { boardId: '1000' });
    expect(first.status).toBe(503);
    expect(first.headers.get('content-type')).toContain('text/html');
    expect((await admin.legacyPost('items', { boardId: '1000' })).status).toBe(503);
    expect((await admin.legacyPost('items', { boardId: '1000' })).status).toBe(200);
  });

  it('answers 500 with the address error shape', async () => {
    sim.injectFault({ status: 500 });
    const res = await admin.legacyGet('collections');
    expect(res.status).toBe(500);
    expect(res.json).toEqual({ error: expect.any(String) });
  });

  it('resets the socket without answering', async () => {
    sim.injectFault({ status: 'reset' });
    await expect(fetch(`${sim.v1BaseUrl}/api/v1/riskregister`)).rejects.toThrow();
    expect(sim.requests[0]).toMatchObject({ status: 0, fault: 'injected' });
    expect((await admin.v1('riskregister')).status).toBe(200);
  });

  it('holds a slow answer back for its delay, long enough to trigger a client timeout', async () => {
    sim.injectFault({ status: 'slow', delayMs: 400 });
    const creds = sim.credentials();
    const auth = `Basic ${Buffer.from(`${creds.email}:${creds.apiKey}`).toString('base64')}`;
    const delaying = delays.hold();
    const abort = new AbortController();
    const answer = fetch(`${sim.v1BaseUrl}/api/v1/riskregister`, { headers: { authorization: auth }, signal: abort.signal });
    await delaying;
    // The client gives up while the answer is held back: no response has been sent.
    abort.abort(new Error('client timeout'));
    await expect(answer).rejects.toThrow('client timeout');
    delays.release();
    expect(delays.applied).toEqual([400]);

    sim.injectFault({ status: 'slow', delayMs: 150 });
    expect((await admin.v1('riskregister')).status).toBe(200);
    expect(delays.applied).toEqual([400, 150]);
  });
});

describe('random faults and latency', () => {
  it('adds latency to every response', async () => {
    sim.setLatency(120);
    expect((await admin.v1('riskregister')).status).toBe(200);
    expect((await admin.legacyGet('boards')).status).toBe(200);
    expect(delays.applied).toEqual([120, 120]);
  });

  it('draws 429, 5xx and slow answers at the configured rates', async () => {
    sim.setFaults({ rate429: 1, retryAfter: '3' });
    const limited = await admin.v1('riskregister');
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('3');
    sim.setFaults({ rate5xx: 1 });
    for (let i = 0; i < 6; i++) expect([500, 502, 503, 504]).toContain((await admin.legacyGet('boards')).status);
    sim.setFaults({ rateSlow: 1, slowMs: 100 });
    expect((await admin.v1('riskregister')).status).toBe(200);
    expect(delays.applied).toEqual([100]);
    expect(sim.requests.map((r) => r.fault)).toEqual(['429', '5xx', '5xx', '5xx', '5xx', '5xx', '5xx', 'slow']);
  });

  it('draws the same fault sequence for the same seed', async () => {
    const run = async (): Promise<number[]> => {
      const s = await startSimulator({ tenant: 'tiny', seed: 9, faults: { rate5xx: 0.3, rate429: 0.2 } });
      try {
        const c = client(s);
        const statuses: number[] = [];
        for (let i = 0; i < 25; i++) statuses.push((await c.v1('riskregister')).status);
        return statuses;
      } finally {
        await s.close();
      }
    };
    const a = await run();
    expect(new Set(a).size).toBeGreaterThan(1);
    expect(await run()).toEqual(a);
  });
});

describe('request log and shutdown', () => {
  it('logs address, method, path, query, body, status and user of every request', async () => {
    await admin.v1('ENT/risk?fields=all&startAt=1');
    await admin.legacyPost('items', { boardId: '1000', pageSize: 2 });
    await client(sim, undefined, null).legacyGet('collections');
    expect(sim.requests).toEqual([
      { address: 'v1', method: 'GET', path: '/api/v1/ENT/risk', query: { fields: 'all', startAt: '1' }, status: 200, user: sim.users[0]!.email },
      { address: 'legacy', method: 'POST', path: '/api/acme/items', query: {}, body: { boardId: '1000', pageSize: 2 }, status: 200, user: sim.users[0]!.email },
      { address: 'legacy', method: 'GET', path: '/api/acme/collections', query: {}, status: 401 },
    ]);
    sim.clearRequests();
    expect(sim.requests).toHaveLength(0);
  });

  it('closes without waiting for a slow answer that is pending', async () => {
    // The delay is held until released, which never happens: only close() can end it.
    const probe = delayProbe();
    const s = await startSimulator({ tenant: 'tiny', wait: probe.wait });
    s.injectFault({ status: 'slow', delayMs: 30_000 });
    const delaying = probe.hold();
    const pending = fetch(`${s.v1BaseUrl}/api/v1/riskregister`).then(
      (r) => r.status,
      () => 'failed',
    );
    await delaying;
    await s.close();
    expect(await pending).toBe('failed');
    expect(s.requests).toMatchObject([{ status: 0, fault: 'injected' }]);
  });

  it('waits out delays on a timer by default', async () => {
    const s = await startSimulator({ tenant: 'tiny', latencyMs: 5 });
    try {
      expect((await client(s).v1('riskregister')).status).toBe(200);
    } finally {
      await s.close();
    }
  });
});

describe('broken-server fault modes', () => {
  it("'oversized' streams a 200 body of exactly the asked size, valid JSON", async () => {
    sim.injectFault({ status: 'oversized', bytes: 300_000 });
    const response = await admin.v1('riskregister');
    expect(response.status).toBe(200);
    expect(Buffer.byteLength(response.text)).toBe(300_000);
    expect(response.json).toMatchObject({ data: [] });
    expect((await admin.v1('riskregister')).status).toBe(200);
  });

  it("'malformed' answers 200 with a body that is not JSON, once", async () => {
    sim.injectFault({ status: 'malformed' });
    const response = await admin.v1('riskregister');
    expect(response.status).toBe(200);
    expect(() => JSON.parse(response.text) as unknown).toThrow();
    expect((await admin.v1('riskregister')).json).toMatchObject({ data: expect.any(Array) as unknown });
  });

  it("'repeat' gives every record of the answer's list twice in a row, and leaves the rest of the answer", async () => {
    const usual = (await admin.v1('riskregister')).json as { data: { id: string }[]; total: number };
    sim.injectFault({ status: 'repeat' });
    const twice = (await admin.v1('riskregister')).json as typeof usual;
    expect(twice.data.map((r) => r.id)).toEqual(usual.data.flatMap((r) => [r.id, r.id]));
    expect(twice.total).toBe(usual.total);
  });

  it("'hang' never answers; the client's own limit ends the wait, and the next request is served", async () => {
    sim.injectFault({ status: 'hang' });
    const creds = sim.credentials();
    const auth = `Basic ${Buffer.from(`${creds.email}:${creds.apiKey}`).toString('base64')}`;
    await expect(
      fetch(`${creds.baseUrl}/api/v1/riskregister`, { headers: { authorization: auth }, signal: AbortSignal.timeout(200) }),
    ).rejects.toThrow(/aborted|timeout/i);
    expect(sim.requests.map((r) => [r.status, r.fault])).toEqual([[0, 'injected']]);
    expect((await admin.v1('riskregister')).status).toBe(200);
  });

  it('ignoreStartAt answers every offset with the first page; clearInjectedFaults drops queued faults', async () => {
    sim.setFaults({ ignoreStartAt: true });
    const first = await admin.v1('riskregister?startAt=0&pageLimit=1');
    const second = await admin.v1('riskregister?startAt=1&pageLimit=1');
    expect(second.json).toEqual(first.json);
    expect(sim.requests[1]?.query.startAt).toBe('1');
    sim.setFaults({});
    expect((await admin.v1('riskregister?startAt=1&pageLimit=1')).json).not.toEqual(first.json);

    sim.injectFault({ status: 500, times: 3 });
    sim.clearInjectedFaults();
    expect((await admin.v1('riskregister')).status).toBe(200);
  });
});
