/**
 * Retry policy of the planning API client: exponential backoff with full jitter
 * (delay = random() * min(maxDelayMs, baseDelayMs * 2^(attempt - 1))), which spreads the retries of
 * many parallel page requests instead of sending them back in lock-step after a 429.
 *
 * The loop is the exporter's one (core/retry/retry.ts), run by requester.ts, which releases its concurrency
 * slot before sleeping; this module holds how long to wait, so it can be tested without a server. Which failures
 * are retried at all, and how Retry-After is read, is the exporter's one retry policy
 * (core/retry/retry-policy.ts).
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
