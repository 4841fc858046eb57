import { errorMessage } from '../../shared/core/errors';
import { timerSleep, type Sleep } from '../../shared/core/retry/retry';

/**
 * A stand-in of Lambda's asynchronous invocation as a fleet meets it
 * (https://docs.aws.amazon.com/lambda/latest/dg/invocation-async-error-handling.html): every event is
 * queued at the same instant; an event that finds the account's `concurrency` taken is throttled and
 * tried again after a backoff that starts at 1 s and doubles up to 5 minutes, until the event is older
 * than its maximum age (6 hours, the stack's `maxEventAge`), when it goes to the on-failure destination
 * (counted `expired`); a function error is retried twice, one minute before the first retry and two before
 * the second, then the event goes to the on-failure destination too (counted `failed`).
 *
 * AWS does not publish whether its backoff is jittered. Here it has full jitter (a delay drawn between 0 and
 * the doubled step): without it every event throttled at the instant retries at the same moments
 * (1, 3, 7, 15 s …, then every 5 minutes), ten get in at each on a cap of 10, and 500 reports take
 * hours, which is not what Lambda does. A slot freed between two retries stays idle until an event's
 * next try, as in Lambda: the fleet is not handed over from a queue of ours.
 *
 * Time is the caller's: `now` and `sleep` (the bench: the wall clock and timers, since the runs are
 * real; the tests: fake timers, so 6 hours of backoff pass in no time).
 */
export interface AsyncInvocationOptions {
  readonly now?: () => number;
  readonly sleep?: Sleep;
  /** A number in [0, 1), for the jitter; tests fix it. */
  readonly random?: () => number;
  /** The first throttle backoff, ms (Lambda: 1 s). */
  readonly firstBackoffMs?: number;
  /** The longest throttle backoff, ms (Lambda: 5 minutes). */
  readonly maxBackoffMs?: number;
  /** An event older than this is not tried again (the stack's maxEventAge: 6 hours). */
  readonly maxEventAgeMs?: number;
  /** The waits before a function error's two retries (Lambda: 1 and 2 minutes). */
  readonly errorRetryDelaysMs?: readonly number[];
}

export interface InvocationStats {
  /** Function errors retried. */
  readonly retried: number;
  /** Events given up after a function error and its two retries. */
  readonly failed: number;
  /** Tries that found the cap taken (one event may be throttled many times). */
  readonly throttles: number;
  /** Events dropped for age, never run to the end. */
  readonly expired: number;
  /** Every function error, in the order they happened: the event (as a string), which of its tries it ended, when (ms after the instant) and why (errorChain). */
  readonly failures: readonly InvocationFailure[];
}

export interface InvocationFailure {
  readonly event: string;
  readonly attempt: number;
  readonly atMs: number;
  readonly error: string;
}

/**
 * An error and its causes, `Name: message` each, joined by ` ← ` (a run's RetryableExportError says
 * little; its cause says what failed). URLs are cut to their origin: a webhook's path is its secret.
 */
export function errorChain(error: unknown): string {
  const links: string[] = [];
  for (let e: unknown = error, depth = 0; e !== undefined && depth < 5; depth++) {
    links.push(e instanceof Error ? `${e.name}: ${errorMessage(e)}` : errorMessage(e));
    e = e instanceof Error ? e.cause : undefined;
  }
  return links.join(' ← ').replace(/(https?:\/\/[^/\s"']+)\/[^\s"']*/g, '$1/…');
}

export const LAMBDA_ASYNC = {
  firstBackoffMs: 1_000,
  maxBackoffMs: 5 * 60_000,
  maxEventAgeMs: 6 * 3_600_000,
  errorRetryDelaysMs: [60_000, 120_000],
} as const;

/** The wait before the next try of an event throttled `throttled` times already (0 for the first). */
export function throttleBackoffMs(throttled: number, random: number, first: number = LAMBDA_ASYNC.firstBackoffMs, max: number = LAMBDA_ASYNC.maxBackoffMs): number {
  // 2 ** 20 already passes any cap; a larger exponent only risks Infinity.
  const step = Math.min(max, first * 2 ** Math.min(throttled, 20));
  return Math.round(step * random);
}

export async function asyncInvocations<E>(
  events: readonly E[],
  concurrency: number,
  handler: (event: E) => Promise<void>,
  options: AsyncInvocationOptions = {},
): Promise<InvocationStats> {
  const now = options.now ?? (() => Date.now());
  const sleep = options.sleep ?? timerSleep;
  const random = options.random ?? Math.random;
  const maxAge = options.maxEventAgeMs ?? LAMBDA_ASYNC.maxEventAgeMs;
  const errorDelays = options.errorRetryDelaysMs ?? LAMBDA_ASYNC.errorRetryDelaysMs;
  const queuedAt = now();
  let running = 0;
  const stats = { retried: 0, failed: 0, throttles: 0, expired: 0, failures: [] as InvocationFailure[] };

  /** Waits for a slot the Lambda way; false when the event aged out first. */
  const slot = async (): Promise<boolean> => {
    for (let throttled = 0; running >= concurrency; throttled++) {
      stats.throttles += 1;
      const delay = throttleBackoffMs(throttled, random(), options.firstBackoffMs, options.maxBackoffMs);
      if (now() + delay - queuedAt > maxAge) return false;
      await sleep(delay);
    }
    running += 1;
    return true;
  };

  const deliver = async (event: E): Promise<void> => {
    for (let attempt = 1; ; attempt++) {
      if (!(await slot())) {
        stats.expired += 1;
        return;
      }
      try {
        await handler(event);
        return;
      } catch (error) {
        stats.failures.push({ event: String(event), attempt, atMs: now() - queuedAt, error: errorChain(error) });
        if (attempt > errorDelays.length) {
          stats.failed += 1;
          console.warn(`fleet: an event failed ${attempt} times: ${errorMessage(error)}`);
          return;
        }
        stats.retried += 1;
      } finally {
        running -= 1;
      }
      await sleep(errorDelays[attempt - 1]!);
    }
  };

  await Promise.all(events.map(deliver));
  return stats;
}
