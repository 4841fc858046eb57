import { PlanningApiError } from '../core/errors';
import { formatBytes } from '../core/format-bytes';
import type { Log } from '../core/logger';

/**
 * The two paging styles of the API, as async iterators that yield records in server order while
 * only a bounded number of pages is held in memory.
 *
 * v1 (Risk, Strategic Themes & OKRs): `startAt`/`pageLimit` with a `total`. The first page tells the
 * total and the page size the server really uses; the remaining pages are then requested in parallel
 * (through the shared limiter, by the caller's fetchPage), at most `window` pages ahead of the
 * consumer.
 *
 * Legacy offset paging (PI Board Items `items`): `pageStart`/`pageSize`, no total. A short page is
 * not the end (a server may cap the page size silently); only an empty page is. Pages are requested
 * one after the other, the next one while the consumer works through the current one, and handed
 * over whole: a board of 20,000 features costs its consumer 400 awaits, not 20,000.
 */

export interface Page<T> {
  records: T[];
  /** The list's total as reported by the server; undefined when the response has none. */
  total: number | undefined;
  /** Bytes of the answer (the list's byte bound counts them). */
  bytes: number;
}

/**
 * How far one list (one operation on one register, board or theme) may go before it is taken for
 * endless. A server whose list never ends (no empty page, a total that keeps growing or is huge) is
 * not caught by the repeated-page check when every page is new; without a bound it made memory and
 * output grow until the process died, and with no overall deadline (the command line without
 * `--timeout`) that took as long as memory lasted.
 */
export interface ListLimits {
  /** Pages with records one list may take. */
  readonly maxPages: number;
  /** Bytes of answers one list may take, the empty page that ends it included. */
  readonly maxBytes: number;
  /** What is listed, for the error: `risk register "r-1"`. */
  readonly subject?: string | undefined;
}

/** Counts a list's pages and bytes as they arrive; throws once either passes its bound. */
function listBudget(operation: string, limits: ListLimits): (records: number, bytes: number) => void {
  let pages = 0;
  let bytes = 0;
  return (records, answered) => {
    if (records > 0) pages += 1;
    bytes += answered;
    if (pages > limits.maxPages || bytes > limits.maxBytes) throw endlessListError(operation, limits, pages, bytes);
  };
}

function endlessListError(operation: string, limits: ListLimits, pages: number, bytes: number): PlanningApiError {
  const of = limits.subject === undefined ? '' : ` of ${limits.subject}`;
  const bound =
    pages > limits.maxPages
      ? `${limits.maxPages.toLocaleString('en-US')} pages (API_MAX_LIST_PAGES)`
      : `${formatBytes(limits.maxBytes)} (API_MAX_LIST_BYTES)`;
  return new PlanningApiError(
    `${operation}: the list${of} went on past ${bound}, the bound of one list; stopped after ${pages.toLocaleString('en-US')} pages ` +
      `and ${formatBytes(bytes)}. The server may be sending a list without end. Narrow the report's selectors (fewer registers, ` +
      'boards or themes), or raise the bound (API_MAX_LIST_PAGES, API_MAX_LIST_BYTES: the export settings maxListPages, maxListBytes)',
    // The same request pages on just as far again.
    { operation, retryable: false },
  );
}

export interface V1PagingOptions<T> {
  fetchPage: (startAt: number, pageLimit: number) => Promise<Page<T>>;
  /** Page size to ask for (the API's maximum is 50). */
  pageLimit: number;
  /** Pages fetched ahead of the consumer at most (the limiter still bounds what is in flight). */
  window: number;
  operation: string;
  log: Log;
  idOf: (record: T) => string;
  limits: ListLimits;
}

/** The options' fetchPage with each answer counted against the list's bounds. */
function countedFetch<T>(options: V1PagingOptions<T>): (startAt: number, size: number) => Promise<Page<T>> {
  const take = listBudget(options.operation, options.limits);
  return async (startAt, size) => {
    const page = await options.fetchPage(startAt, size);
    take(page.records.length, page.bytes);
    return page;
  };
}

export async function* pageV1<T>(options: V1PagingOptions<T>): AsyncGenerator<T, void, undefined> {
  const { pageLimit, operation, log, idOf } = options;
  const fetchPage = countedFetch(options);
  const first = await fetchPage(0, pageLimit);
  const received = first.records.length;
  const total = first.total;
  if (received === 0) return;
  if (total === undefined) {
    // No total to plan with: walk on sequentially until an empty page (counted here, not again there).
    for await (const page of walkSequentially({
      fetchPage: (start, size) => fetchPage(start, size).then((page) => page.records),
      pageSize: pageLimit,
      startAt: received,
      previous: first.records,
      leading: first.records,
      operation,
      recordsOf: (records: readonly T[]) => records,
      idOf,
      names: ['startAt', 'pageLimit'],
      take: () => undefined,
    })) yield* page;
    return;
  }
  if (received >= total) {
    yield* first.records;
    return;
  }

  // The server's real page size: it may silently return fewer records than asked (or, ignoring the
  // limit, more). Offsets follow what it returned, so no record is skipped or repeated.
  const step = received;
  const requestSize = Math.min(step, pageLimit);
  const window = Math.max(1, options.window);

  interface Range {
    startAt: number;
    records: T[];
    /** The server ran out of records before the range was full. */
    exhausted: boolean;
  }

  // Pages seen so far by their ids, with the offset they were asked for. A v1 server that ignores
  // startAt answers every offset with the first page: without this check the list would come out
  // with the first page repeated (120 rows, 50 of them unique) and nobody would notice.
  const seen = new Map<string, number>([[pageSignature(first.records, idOf), 0]]);
  const checkRepeat = (offset: number, records: T[]): void => {
    const signature = pageSignature(records, idOf);
    const earlier = seen.get(signature);
    if (earlier !== undefined && earlier !== offset) throw repeatedPageError(operation, 'startAt', offset, earlier);
    seen.set(signature, offset);
  };

  const fetchRange = async (startAt: number, expected: number): Promise<Range> => {
    const records: T[] = [];
    while (records.length < expected) {
      const offset = startAt + records.length;
      const page = await fetchPage(offset, requestSize);
      if (page.records.length === 0) return { startAt, records, exhausted: true };
      checkRepeat(offset, page.records);
      // A page shorter than planned is completed by asking for the rest; a longer one is cut, as the
      // rest belongs to the next range.
      records.push(...page.records.slice(0, expected - records.length));
    }
    return { startAt, records, exhausted: false };
  };

  let nextStart = received;
  const ahead: Promise<Range>[] = [];
  const startNext = (): void => {
    if (nextStart >= total) return;
    const range = fetchRange(nextStart, Math.min(step, total - nextStart));
    // Rejections are observed when the range is awaited; this only keeps a range that is never awaited
    // (the consumer stopped early) from becoming an unhandled rejection.
    range.catch(() => undefined);
    ahead.push(range);
    nextStart += step;
  };
  // Start reading ahead before handing out the first page, so the network works while the consumer does.
  while (ahead.length < window && nextStart < total) startNext();
  yield* first.records;

  let yielded = received;
  for (let range = ahead.shift(); range !== undefined; range = ahead.shift()) {
    const { startAt, records, exhausted } = await range;
    startNext();
    yield* records;
    yielded += records.length;
    if (exhausted) {
      // The list shrank while it was read, or the server's total is wrong. Stop rather than ask on.
      log.warn('planning API list ended before its reported total', {
        operation,
        total,
        received: yielded,
        emptyAt: startAt + records.length,
      });
      return;
    }
  }
}

export interface OffsetPagingOptions<T, P> {
  fetchPage: (pageStart: number, pageSize: number) => Promise<P>;
  pageSize: number;
  operation: string;
  /** The records of a page (a page may carry more than its records, e.g. its size in bytes). */
  recordsOf: (page: P) => readonly T[];
  /** Bytes of a page's answer. */
  bytesOf: (page: P) => number;
  idOf: (record: T) => string;
  limits: ListLimits;
}

/** The pages of an offset-paged list, each handed over whole, in order; the empty page that ends it is not. */
export function pageOffset<T, P>(options: OffsetPagingOptions<T, P>): AsyncGenerator<P, void, undefined> {
  return walkSequentially({
    fetchPage: options.fetchPage,
    pageSize: options.pageSize,
    startAt: 0,
    previous: [],
    leading: undefined,
    operation: options.operation,
    recordsOf: options.recordsOf,
    idOf: options.idOf,
    names: ['pageStart', 'pageSize'],
    take: (() => {
      const take = listBudget(options.operation, options.limits);
      return (page: P) => take(options.recordsOf(page).length, options.bytesOf(page));
    })(),
  });
}

/**
 * Pages from `startAt` until an empty page, advancing by the number of records actually returned.
 * Guard: a server that ignores the offset would return the same page forever; two consecutive pages
 * with the same ids stop the walk with an error instead of an endless loop.
 */
async function* walkSequentially<T, P>(options: {
  fetchPage: (start: number, size: number) => Promise<P>;
  pageSize: number;
  startAt: number;
  previous: readonly T[];
  /** A page already fetched, handed out once the next request is on its way. */
  leading: P | undefined;
  operation: string;
  recordsOf: (page: P) => readonly T[];
  idOf: (record: T) => string;
  names: [offset: string, size: string];
  /** Counts each page against the list's bounds (throws past them). */
  take: (page: P) => void;
}): AsyncGenerator<P, void, undefined> {
  const { fetchPage, pageSize, operation, recordsOf, idOf, names } = options;
  let start = options.startAt;
  let previous = options.previous;
  let previousStart = 0;
  let pending = fetchPage(start, pageSize);
  if (options.leading !== undefined) {
    pending.catch(() => undefined);
    yield options.leading;
  }
  for (;;) {
    const page = await pending;
    options.take(page);
    const records = recordsOf(page);
    if (records.length === 0) return;
    if (samePage(previous, records, idOf)) throw repeatedPageError(operation, names[0], start, previousStart);
    previousStart = start;
    start += records.length;
    previous = records;
    // Ask for the next page before handing out this one, so the network works while the consumer does.
    pending = fetchPage(start, pageSize);
    pending.catch(() => undefined);
    yield page;
  }
}

function repeatedPageError(operation: string, offsetName: string, offset: number, earlier: number): PlanningApiError {
  return new PlanningApiError(
    `${operation}: the server returned the same page for ${offsetName}=${offset} as for ${offsetName}=${earlier}; ` +
      `it seems to ignore ${offsetName}, so paging stopped instead of returning duplicate rows`,
    // The server answers the same way again.
    { operation, retryable: false },
  );
}

/** The ids of a page, in order: equal signatures mean the same page. */
function pageSignature<T>(records: readonly T[], idOf: (record: T) => string): string {
  return records.map(idOf).join('\u0000');
}

function samePage<T>(a: readonly T[], b: readonly T[], idOf: (record: T) => string): boolean {
  if (a.length === 0 || a.length !== b.length) return false;
  return a.every((record, i) => idOf(record) === idOf(b[i] as T));
}
