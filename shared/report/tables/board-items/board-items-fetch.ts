/**
 * How the board-items dataset fetches: the fields it asks for, each board's metadata (statuses,
 * sprints, teams) and the bounded read-ahead that fetches several boards at once while handing their
 * features out board by board. The table itself (columns, rows, the dataset) is ./board-items.ts.
 */
import type { BoardItemsPage } from '../../../planning-api/client';
import type { Board, BoardItem, BoardStatus, Sprint, Team } from '../../../planning-api/schemas';
import type { DatasetContext } from '../../dataset/dataset';

/**
 * The fields asked for explicitly: with a `fields` list the server returns only those (plus id),
 * and the default set for features is not documented, so relying on it could drop a column's data.
 */
export const BOARD_ITEM_FIELDS = [
  'summary', 'externalKey', 'externalUrl', 'itemType', 'cardType', 'status', 'teamsAndSprints', 'estimates',
  'completionByStatus', 'completionByEstimate', 'createdOn', 'createdBy', 'updatedOn', 'updatedBy',
  'iterationPath', 'areaPath', 'extCId', 'children', 'azureId', 'kendisId',
] as const;

/** Looks a reference up by id first, then by title: the items operation may send either. */
export class Lookup<T extends { id: string; title?: string | null | undefined }> {
  private readonly byId = new Map<string, T>();
  private readonly byTitle = new Map<string, T>();
  /** The records as served: the field audit walks them (board-items-audit.ts). */
  readonly records: readonly T[];
  constructor(records: readonly T[]) {
    this.records = records;
    for (const r of records) {
      this.byId.set(r.id, r);
      if (r.title) this.byTitle.set(r.title, r);
    }
  }
  find(ref: string | null | undefined): T | undefined {
    if (!ref) return undefined;
    return this.byId.get(ref) ?? this.byTitle.get(ref);
  }
  title(ref: string | null | undefined): string | null {
    if (!ref) return null;
    return this.find(ref)?.title ?? ref;
  }
}

export interface BoardMetadata {
  readonly parentStatuses: Lookup<BoardStatus>;
  readonly childStatuses: Lookup<BoardStatus>;
  readonly sprints: Lookup<Sprint>;
  readonly teams: Lookup<Team>;
}

/** One board's statuses, sprints and teams, fetched at once. */
export async function loadBoardMetadata(ctx: DatasetContext, boardId: string): Promise<BoardMetadata> {
  const [statuses, sprints, teams] = await Promise.all([
    ctx.source.getStatuses(boardId),
    ctx.source.listSprints(boardId),
    ctx.source.listTeams(boardId),
  ]);
  return {
    parentStatuses: new Lookup(statuses.parentStatuses ?? []),
    childStatuses: new Lookup(statuses.childrenStatuses ?? []),
    sprints: new Lookup(sprints),
    teams: new Lookup(teams),
  };
}

/**
 * How far the board-items dataset reads ahead. The items operation reports no total, so the pages of
 * one board can only be requested one after the other; several boards are therefore fetched at once
 * (through the export's shared limiter), while rows still come out board by board.
 */
export interface BoardItemsReadAhead {
  /**
   * Boards whose metadata and items are fetched at the same time, the one being emitted included:
   * at least this many, and as many as the source lets requests be in flight (its `concurrency`).
   * Under the service's 50-item cap a board is a chain of page requests one after the other, so the
   * chains in flight, not the limiter, set the pace unless there are as many as the limiter allows.
   */
  readonly boardsInFlight: number;
  /**
   * Bytes of answers behind the features fetched and not yet emitted, all boards together, above
   * which only the board being emitted goes on fetching. A parsed feature takes about twice its
   * answer's bytes in memory (measured: 1.2 KB of JSON, 2.3 KB parsed, for a feature with three
   * stories and every field the table reads). Bytes, not a feature count: a board of features with
   * twenty stories each weighs ten times one without stories. Each board in flight may also hold the
   * page it is reading and the one it has already asked for.
   */
  readonly bytes: number;
  /** Features the board being emitted fetches ahead of the consumer (it is never held back by the others). */
  readonly currentBoardFeatures: number;
}

export const BOARD_ITEMS_READ_AHEAD: BoardItemsReadAhead = {
  boardsInFlight: 4,
  // Boards are emitted in order, so at full pace (every chain busy, the consumer keeping up) the c
  // boards behind the current one hold (c-1)/c + (c-2)/c + ... of a board each: 3.5 boards at a
  // concurrency of 8. 64 MiB (~130 MB of heap) keeps 8 chains busy on boards of 16,000 features with
  // three stories; the 10,000-feature bound it replaces stalled them past 2,800 features a board.
  bytes: 64 * 2 ** 20,
  currentBoardFeatures: 1_000,
};

/** Wakes everything that waits on it. */
class Signal {
  #waiters: (() => void)[] = [];
  wait(): Promise<void> {
    return new Promise((resolve) => this.#waiters.push(resolve));
  }
  notify(): void {
    if (this.#waiters.length === 0) return;
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const resolve of waiters) resolve();
  }
}

interface BoardFetch {
  readonly index: number;
  readonly meta: Promise<BoardMetadata>;
  /** Pages fetched and not yet handed out: pages[head..]. */
  pages: (BoardItemsPage | undefined)[];
  head: number;
  /** Features in pages[head..]. */
  features: number;
  done: boolean;
  readonly arrived: Signal;
}

/**
 * The features of `boards`, board after board, a page at a time, each with its board's metadata.
 * Up to `boardsInFlight` boards are fetched at once: the one being handed out fetches up to
 * `currentBoardFeatures` ahead of the consumer, the others go on while the answers of what is held
 * come to less than `bytes` in all, so memory stays bounded however large the boards are. Every
 * board's pages are requested exactly once, in order. A failure of any board's items ends the
 * iteration at once (a later board's failure need not wait for its turn); a board's metadata
 * failure surfaces when that board comes up. An early `return()` stops every board's paging.
 * Pages, not features, are handed over: the consumer pays one await per answer, not per feature.
 */
export async function* boardItemsInOrder(
  source: DatasetContext['source'],
  loadMeta: (boardId: string) => Promise<BoardMetadata>,
  boards: readonly Board[],
  limits: BoardItemsReadAhead = BOARD_ITEMS_READ_AHEAD,
): AsyncGenerator<BoardItemsOf, void, undefined> {
  const inFlight = Math.max(1, limits.boardsInFlight);
  const currentLimit = Math.max(1, limits.currentBoardFeatures);
  const fetches: BoardFetch[] = [];
  /** Read-ahead room was freed, the current board changed, or the iteration stopped. */
  const room = new Signal();
  let current = 0;
  /** Bytes of the pages fetched and not yet handed out, all boards together. */
  let held = 0;
  let stopped = false;
  let failure: { error: unknown } | undefined;

  const mayContinue = (f: BoardFetch): boolean => (f.index === current ? f.features < currentLimit : held < limits.bytes);

  const pump = async (f: BoardFetch): Promise<void> => {
    try {
      for await (const page of source.listBoardItemPages(boards[f.index]!.id, { fields: BOARD_ITEM_FIELDS })) {
        f.pages.push(page);
        f.features += page.items.length;
        held += page.bytes;
        f.arrived.notify();
        while (!stopped && !mayContinue(f)) await room.wait();
        if (stopped) break;
      }
    } catch (error) {
      failure ??= { error };
    } finally {
      f.done = true;
      f.arrived.notify();
    }
  };

  const start = (index: number): void => {
    const meta = loadMeta(boards[index]!.id);
    // Observed when the board's turn comes; until then a failure must not be an unhandled rejection.
    meta.catch(() => undefined);
    const f: BoardFetch = { index, meta, pages: [], head: 0, features: 0, done: false, arrived: new Signal() };
    fetches.push(f);
    void pump(f);
  };

  /** Takes the next page of `f` off the read-ahead, waking a fetch that waits for the room it frees. */
  const take = (f: BoardFetch): BoardItemsPage => {
    const page = f.pages[f.head]!;
    f.pages[f.head++] = undefined;
    if (f.head >= 256 && f.head * 2 >= f.pages.length) {
      f.pages = f.pages.slice(f.head);
      f.head = 0;
    }
    const wasFull = held >= limits.bytes;
    const wasAtLimit = f.features >= currentLimit;
    held -= page.bytes;
    f.features -= page.items.length;
    if ((wasFull && held < limits.bytes) || (wasAtLimit && f.features < currentLimit)) room.notify();
    return page;
  };

  try {
    for (let index = 0; index < boards.length; index++) {
      current = index;
      while (fetches.length < Math.min(boards.length, index + inFlight)) start(fetches.length);
      const f = fetches[index]!;
      // This board is no longer held back by the read-ahead limit.
      room.notify();
      const board = boards[index]!;
      const meta = await f.meta;
      for (;;) {
        if (failure) throw failure.error;
        if (f.head < f.pages.length) {
          yield { board, meta, items: take(f).items };
          continue;
        }
        if (f.done) break;
        await f.arrived.wait();
      }
      f.pages = [];
    }
  } finally {
    stopped = true;
    room.notify();
  }
}

/** A page of one board's features, with the board and its metadata. */
export type BoardItemsOf = { board: Board; meta: BoardMetadata; items: readonly BoardItem[] };

/** `first` (already asked for) followed by the rest of `rest`. */
export async function* prepend<T>(first: Promise<IteratorResult<T, void>>, rest: AsyncGenerator<T, void, undefined>): AsyncGenerator<T, void, undefined> {
  try {
    const head = await first;
    if (head.done) return;
    yield head.value;
    yield* rest;
  } finally {
    await rest.return(undefined);
  }
}

