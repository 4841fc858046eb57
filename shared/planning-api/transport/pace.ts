/**
 * The rate a planning tenant's requests keep together, across every run of the tenant at once (a
 * fleet of reports scheduled at one minute): the client asks it for the moment of each attempt and
 * waits until then; a 429 holds everyone off until its Retry-After. The limiter (concurrency.ts)
 * bounds one run's requests in flight; this bounds the tenant's requests per second.
 *
 * The port of `shared/ledger/rate-pacer.ts` (a pace kept in the run ledger with compare-and-swap
 * writes); this layer imports nothing of the ledger, so the run's maker hands one in.
 */
export interface RequestPace {
  /** Epoch ms (on the client's clock) at which the next attempt may go; it may be now or past. */
  reserve(): Promise<number>;
  /** Nobody sharing the pace is given a moment before `untilMs`. */
  holdOff(untilMs: number): Promise<void>;
}
