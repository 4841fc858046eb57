import { systemClock } from '../../../../../shared/core/clock';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLog } from '../../../../../shared/core/logger';
import type { Board, BoardItem } from '../../../../../shared/planning-api/schemas';
import type { DatasetContext } from '../../../../../shared/report/dataset/dataset';
import { parseReportDefinition } from '../../../../../shared/report/definition/definition';
import { createExportClient } from '../../../../../shared/report/run/plan-run';
import { resolveExportSettings } from '../../../../../shared/report/definition/export-settings';
import type { PlanningSource } from '../../../../../shared/report/dataset/planning-source';
import type { TableRow } from '../../../../../shared/table/table';
import { boardItemsDataset } from '../../../../../shared/report/tables/board-items/board-items';
import { boardItemsInOrder, Lookup, type BoardItemsReadAhead, type BoardMetadata } from '../../../../../shared/report/tables/board-items/board-items-fetch';
import { startSimulator, type RunningSimulator } from '../../../../../simulator/index';

/**
 * The board-items dataset fetches several boards at once (the items operation has no total, so one
 * board's pages can only come one after another) while rows still come out board by board, within
 * a bounded read-ahead, with exactly the requests the API needs.
 */

/**
 * Lets every fetch run until it waits for read-ahead room (or has no more pages): the fake below
 * serves its pages without timers, so everything that can move moves within one turn of the event
 * loop. A consumer that calls this before taking each page is as slow as can be: the read-ahead is
 * full whenever it looks.
 */
const untilFetchesWait = () => new Promise<void>((resolve) => setImmediate(resolve));
const META: BoardMetadata = {
  parentStatuses: new Lookup([]),
  childStatuses: new Lookup([]),
  sprints: new Lookup([]),
  teams: new Lookup([]),
};
const boardsOf = (n: number): Board[] => Array.from({ length: n }, (_, i) => ({ id: `b${i}`, title: `Board ${i}` }));

/** The answer bytes the fake items operation tells for each feature, unless `itemBytes` says otherwise. */
const ITEM_BYTES = 100;

/**
 * A fake items operation: `count(board)` features in pages of `pageSize`, each page's size told as
 * `itemBytes(board)` a feature. Page `n` of a board comes once `gate(board, n)` resolves (by default
 * at once, though never synchronously); `failAt` throws instead of a board's page. Records what it
 * was asked, and `failed` resolves once it has thrown.
 */
function fakeSource(options: {
  count: (boardId: string) => number;
  pageSize: number;
  gate?: (boardId: string, page: number) => Promise<void>;
  failAt?: { board: string; after: number };
  itemBytes?: (boardId: string) => number;
}) {
  let signalFailed: () => void = () => undefined;
  const failed = new Promise<void>((resolve) => (signalFailed = resolve));
  const pulled = new Map<string, number>();
  const started = new Set<string>();
  const finished = new Set<string>();
  let active = 0;
  let allStopped: (() => void) | undefined;
  /** Resolves once every board started so far has stopped (its generator's finally ran). */
  const whenAllStopped = () => (active === 0 ? Promise.resolve() : new Promise<void>((resolve) => (allStopped = resolve)));
  let maxActive = 0;
  const source = {
    async *listBoardItemPages(boardId: string): AsyncGenerator<{ items: BoardItem[]; bytes: number }> {
      active++;
      started.add(boardId);
      maxActive = Math.max(maxActive, active);
      try {
        const n = options.count(boardId);
        for (let first = 0; first < n; first += options.pageSize) {
          await (options.gate?.(boardId, first / options.pageSize) ?? Promise.resolve());
          const items: BoardItem[] = [];
          for (let i = first; i < Math.min(n, first + options.pageSize); i++) {
            if (options.failAt?.board === boardId && i === options.failAt.after) {
              signalFailed();
              throw new Error(`board ${boardId} failed`);
            }
            items.push({ id: `${boardId}-f${i}` });
          }
          pulled.set(boardId, (pulled.get(boardId) ?? 0) + items.length);
          yield { items, bytes: items.length * (options.itemBytes?.(boardId) ?? ITEM_BYTES) };
        }
      } finally {
        active--;
        finished.add(boardId);
        if (active === 0) allStopped?.();
      }
    },
  };
  return {
    source: source as unknown as PlanningSource,
    pulled,
    started,
    finished,
    failed,
    whenAllStopped,
    get maxActive() {
      return maxActive;
    },
  };
}

const LIMITS: BoardItemsReadAhead = { boardsInFlight: 3, bytes: 20 * ITEM_BYTES, currentBoardFeatures: 5 };
/** The features LIMITS lets the boards behind the current one hold, at ITEM_BYTES each. */
const LIMIT_FEATURES = LIMITS.bytes / ITEM_BYTES;

describe('boardItemsInOrder', () => {
  it('hands out every feature once, board by board, while fetching several boards at once', async () => {
    const fake = fakeSource({ count: () => 30, pageSize: 10 });
    const boards = boardsOf(5);
    const seen: string[] = [];
    for await (const { board, items } of boardItemsInOrder(fake.source, () => Promise.resolve(META), boards, {
      boardsInFlight: 3,
      bytes: 1_000 * ITEM_BYTES,
      currentBoardFeatures: 1_000,
    })) {
      for (const item of items) {
        expect(item.id.startsWith(`${board.id}-`)).toBe(true);
        seen.push(item.id);
      }
    }
    expect(seen).toEqual(boards.flatMap((b) => Array.from({ length: 30 }, (_, i) => `${b.id}-f${i}`)));
    expect(fake.maxActive).toBe(3);
  });

  it('holds no more than the read-ahead for the boards behind the current one', async () => {
    const fake = fakeSource({ count: () => 60, pageSize: 4 });
    const boards = boardsOf(4);
    const consumed = new Map<string, number>();
    let maxAhead = 0;
    let maxHeld = 0;
    for await (const { board, items } of boardItemsInOrder(fake.source, () => Promise.resolve(META), boards, LIMITS)) {
      consumed.set(board.id, (consumed.get(board.id) ?? 0) + items.length);
      const index = boards.indexOf(board);
      const ahead = boards.slice(index + 1).reduce((n, b) => n + (fake.pulled.get(b.id) ?? 0), 0);
      const current = (fake.pulled.get(board.id) ?? 0) - (consumed.get(board.id) ?? 0);
      maxAhead = Math.max(maxAhead, ahead);
      maxHeld = Math.max(maxHeld, ahead + current);
      await untilFetchesWait(); // the slowest consumer: the read-ahead fills up before each page
    }
    expect([...consumed.values()]).toEqual([60, 60, 60, 60]);
    // The limit is checked after each page, so each board in flight may be one page (4) past it.
    expect(maxAhead).toBeGreaterThanOrEqual(LIMIT_FEATURES - LIMITS.currentBoardFeatures);
    expect(maxHeld).toBeLessThanOrEqual(LIMIT_FEATURES + LIMITS.currentBoardFeatures + LIMITS.boardsInFlight * 4);
  });

  it('weighs the read-ahead by the answers\' bytes: boards of heavy features hold fewer of them', async () => {
    // b1 and b2 are behind b0 the whole time (the consumer stops within b0, and lets the fetches fill
    // the read-ahead before each page); b1's features weigh 4 times b2's, so within the same bytes b1
    // may hold only a quarter as many.
    const heavy = 4 * ITEM_BYTES;
    const fake = fakeSource({ count: () => 400, pageSize: 4, itemBytes: (b) => (b === 'b1' ? heavy : ITEM_BYTES) });
    const limits: BoardItemsReadAhead = { boardsInFlight: 3, bytes: 40 * ITEM_BYTES, currentBoardFeatures: 4 };
    let heldBehind = 0;
    for await (const { board } of boardItemsInOrder(fake.source, () => Promise.resolve(META), boardsOf(3), limits)) {
      if (board.id !== 'b0') break;
      const bytes = (fake.pulled.get('b1') ?? 0) * heavy + (fake.pulled.get('b2') ?? 0) * ITEM_BYTES;
      heldBehind = Math.max(heldBehind, bytes);
      await untilFetchesWait();
    }
    await fake.whenAllStopped();
    // Each board behind may pass the limit by the one page (4 features) it had when it last looked.
    expect(heldBehind).toBeLessThanOrEqual(limits.bytes + 4 * heavy + 4 * ITEM_BYTES);
    expect(heldBehind).toBeGreaterThanOrEqual(limits.bytes - 4 * heavy);
    expect(fake.pulled.get('b1') ?? 0).toBeLessThan(40);
  });

  it('stops every board when the consumer stops early', async () => {
    const fake = fakeSource({ count: () => 10_000, pageSize: 10 });
    let n = 0;
    for await (const { items } of boardItemsInOrder(fake.source, () => Promise.resolve(META), boardsOf(4), LIMITS)) {
      n += items.length;
      if (n >= 25) break;
    }
    // Waits for the event itself: each board's fetch ends (its generator returns) once it sees the stop.
    await fake.whenAllStopped();
    expect([...fake.started].sort()).toEqual(['b0', 'b1', 'b2']);
    expect([...fake.finished].sort()).toEqual(['b0', 'b1', 'b2']);
    // Stopped within the read-ahead: each fetch takes at most one more page (10 features) after the stop.
    const pulled = [...fake.pulled.values()].reduce((a, b) => a + b, 0);
    expect(pulled).toBeLessThanOrEqual(n + LIMIT_FEATURES + LIMITS.currentBoardFeatures + LIMITS.boardsInFlight * 10);
  });

  it('ends with the failure of a later board without waiting for its turn', async () => {
    // b2 fails once b0's first page has been handed out; b0's next page comes only after that.
    let firstTaken: () => void = () => undefined;
    const taken = new Promise<void>((resolve) => (firstTaken = resolve));
    const fake = fakeSource({
      count: () => 200,
      pageSize: 10,
      failAt: { board: 'b2', after: 5 },
      gate: (board, page) => (board === 'b2' ? taken : board === 'b0' && page > 0 ? fake.failed : Promise.resolve()),
    });
    const boards = boardsOf(4);
    const seen: string[] = [];
    const iterate = async () => {
      for await (const { items } of boardItemsInOrder(fake.source, () => Promise.resolve(META), boards, {
        boardsInFlight: 4,
        bytes: 10_000 * ITEM_BYTES,
        currentBoardFeatures: 10_000,
      })) {
        seen.push(...items.map((item) => item.id));
        firstTaken();
      }
    };
    await expect(iterate()).rejects.toThrow('board b2 failed');
    // Only b0's first page: the failure ended the iteration at b0's next page, long before b2's turn.
    expect(seen).toEqual(Array.from({ length: 10 }, (_, i) => `b0-f${i}`));
  });

  it('reports a board whose metadata fails when that board comes up, after the boards before it', async () => {
    const fake = fakeSource({ count: () => 3, pageSize: 10 });
    const loadMeta = (boardId: string) => (boardId === 'b1' ? Promise.reject(new Error('statuses of b1 failed')) : Promise.resolve(META));
    const seen: string[] = [];
    const iterate = async () => {
      for await (const { items } of boardItemsInOrder(fake.source, loadMeta, boardsOf(3), LIMITS)) seen.push(...items.map((item) => item.id));
    };
    await expect(iterate()).rejects.toThrow('statuses of b1 failed');
    expect(seen).toEqual(['b0-f0', 'b0-f1', 'b0-f2']);
  });

  it('copes with no boards and with empty boards', async () => {
    const none = fakeSource({ count: () => 0, pageSize: 10 });
    const all: string[] = [];
    for await (const { items } of boardItemsInOrder(none.source, () => Promise.resolve(META), [], LIMITS)) all.push(...items.map((item) => item.id));
    for await (const { items } of boardItemsInOrder(none.source, () => Promise.resolve(META), boardsOf(6), LIMITS)) all.push(...items.map((item) => item.id));
    expect(all).toEqual([]);
  });
});

describe('board-items dataset: the field audit of the board metadata', () => {
  it("lists a field a board's statuses, sprints or teams serve and no column holds, and those left out on purpose with why", async () => {
    const fake = fakeSource({ count: () => 1, pageSize: 5 });
    const source = Object.assign(Object.create(fake.source) as PlanningSource, {
      getStatuses: () => Promise.resolve({
        parentStatuses: [{ id: 'st-1', title: 'Active', category: 'InProgress', color: '#0a0' }],
        childrenStatuses: [{ id: 'st-2', title: 'Done', category: 'Done', wipLimit: 3 }],
      }),
      listSprints: () => Promise.resolve([{ id: 'sp-1', title: 'Sprint 1', label: 'S1', goal: 'Ship it' }]),
      listTeams: () => Promise.resolve([{ id: 'tm-1', title: 'Blue', color: '#00f' }]),
    });
    const ctx: DatasetContext = { source, definition: parseReportDefinition({ name: 'items', datasets: { boardItems: {} } }), log: silentLog, clock: systemClock };
    const dataset = boardItemsDataset(ctx, boardsOf(2));
    let rows = 0;
    for await (const { batches } of dataset.tables()) for await (const batch of batches) rows += [...batch].length;
    expect(rows).toBe(2);
    const fields = (dataset.figures().unexportedFields as Record<string, { path: string; records: number; reason?: string }[]>)['board-items']!;
    // Two boards, each serving the same metadata: every record counted once per board.
    expect(fields.map((f) => `${f.path} ${f.records} ${f.reason === undefined ? 'undeclared' : 'declared'}`)).toEqual([
      'sprints[].goal 2 undeclared', 'sprints[].id 2 declared', 'sprints[].label 2 declared',
      'statuses.childrenStatuses[].id 2 declared', 'statuses.childrenStatuses[].wipLimit 2 undeclared',
      'statuses.parentStatuses[].color 2 declared', 'statuses.parentStatuses[].id 2 declared',
      'teams[].color 2 declared', 'teams[].id 2 declared',
    ]);
  });
});

describe('board-items dataset: board page chains in flight', () => {
  const run = async (concurrency: number | undefined) => {
    const fake = fakeSource({ count: () => 40, pageSize: 5 });
    const boards = boardsOf(12);
    const source = Object.assign(Object.create(fake.source) as PlanningSource, {
      concurrency,
      getStatuses: () => Promise.resolve({ parentStatuses: [], childrenStatuses: [] }),
      listSprints: () => Promise.resolve([]),
      listTeams: () => Promise.resolve([]),
    });
    const ctx: DatasetContext = { source, definition: parseReportDefinition({ name: 'items', datasets: { boardItems: {} } }), log: silentLog, clock: systemClock };
    let rows = 0;
    for await (const { batches } of boardItemsDataset(ctx, boards, { boardsInFlight: 2, bytes: 10_000 * ITEM_BYTES, currentBoardFeatures: 1_000 }).tables()) {
      for await (const batch of batches) rows += [...batch].length;
    }
    return { rows, maxActive: fake.maxActive };
  };

  it('runs as many boards at once as the source lets requests be in flight, and no fewer than its read-ahead asks', async () => {
    expect(await run(8)).toEqual({ rows: 12 * 40, maxActive: 8 });
    expect(await run(undefined)).toEqual({ rows: 12 * 40, maxActive: 2 });
  });
});

describe('board-items dataset against the simulator', () => {
  const shape = { boards: 5, itemsPerBoard: 23, storiesPerItem: 2, registers: 1, risksPerRegister: 1, collections: 2 };
  let sim: RunningSimulator;
  let capped: RunningSimulator;

  beforeAll(async () => {
    [sim, capped] = await Promise.all([
      startSimulator({ tenant: shape, seed: 5 }),
      startSimulator({ tenant: shape, seed: 5, maxItemsPageSize: 5 }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([sim.close(), capped.close()]);
  });

  async function exportRows(target: RunningSimulator, readAhead?: BoardItemsReadAhead): Promise<TableRow[]> {
    const ctx: DatasetContext = {
      source: createExportClient(target.credentials(), { settings: resolveExportSettings({ boardItemsPageSize: 7, concurrency: 4 }), log: silentLog, clock: systemClock }),
      definition: parseReportDefinition({ name: 'items', datasets: { boardItems: {} } }),
      log: silentLog,
      clock: systemClock,
    };
    const rows: TableRow[] = [];
    for await (const { batches } of boardItemsDataset(ctx, await ctx.source.listBoards(), readAhead).tables()) for await (const batch of batches) rows.push(...batch);
    return rows;
  }

  const expectedIds = (target: RunningSimulator): string[] =>
    target.tenant.boards.flatMap((b) => target.tenant.boardItems(b.id).flatMap((item) => [item.id, ...(item.stories ?? []).map((s) => s.id)]));

  const requestsByOperation = (target: RunningSimulator): Record<string, number> => {
    const counts: Record<string, number> = {};
    for (const r of target.requests) {
      const op = r.path.split('/').pop()!;
      counts[op] = (counts[op] ?? 0) + 1;
    }
    return counts;
  };

  it('emits features and stories board by board, exactly as the tenant holds them', async () => {
    sim.clearRequests();
    // About ten features of the simulator's (its answers tell their real size).
    const rows = await exportRows(sim, { boardsInFlight: 3, bytes: 10 * 1_000, currentBoardFeatures: 4 });
    expect(rows.map((r) => r.values[3])).toEqual(expectedIds(sim));
    // Board by board: the board id column never goes back to an earlier board.
    const boardOrder = rows.map((r) => sim.tenant.boards.findIndex((b) => b.id === r.values[0]));
    expect(boardOrder.every((b, i) => b >= 0 && (i === 0 || b >= boardOrder[i - 1]!))).toBe(true);
  });

  it('makes exactly the requests the API needs: one boards list, 3 metadata calls and ceil(n/pageSize) + 1 pages per board', async () => {
    sim.clearRequests();
    await exportRows(sim);
    expect(requestsByOperation(sim)).toEqual({ boards: 1, statuses: 5, sprints: 5, teams: 5, items: 5 * (Math.ceil(23 / 7) + 1) });
    expect(sim.requests.every((r) => r.status === 200)).toBe(true);
  });

  it("hands the rows over a batch per answer: a page's features, each followed by its stories", async () => {
    const ctx: DatasetContext = {
      source: createExportClient(sim.credentials(), { settings: resolveExportSettings({ boardItemsPageSize: 7, concurrency: 4 }), log: silentLog, clock: systemClock }),
      definition: parseReportDefinition({ name: 'items', datasets: { boardItems: {} } }),
      log: silentLog,
      clock: systemClock,
    };
    const sizes: number[] = [];
    for await (const { batches } of boardItemsDataset(ctx, await ctx.source.listBoards()).tables()) for await (const batch of batches) sizes.push([...batch].length);
    // 23 features a board in pages of 7 (7, 7, 7 and 2 features), each feature a row and each story another.
    const pageRows = (items: readonly { stories?: readonly unknown[] }[]) => items.reduce((n, item) => n + 1 + (item.stories?.length ?? 0), 0);
    const expected = sim.tenant.boards.flatMap((b) => {
      const items = sim.tenant.boardItems(b.id);
      return [0, 7, 14, 21].map((start) => pageRows(items.slice(start, start + 7)));
    });
    expect(sizes).toEqual(expected);
    expect(sizes.length).toBe(5 * 4);
  });

  it('follows a server that caps the page size: short pages are not the end', async () => {
    capped.clearRequests();
    const rows = await exportRows(capped);
    expect(rows.map((r) => r.values[3])).toEqual(expectedIds(capped));
    expect(requestsByOperation(capped).items).toBe(5 * (Math.ceil(23 / 5) + 1));
  });
});
