import { describe, expect, it } from 'vitest';
import { PlanningApiError } from '../../../shared/core/errors';
import type { Log } from '../../../shared/core/logger';
import { createLimiter, resolveClientSettings, toArray } from '../../../shared/planning-api';
import { sendJson, testCredentials, v1Page, type Handler, type TestServer, useTestClient } from './test-server';
import { planningClient } from '../../support/planning-client';

/**
 * Resolves once `count` requests have been answered and handed to the client (its onRequest hook
 * fires after the attempt gave its limiter slot back): with the limiter then idle, no request is on
 * its way that the count could miss.
 */
function answered(count: number): { onRequest: () => void; settled: Promise<void> } {
  let seen = 0;
  let settle!: () => void;
  const settled = new Promise<void>((resolve) => (settle = resolve));
  return {
    onRequest: () => {
      if (++seen === count) settle();
    },
    settled,
  };
}

/** A meeting point: each call waits until `count` calls have arrived, then all go on together. */
function barrier(count: number): () => Promise<void> {
  let arrived = 0;
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return () => {
    if (++arrived === count) open();
    return opened;
  };
}

const clientFor = useTestClient();

const ids = (n: number, from = 0): string[] => Array.from({ length: n }, (_, i) => `r-${from + i}`);
const startAts = (s: TestServer): number[] => s.requests.map((r) => Number(r.query.get('startAt')));

function warnings(): { log: Log; warned: { message: unknown; extra: unknown[] }[] } {
  const warned: { message: unknown; extra: unknown[] }[] = [];
  const noop = (): void => undefined;
  const warn = (message: unknown, ...extra: unknown[]): void => void warned.push({ message, extra });
  return { log: { debug: noop, info: noop, error: noop, warn }, warned };
}

describe('v1 paging (startAt / pageLimit / total)', () => {
  it('fetches a 137-record list with exactly 3 requests, in order, asking for full records', async () => {
    const { client, server } = await clientFor((req, res) => sendJson(res, 200, v1Page(req, { total: 137 })));
    const risks = await toArray(client.listRisks('RR'));
    expect(risks.map((r) => r.id)).toEqual(ids(137));
    expect(startAts(server)).toEqual([0, 50, 100]);
    for (const request of server.requests) {
      expect(request.path).toBe('/api/v1/RR/risk');
      expect(request.query.get('pageLimit')).toBe('50');
      expect(request.query.get('fields')).toBe('all');
    }
  });

  it('requests the remaining pages in parallel after the first', async () => {
    // The five later pages are answered only once all five are in flight: an event, not a delay that a
    // loaded machine may outlast. A client that sent them one by one would never see an answer.
    const allAsked = barrier(5);
    const { client, server } = await clientFor(async (req, res) => {
      if (req.query.get('startAt') !== '0') await allAsked();
      sendJson(res, 200, v1Page(req, { total: 300 }));
    });
    const records = await toArray(client.listRiskRegisters());
    expect(records).toHaveLength(300);
    expect(server.maxInFlight).toBe(5);
  });

  it('keeps the requests in flight within the shared limiter', async () => {
    const limiter = createLimiter(2);
    // The first two requests are held until both are in flight, so the limit is reached by events.
    const firstTwo = barrier(2);
    let seen = 0;
    const { client, server } = await clientFor(
      async (req, res) => {
        if (++seen <= 2) await firstTwo();
        sendJson(res, 200, v1Page(req, { total: 500, key: 'Data' }));
      },
      { limiter },
    );
    const [themes, strategic] = await Promise.all([toArray(client.listPortfolioThemes()), toArray(client.listStrategicThemes())]);
    expect(themes).toHaveLength(500);
    expect(strategic).toHaveLength(500);
    expect(server.maxInFlight).toBe(2);
  });

  it('follows the page size the server really uses when it returns fewer records than asked', async () => {
    const { client, server } = await clientFor((req, res) => sendJson(res, 200, v1Page(req, { total: 137, pageCap: 20 })));
    const risks = await toArray(client.listRisks('RR'));
    expect(risks.map((r) => r.id)).toEqual(ids(137));
    expect(startAts(server).sort((a, b) => a - b)).toEqual([0, 20, 40, 60, 80, 100, 120]);
  });

  it('completes a page that comes back short in the middle of the list', async () => {
    const { client, server } = await clientFor((req, res) => {
      const page = v1Page(req, { total: 137 });
      if (req.query.get('startAt') === '50') (page.data as unknown[]).splice(30);
      sendJson(res, 200, page);
    });
    const risks = await toArray(client.listRisks('RR'));
    expect(risks.map((r) => r.id)).toEqual(ids(137));
    expect(startAts(server).sort((a, b) => a - b)).toEqual([0, 50, 80, 100]);
  });

  it('neither skips nor repeats records when the server returns more than asked', async () => {
    const { client } = await clientFor((req, res) => {
      req.query.set('pageLimit', '60');
      sendJson(res, 200, v1Page(req, { total: 137 }));
    });
    const risks = await toArray(client.listRisks('RR'));
    expect(risks.map((r) => r.id)).toEqual(ids(137));
  });

  it('stops with a warning when pages run empty before the reported total', async () => {
    const { log, warned } = warnings();
    const { client, server } = await clientFor(
      (req, res) => sendJson(res, 200, { ...v1Page(req, { total: 120 }), total: 1000 }),
      { log, limiter: createLimiter(3) },
    );
    const risks = await toArray(client.listRisks('RR'));
    expect(risks.map((r) => r.id)).toEqual(ids(120));
    expect(server.requests.length).toBeLessThanOrEqual(8);
    expect(warned).toEqual([
      {
        message: 'planning API list ended before its reported total',
        extra: [{ operation: 'listRisks', total: 1000, received: 120, emptyAt: 120 }],
      },
    ]);
  });

  it('returns nothing when the first page is empty whatever the total says', async () => {
    const { client, server } = await clientFor((_req, res) => sendJson(res, 200, { startAt: 0, pageLimit: 50, total: 7, data: [] }));
    expect(await toArray(client.listRiskRegisters())).toEqual([]);
    expect(server.requests).toHaveLength(1);
  });

  it('pages on until an empty page when the response has no total', async () => {
    const { client, server } = await clientFor((req, res) => {
      const { total: _total, ...page } = v1Page(req, { total: 120 });
      sendJson(res, 200, page);
    });
    expect((await toArray(client.listRiskRegisters())).map((r) => r.id)).toEqual(ids(120));
    expect(startAts(server)).toEqual([0, 50, 100, 120]);
  });

  it('stops with an error instead of looping when a server without total ignores startAt', async () => {
    const { client, server } = await clientFor((req, res) => {
      req.query.set('startAt', '0');
      const { total: _total, ...page } = v1Page(req, { total: 120 });
      sendJson(res, 200, page);
    });
    const error = await toArray(client.listRiskRegisters()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PlanningApiError);
    expect((error as Error).message).toMatch(/^listRiskRegisters: the server returned the same page for startAt=50 as for startAt=0/);
    expect(server.requests.length).toBeLessThanOrEqual(3);
  });

  it('reads ahead no further than the limiter allows while the consumer is busy', async () => {
    const limiter = createLimiter(3);
    // first page, the three pages read ahead, and one more started when page 2 was handed out
    const five = answered(5);
    const { client, server } = await clientFor((req, res) => sendJson(res, 200, v1Page(req, { total: 1000 })), {
      limiter,
      onRequest: five.onRequest,
    });
    const iterator = client.listRisks('RR')[Symbol.asyncIterator]();
    for (let i = 0; i < 60; i += 1) await iterator.next();
    await five.settled;
    expect(server.requests).toHaveLength(5);
    expect({ active: limiter.active, pending: limiter.pending }).toEqual({ active: 0, pending: 0 });
    await iterator.return(undefined);
  });

  it('stops requesting when the consumer stops early', async () => {
    const limiter = createLimiter(2);
    // the first page and the two read ahead before it was handed out
    const three = answered(3);
    const { client, server } = await clientFor((req, res) => sendJson(res, 200, v1Page(req, { total: 1000 })), {
      limiter,
      onRequest: three.onRequest,
    });
    for await (const risk of client.listRisks('RR')) {
      expect(risk.id).toBe('r-0');
      break;
    }
    await three.settled;
    expect(server.requests).toHaveLength(3);
    expect({ active: limiter.active, pending: limiter.pending }).toEqual({ active: 0, pending: 0 });
  });

  it('reads a numeric-string total', async () => {
    const { client } = await clientFor((req, res) => sendJson(res, 200, { ...v1Page(req, { total: 60 }), total: '60' }));
    expect(await toArray(client.listRiskRegisters())).toHaveLength(60);
  });

  it('uses a smaller configured page size', async () => {
    const { client, server } = await clientFor((req, res) => sendJson(res, 200, v1Page(req, { total: 25 })), { pageLimit: 10 });
    expect(await toArray(client.listRiskRegisters())).toHaveLength(25);
    expect(server.requests.map((r) => r.query.get('pageLimit'))).toEqual(['10', '10', '10']);
  });

  it('refuses a page size above the API maximum of 50', () => {
    expect(() => resolveClientSettings({ pageLimit: 51 })).toThrow(/planning API client setting pageLimit is invalid/);
  });
});

describe('legacy offset paging (board items)', () => {
  function boardItems(count: number, cap = Number.POSITIVE_INFINITY): Handler {
    return (req, res) => {
      const { pageStart, pageSize } = req.body as { pageStart: number; pageSize: number };
      const end = Math.min(count, pageStart + Math.min(pageSize, cap));
      const data = [];
      for (let i = pageStart; i < end; i += 1) data.push({ id: `f-${i}`, summary: `Feature ${i}` });
      sendJson(res, 200, { data });
    };
  }

  it('posts the selectors and pages until an empty page', async () => {
    const { client, server } = await clientFor(boardItems(120));
    const items = await toArray(client.listBoardItems('b-1', { fields: ['children', 'createdOn'] }));
    expect(items.map((i) => i.id)).toEqual(Array.from({ length: 120 }, (_, i) => `f-${i}`));
    expect(server.requests.map((r) => r.body)).toEqual([0, 50, 100, 120].map((pageStart) => ({
      boardId: 'b-1',
      fields: ['children', 'createdOn'],
      pageStart,
      pageSize: 50,
    })));
    expect(server.requests[0]!.method).toBe('POST');
    expect(server.requests[0]!.path).toBe('/legacy/api/acme/items');
    expect(server.requests[0]!.headers['content-type']).toBe('application/json');
  });

  it('does not take a short page for the end: a server may cap the page size silently', async () => {
    const { client, server } = await clientFor(boardItems(23, 7), { pageLimit: 50 });
    const items = await toArray(client.listBoardItems('b-1', { pageSize: 100 }));
    expect(items).toHaveLength(23);
    expect(new Set(items.map((i) => i.id)).size).toBe(23);
    expect(server.requests.map((r) => (r.body as { pageStart: number }).pageStart)).toEqual([0, 7, 14, 21, 23]);
  });

  it('hands each answer over whole, with its bytes, in order; the empty page that ends the list is not handed over', async () => {
    const { client } = await clientFor(boardItems(120));
    const pages = await toArray(client.listBoardItemPages('b-1'));
    const answer = (from: number, to: number) =>
      Buffer.byteLength(JSON.stringify({ data: Array.from({ length: to - from }, (_, i) => ({ id: `f-${from + i}`, summary: `Feature ${from + i}` })) }));
    expect(pages.map((page) => ({ bytes: page.bytes, first: page.items[0]?.id, items: page.items.length }))).toEqual([
      { bytes: answer(0, 50), first: 'f-0', items: 50 },
      { bytes: answer(50, 100), first: 'f-50', items: 50 },
      { bytes: answer(100, 120), first: 'f-100', items: 20 },
    ]);
  });

  it('leaves fields out of the body when none are asked for', async () => {
    const { client, server } = await clientFor(boardItems(0));
    expect(await toArray(client.listBoardItems('b-1'))).toEqual([]);
    expect(server.requests.map((r) => r.body)).toEqual([{ boardId: 'b-1', pageStart: 0, pageSize: 50 }]);
  });

  it('stops with an error instead of looping when the server ignores pageStart', async () => {
    const { client, server } = await clientFor((_req, res) => sendJson(res, 200, { data: [{ id: 'f-1' }, { id: 'f-2' }] }));
    const error = await toArray(client.listBoardItems('b-1')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PlanningApiError);
    expect((error as Error).message).toMatch(/^listBoardItems: the server returned the same page for pageStart=2 as for pageStart=0/);
    expect(server.requests.length).toBeLessThanOrEqual(3);
  });

  it('refuses a page size that is not a positive integer', () => {
    const client = planningClient({ credentials: testCredentials('http://127.0.0.1:1') });
    expect(() => client.listBoardItems('b-1', { pageSize: 0 })).toThrow(RangeError);
  });
});
