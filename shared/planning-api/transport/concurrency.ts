/**
 * A concurrency limiter shared by the whole export. One instance is created per export run and passed
 * to the client, so that parallel paging of several lists (risks of many registers, items of many
 * boards) never puts more than `limit` requests in flight against the API at once.
 *
 * Only the request itself holds a slot: the retry loop releases its slot before sleeping through a
 * backoff, so a throttled request does not starve the others (see client.ts).
 */
export interface ConcurrencyLimiter {
  /** Maximum number of tasks running at once. Pagers also use it as their read-ahead window. */
  readonly limit: number;
  /** Tasks running now. */
  readonly active: number;
  /** Tasks waiting for a slot. */
  readonly pending: number;
  /** Runs `task` when a slot is free (first come, first served) and frees the slot when it settles. */
  run<T>(task: () => Promise<T>): Promise<T>;
}

/**
 * A limiter of `limit` concurrent tasks, first come first served; one is shared by every client of
 * an export so the whole run stays within what the API tolerates. Throws a RangeError unless `limit`
 * is a positive integer.
 */
export function createLimiter(limit: number): ConcurrencyLimiter {
  if (!Number.isInteger(limit) || limit < 1) {
    throw new RangeError(`concurrency limit must be a positive integer, got ${String(limit)}`);
  }
  let active = 0;
  // FIFO of resolvers: a waiting task is started by the task whose slot it takes over.
  const waiting: (() => void)[] = [];

  const acquire = (): Promise<void> => {
    if (active < limit) {
      active += 1;
      return Promise.resolve();
    }
    return new Promise<void>((resolve) => waiting.push(resolve));
  };

  const release = (): void => {
    const next = waiting.shift();
    // Hand the slot over directly (active stays the same) so that no newcomer can jump the queue.
    if (next) next();
    else active -= 1;
  };

  return {
    limit,
    get active() {
      return active;
    },
    get pending() {
      return waiting.length;
    },
    async run<T>(task: () => Promise<T>): Promise<T> {
      await acquire();
      try {
        return await task();
      } finally {
        release();
      }
    },
  };
}
