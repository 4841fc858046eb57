import * as z from 'zod';
import { StorageError } from '../core/errors';
import type { Ledger } from './ledger';
import { ledgerRecord, type LedgerRecord } from './ledger-record';

/**
 * A request rate shared by every process that names the same ledger key: the concurrent runs of one
 * planning tenant, or every sender of one SES account. Each process could only pace itself; a fleet
 * of runs started at one minute needs one pace between them, and the ledger (DynamoDB in the stack)
 * is the one thing they all write with compare-and-swap.
 *
 * The entry holds one number, `next`: the earliest moment no one has been given yet (virtual
 * scheduling, as GCRA keeps its "theoretical arrival time"). A caller reserves a block of `batch`
 * moments `interval` apart from max(`next`, now) and moves `next` past them in one conditional write;
 * it then waits for each of its moments. Nobody is refused: a crowded minute queues its requests in
 * the order they reserved, each a known time ahead, and the moments of all callers together are
 * never closer than `interval`. Reserving a block per write keeps the ledger's writes a fraction of
 * the requests; what a caller reserved and did not use is lost capacity, at most `batch - 1` moments.
 */
export interface RatePacerOptions {
  /** Moments per second shared by every holder of the key. */
  readonly ratePerSecond: number;
  /** Moments reserved per ledger write (default: a tenth of a second's worth, at least 1). */
  readonly batch?: number;
  /** The caller's clock, epoch ms. */
  readonly now: () => number;
  /** Waits between reservations lost to other writers (a short jittered pause, so they stop colliding). */
  readonly pause: (ms: number) => Promise<void>;
  readonly random?: () => number;
}

export interface RatePacer {
  /** Moments per second this pacer keeps to. */
  readonly ratePerSecond: number;
  /**
   * The moment (epoch ms, on `now`) at which the caller's next request fits the shared rate; the caller
   * waits until then (it may be now). Moments already past are given at once.
   */
  reserve(): Promise<number>;
  /**
   * Nobody sharing the key is given a moment before `untilMs`: the server answered "too many" (429
   * with Retry-After, SES throttling), so every holder waits, not only the one that was told.
   */
  holdOff(untilMs: number): Promise<void>;
}

const paceSchema = z.object({ next: z.number() });
type Pace = z.infer<typeof paceSchema>;

/** Rounds of reserve lost to other writers before giving up: a busy key settles in a few; this many means the ledger is failing. */
const MAX_LOST = 30;
/** A pace entry outlives its last moment by this much (the ledger's TTL removes idle tenants). */
const KEEP_MS = 60 * 60 * 1000;

/** The pacer of the ledger entry `key` (`ledgerKey('pace', …)`), at `ratePerSecond`. */
export function ledgerRatePacer(ledger: Ledger, key: string, options: RatePacerOptions): RatePacer {
  const { ratePerSecond, now, pause, random = Math.random } = options;
  if (!(ratePerSecond > 0) || !Number.isFinite(ratePerSecond)) throw new RangeError(`a pace needs a positive rate, got ${String(ratePerSecond)}`);
  const interval = 1000 / ratePerSecond;
  const batch = Math.max(1, Math.floor(options.batch ?? ratePerSecond / 10));
  const record = ledgerRecord(ledger, key, paceSchema, { what: `the pace ${key}`, invalid: 'absent' });
  // The moments this process holds and has not handed out yet, oldest first.
  let held: number[] = [];
  // One reservation at a time per process: concurrent callers share the block it brings.
  let reserving: Promise<void> | undefined;

  const refill = async (): Promise<void> => {
    const decide = (current: Pace | undefined): Pace => ({ next: Math.max(current?.next ?? 0, now()) + batch * interval });
    for (let lost = 0; lost < MAX_LOST; lost++) {
      const changed = await record.change(decide, { rounds: 3, lost: 'answer', expiresAt: (v) => new Date(v.next + KEEP_MS) });
      if (changed.outcome === 'written') {
        const start = changed.value.next - batch * interval;
        held = Array.from({ length: batch }, (_, i) => start + i * interval);
        return;
      }
      await pause(interval * (1 + random() * batch));
    }
    throw new StorageError(`could not reserve a moment of the pace ${key}: the ledger ${ledger.describe()} kept changing`, { retryable: true });
  };

  const reserve = async (): Promise<number> => {
    for (;;) {
      const moment = held.shift();
      if (moment !== undefined) return moment;
      reserving ??= refill().finally(() => (reserving = undefined));
      await reserving;
    }
  };

  const holdOff = async (untilMs: number): Promise<void> => {
    held = held.filter((moment) => moment >= untilMs);
    await record.change((current) => (current && current.next >= untilMs ? undefined : { next: untilMs }), {
      rounds: 10,
      lost: 'answer',
      expiresAt: (v) => new Date(v.next + KEEP_MS),
    });
  };

  return { ratePerSecond, reserve, holdOff };
}

/** The entry of a pace, for tests and the operators' tools: the earliest moment not yet given. */
export function paceRecord(ledger: Ledger, key: string): LedgerRecord<Pace> {
  return ledgerRecord(ledger, key, paceSchema, { what: `the pace ${key}`, invalid: 'absent' });
}
