/**
 * The one retry loop of the exporter and its one sleep. The planning API client and the webhook
 * poster both run their attempts through `retrying`: it counts the attempts, keeps every wait
 * inside the deadline and sleeps between them. What is retried is the caller's business (it reads
 * the one retry policy, core/retry/retry-policy.ts) and so is how long to wait (a backoff, or the
 * server's Retry-After), since the two callers wait on different scales.
 */

/** Waits `ms`; tests pass one that records the waits (or moves their clock) instead. */
export type Sleep = (ms: number) => Promise<void>;

/** The real wait, on a timer. */
export const timerSleep: Sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** An attempt that failed and may be tried again after `delayMs`. */
export interface Again {
  readonly delayMs: number;
  /** Thrown when the wait would end past the deadline: the next attempt could not finish. */
  readonly late: () => Error;
  /** Called just before the wait (a log line), not when the deadline stops the retry. */
  readonly beforeWait?: () => void;
}

/** What one attempt did: its value, or the wait before the next one. A failure that ends the call is thrown. */
export type Tried<T> = { readonly value: T } | { readonly again: Again };

export interface RetryingOptions {
  /** Attempts in total, the first one included. */
  readonly attempts: number;
  readonly sleep: Sleep;
  /** Milliseconds left before the deadline; Infinity without one. */
  readonly remainingMs: () => number;
}

/**
 * Runs `attempt` (numbered from 1; `last` is true for the final one, which must not ask for
 * another) until it gives a value or throws. No wait starts that would end at or past the deadline.
 */
export async function retrying<T>(attempt: (n: number, last: boolean) => Promise<Tried<T>>, options: RetryingOptions): Promise<T> {
  for (let n = 1; ; n += 1) {
    const tried = await attempt(n, n >= options.attempts);
    if ('value' in tried) return tried.value;
    const { delayMs, late, beforeWait } = tried.again;
    if (delayMs >= options.remainingMs()) throw late();
    beforeWait?.();
    await options.sleep(delayMs);
  }
}
