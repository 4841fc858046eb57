import { describe, expect, it } from 'vitest';
import { NotFoundError, PlanningApiError } from '../../../shared/core/errors';
import type { Log } from '../../../shared/core/logger';
import { resolveClientSettings, toArray } from '../../../shared/planning-api';
import { sendJson, type Handler, type TestServer, useTestClient } from './test-server';

/** The board-items page size of a client (boardItemsPageSize) and its fallback when a server refuses it. */

const clientFor = useTestClient();

interface ItemsBody {
  boardId: string;
  pageStart: number;
  pageSize: number;
}

/** `count` features per board, at most `max` a page; a larger pageSize gets 400 when `refuseAbove` is set. */
function boardItems(count: number, options: { max?: number; refuseAbove?: number } = {}): Handler {
  return (req, res) => {
    const { boardId, pageStart, pageSize } = req.body as ItemsBody;
    if (options.refuseAbove !== undefined && pageSize > options.refuseAbove) {
      sendJson(res, 400, { error: `pageSize must not exceed ${options.refuseAbove}` });
      return;
    }
    const end = Math.min(count, pageStart + Math.min(pageSize, options.max ?? Number.POSITIVE_INFINITY));
    const data = [];
    for (let i = pageStart; i < end; i += 1) data.push({ id: `${boardId}-f-${i}` });
    sendJson(res, 200, { data });
  };
}

const bodies = (s: TestServer): ItemsBody[] => s.requests.map((r) => r.body as ItemsBody);

function warnings(): { log: Log; warned: unknown[] } {
  const warned: unknown[] = [];
  const noop = (): void => undefined;
  const warn = (message: unknown, ..._extra: unknown[]): void => void warned.push(message);
  return { log: { debug: noop, info: noop, error: noop, warn }, warned };
}

describe('board items page size', () => {
  it('asks for boardItemsPageSize items per request when a call does not say', async () => {
    const { client, server } = await clientFor(boardItems(2_500), { boardItemsPageSize: 1_000 });
    const items = await toArray(client.listBoardItems('b-1'));
    expect(items).toHaveLength(2_500);
    expect(bodies(server).map((b) => [b.pageStart, b.pageSize])).toEqual([
      [0, 1_000],
      [1_000, 1_000],
      [2_000, 1_000],
      [2_500, 1_000],
    ]);
  });

  it('lets a call override it', async () => {
    const { client, server } = await clientFor(boardItems(30), { boardItemsPageSize: 1_000 });
    expect(await toArray(client.listBoardItems('b-1', { pageSize: 20 }))).toHaveLength(30);
    expect(bodies(server).map((b) => b.pageSize)).toEqual([20, 20, 20]);
  });

  it('follows a server that silently sends fewer: every record once, and only an empty page ends the list', async () => {
    const { client, server } = await clientFor(boardItems(230, { max: 100 }), { boardItemsPageSize: 1_000 });
    const items = await toArray(client.listBoardItems('b-1'));
    expect(items.map((i) => i.id)).toEqual(Array.from({ length: 230 }, (_, i) => `b-1-f-${i}`));
    expect(bodies(server).map((b) => b.pageStart)).toEqual([0, 100, 200, 230]);
  });

  it('refuses a boardItemsPageSize that is not a positive integer', () => {
    for (const boardItemsPageSize of [0, -5, 2.5, Number.NaN]) {
      expect(() => resolveClientSettings({ boardItemsPageSize })).toThrow(/planning API client setting boardItemsPageSize is invalid/);
    }
  });

  it('falls back to 50 when the server refuses a larger page size with 400, once for the whole client', async () => {
    const { log, warned } = warnings();
    const { client, server } = await clientFor(boardItems(120, { refuseAbove: 100 }), { boardItemsPageSize: 1_000, log });
    const first = await toArray(client.listBoardItems('b-1'));
    const second = await toArray(client.listBoardItems('b-2'));
    expect(first.map((i) => i.id)).toEqual(Array.from({ length: 120 }, (_, i) => `b-1-f-${i}`));
    expect(second).toHaveLength(120);
    // One refused request, then pages of 50 for this board and the next: one request more than the minimum.
    expect(bodies(server).map((b) => `${b.boardId}:${b.pageStart}/${b.pageSize}`)).toEqual([
      'b-1:0/1000',
      'b-1:0/50',
      'b-1:50/50',
      'b-1:100/50',
      'b-1:120/50',
      'b-2:0/50',
      'b-2:50/50',
      'b-2:100/50',
      'b-2:120/50',
    ]);
    expect(warned).toEqual(['the planning API refused the board-items page size; using the default from now on']);
  });

  it('reports a 400 at the default page size, and other errors, as they are', async () => {
    const refused = await clientFor((_req, res) => sendJson(res, 400, { error: 'bad boardId' }), { boardItemsPageSize: 50 });
    const error = await toArray(refused.client.listBoardItems('b-1')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PlanningApiError);
    expect((error as PlanningApiError).status).toBe(400);
    expect(refused.server.requests).toHaveLength(1);
    await refused.server.close();

    const missing = await clientFor((_req, res) => sendJson(res, 404, { error: 'no such board' }), { boardItemsPageSize: 1_000 });
    expect(await toArray(missing.client.listBoardItems('b-9')).catch((e: unknown) => e)).toBeInstanceOf(NotFoundError);
    expect(missing.server.requests).toHaveLength(1);
  });
});
