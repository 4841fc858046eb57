import type { Clock } from '../core/clock';
import type { Sleep } from '../core/retry';
import { DEFAULT_API_TIMEOUT_MS, DEFAULT_MAX_LIST_BYTES, DEFAULT_MAX_LIST_PAGES, DEFAULT_MAX_RESPONSE_BYTES } from '../core/defaults';
import type { Log } from '../core/logger';
import type { ConcurrencyLimiter } from './transport/concurrency';
import type { Credentials } from './credentials';
import type { RequestEvent } from './transport/requester';
import type { RetryOptions } from './transport/retry';

/**
 * What a PlanningApiClient is built from, and the checks of its sizes: apart from the client's
 * operations so that client.ts reads as the list of them.
 */

/** The API's maximum (and default) v1 page size. */
export const MAX_PAGE_LIMIT = 50;
/**
 * The PI Board Items `items` operation's own page size: what a client asks for when it was given no
 * boardItemsPageSize (the command line's probes, the tests), and what it falls back to when a server
 * refuses a larger one. An export's size is DEFAULT_BOARD_ITEMS_PAGE_SIZE of its settings.
 */
export const API_BOARD_ITEMS_PAGE_SIZE = 50;

export interface PlanningApiClientOptions {
  credentials: Credentials;
  /** Defaults to the global fetch. */
  fetch?: typeof fetch | undefined;
  /** One limiter for the whole export; defaults to a private one of DEFAULT_API_CONCURRENCY slots. */
  limiter?: ConcurrencyLimiter;
  log?: Log;
  /** Time limit of each attempt (headers and body). Default 30 000 ms. */
  timeoutMs?: number | undefined;
  /** Largest response body read, in bytes; enforced while it streams in. Default 64 MiB. */
  maxResponseBytes?: number | undefined;
  /** Pages with records one list (one operation on one register, board or theme) may take. Default 10,000. */
  maxListPages?: number | undefined;
  /** Bytes of answers one list may take. Default 512 MiB. */
  maxListBytes?: number | undefined;
  /**
   * Overall deadline, in ms on the `now` clock (epoch ms by default): no request, retry or backoff
   * goes past it; a request then fails with DeadlineExceededError. Default: none.
   */
  deadline?: number | undefined;
  retry?: Partial<RetryOptions>;
  /** v1 page size, 1 to 50. Default 50. */
  pageLimit?: number;
  /**
   * Board items asked for per request when a listBoardItems call does not say. Default 50 (the API's
   * default). The API documents no maximum: a server that caps the size silently just sends shorter
   * pages, which are followed (only an empty page ends a list), and one that refuses a size above 50
   * with 400 makes the client fall back to 50 for the rest of its life (one extra request for each
   * board whose page was already on its way).
   */
  boardItemsPageSize?: number;
  /** Injected for tests: the signal that ends an attempt after timeoutMs (default AbortSignal.timeout). */
  timeoutSignal?: (ms: number) => AbortSignal;
  /** Injected for tests: backoff sleep, jitter source and clock (Retry-After dates). */
  sleep?: Sleep;
  random?: () => number;
  /** The door's clock: the deadline and Retry-After are times on it. */
  now: Clock;
  /** Metrics hook, called once per attempt. Errors thrown by it are logged and ignored. */
  onRequest?: ((event: RequestEvent) => void) | undefined;
}

/**
 * The client's sizes and time limit, defaults filled in. A door resolves them once (an export's
 * settings, shared/report/definition/export-settings.ts); here they are only asserted to be of that
 * parsed type, so a hand-built client fails at once: a RangeError names the first bad one.
 */
export function checkedSizes(options: PlanningApiClientOptions): {
  timeoutMs: number;
  pageLimit: number;
  boardItemsPageSize: number;
  maxResponseBytes: number;
  maxListPages: number;
  maxListBytes: number;
} {
  const sizes = {
    timeoutMs: options.timeoutMs ?? DEFAULT_API_TIMEOUT_MS,
    pageLimit: options.pageLimit ?? MAX_PAGE_LIMIT,
    boardItemsPageSize: options.boardItemsPageSize ?? API_BOARD_ITEMS_PAGE_SIZE,
    maxResponseBytes: options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
    maxListPages: options.maxListPages ?? DEFAULT_MAX_LIST_PAGES,
    maxListBytes: options.maxListBytes ?? DEFAULT_MAX_LIST_BYTES,
  };
  if (!Number.isFinite(sizes.timeoutMs) || sizes.timeoutMs <= 0) {
    throw new RangeError(`timeoutMs must be a positive number, got ${String(sizes.timeoutMs)}`);
  }
  if (!Number.isInteger(sizes.pageLimit) || sizes.pageLimit < 1 || sizes.pageLimit > MAX_PAGE_LIMIT) {
    throw new RangeError(`pageLimit must be an integer from 1 to ${MAX_PAGE_LIMIT}, got ${String(sizes.pageLimit)}`);
  }
  for (const name of ['boardItemsPageSize', 'maxResponseBytes', 'maxListPages', 'maxListBytes'] as const) {
    const value = sizes[name];
    if (!Number.isInteger(value) || value < 1) throw new RangeError(`${name} must be a positive integer, got ${String(value)}`);
  }
  return sizes;
}
