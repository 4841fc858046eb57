/**
 * Retry policy of the planning API client: exponential backoff with full jitter
 * (delay = random() * min(maxDelayMs, baseDelayMs * 2^(attempt - 1))), which spreads the retries of
 * many parallel page requests instead of sending them back in lock-step after a 429.
 *
 * The loop itself lives in client.ts because it must release its concurrency slot before sleeping;
 * this module holds the decisions so they can be tested without a server.
 */

export interface RetryOptions {
  /** Attempts in total, the first one included. Default 5. */
  maxAttempts: number;
  /** Upper bound of the first backoff. Default 200 ms. */
  baseDelayMs: number;
  /** Cap of any wait, a server's Retry-After included. Default 20 000 ms. */
  maxDelayMs: number;
}

export const DEFAULT_RETRY: Readonly<RetryOptions> = { maxAttempts: 5, baseDelayMs: 200, maxDelayMs: 20_000 };

export function resolveRetryOptions(partial: Partial<RetryOptions> | undefined): RetryOptions {
  const options = { ...DEFAULT_RETRY, ...partial };
  if (!Number.isInteger(options.maxAttempts) || options.maxAttempts < 1) {
    throw new RangeError(`retry.maxAttempts must be a positive integer, got ${String(options.maxAttempts)}`);
  }
  for (const key of ['baseDelayMs', 'maxDelayMs'] as const) {
    if (!Number.isFinite(options[key]) || options[key] < 0) {
      throw new RangeError(`retry.${key} must be a non-negative number, got ${String(options[key])}`);
    }
  }
  return options;
}

/**
 * Statuses worth another attempt: throttling (429) and server failures that are usually transient
 * (500, 502, 503, 504). 500 is included because every operation is a read, so repeating it is safe,
 * and one passing server hiccup among the thousands of requests of a large export should not fail
 * the whole run; a 500 that persists still fails after maxAttempts. 501 and 505 are permanent, and
 * 4xx are the caller's fault: neither is retried.
 */
const RETRYABLE_STATUSES = new Set([429, 500, 502, 503, 504]);

export function isRetryableStatus(status: number): boolean {
  return RETRYABLE_STATUSES.has(status);
}

/**
 * Parses a Retry-After header into milliseconds to wait: either delay-seconds (`0` means retry now)
 * or an HTTP-date (a date in the past also means now). Returns undefined for a missing or unreadable
 * value, in which case the caller falls back to its own backoff.
 */
export function parseRetryAfter(value: string | null | undefined, nowMs: number = Date.now()): number | undefined {
  if (value === null || value === undefined) return undefined;
  const trimmed = value.trim();
  if (trimmed === '') return undefined;
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  // Only accept something that looks like a date, so that "-5" or "soon" do not parse by accident.
  if (!/[A-Za-z]/.test(trimmed)) return undefined;
  const at = Date.parse(trimmed);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - nowMs);
}

/** Full-jitter backoff after the failed attempt number `attempt` (1-based). */
export function backoffDelay(attempt: number, options: RetryOptions, random: () => number = Math.random): number {
  const ceiling = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** Math.max(0, attempt - 1));
  return Math.floor(random() * ceiling);
}

/**
 * How long to wait before the next attempt: the server's Retry-After when it sent one (capped, so a
 * server asking for an hour cannot stall a Lambda), otherwise the jittered backoff.
 */
export function retryDelay(
  attempt: number,
  retryAfterMs: number | undefined,
  options: RetryOptions,
  random: () => number = Math.random,
): number {
  if (retryAfterMs !== undefined) return Math.min(retryAfterMs, options.maxDelayMs);
  return backoffDelay(attempt, options, random);
}

/** Default sleep; tests inject a recording one. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
