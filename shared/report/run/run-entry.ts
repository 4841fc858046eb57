/**
 * A run's entry in the ledger (`run/<report>/<run id>`): who holds the run, since when, what its
 * attempts wrote, and the manifest the ledger chose. The lease (run-lease.ts) changes it while it
 * holds the run; the questions asked of it from outside an attempt (is the run published, where does
 * it stand, did an attempt die holding it) and the release on behalf of a dead holder are here.
 */
import * as z from 'zod';
import { type Clock, daysAfter } from '../../core/clock';
import type { Log } from '../../core/logger';
import { timerSleep, type Sleep } from '../../core/retry/retry';
import { ledgerKey, type Ledger } from '../../ledger/ledger';
import { ledgerRecord, type LedgerRecord } from '../../ledger/ledger-record';

/**
 * A lease lasts this long without a renewal. A healthy run renews it every LEASE_RENEW_MS while it
 * streams (and whenever it opens a file), so only a dead or frozen attempt lets it lapse; then a
 * retry may take the run over within about a minute.
 */
export const DEFAULT_LEASE_MS = 60_000;
export const LEASE_RENEW_MS = 15_000;
/**
 * A holder that has not renewed for this long missed a renewal: it is dead or frozen. A retry that
 * finds its lease still live waits for it to lapse (at most the rest of a lease) and takes the run
 * over, instead of stopping as "in progress" and leaving the run undone (Lambda's first async retry
 * comes about a minute after the failure, right in that window).
 */
export const SILENT_HOLDER_MS = 2 * LEASE_RENEW_MS;

/** Waits `ms` (timers); tests pass one that moves their clock instead. The exporter's one sleep. */
export type Wait = Sleep;
export const timerWait: Wait = timerSleep;
/** Run entries outlive every retry of a run (Lambda: 6 h; a manual --run-id: weeks), then expire. */
const RUN_ENTRY_DAYS = 35;
/** Compare-and-swap rounds before giving up: each lost round means another writer made progress. */
export const MAX_ROUNDS = 20;

/**
 * One table file the run publishes: copied from the staging key of the attempt whose manifest the
 * ledger chose to the table prefix, and checked against the bytes and sha256 the manifest states.
 */
const tableCopySchema = z.object({ from: z.string(), to: z.string(), bytes: z.number().int().nonnegative(), sha256: z.string(), rows: z.number().int().nonnegative() });
export type TableCopy = z.infer<typeof tableCopySchema>;

const runEntrySchema = z.object({
  report: z.string(),
  runId: z.string(),
  /** The attempt holding (or last holding) the lease. */
  attempt: z.string(),
  /** Start of the first attempt: fixes the run's `dt=` folder and its `generatedAt` for every retry. */
  startedAt: z.iso.datetime(),
  leaseExpiresAt: z.iso.datetime(),
  /**
   * `publishing`: the ledger chose the run's manifest (`manifestKey`) and its table files are being
   * copied into the table prefixes (`copies`); an attempt that takes the run over finishes the copies
   * before the run is `complete`. No attempt writes anything else of the run from then on.
   */
  status: z.enum(['running', 'publishing', 'released', 'complete']),
  /**
   * The fencing token: 1 for the first attempt, one more for every attempt that takes the run after
   * it. An attempt writes only under keys carrying its generation (see attemptKey), so whatever a
   * stale attempt still writes lands beside, never over, what the holder publishes. Absent in
   * entries written before generations existed: they count as 1.
   */
  generation: z.number().int().positive().optional(),
  /**
   * Objects attempts have begun to write and not removed again. While a run is not complete this is
   * what a dead attempt leaves behind; the next attempt deletes exactly these.
   */
  keys: z.array(z.string()),
  manifestKey: z.string().optional(),
  copies: z.array(tableCopySchema).optional(),
});
export type RunEntry = z.infer<typeof runEntrySchema>;

/** The run a lease is on: a report's run id. */
export interface RunName {
  readonly report: string;
  readonly runId: string;
}

/**
 * What a lease is kept with, named as the run context names it (a RunContext is one): the ledger
 * that orders attempts, the run's clock, the log, the lease's length and how a retry waits.
 */
export interface LeaseTerms {
  readonly ledger: Ledger;
  readonly clock: Clock;
  readonly log: Log;
  /** Lease duration: DEFAULT_LEASE_MS at the doors (run context), shorter in tests. */
  readonly leaseMs: number;
  /**
   * How a retry waits for a silent holder's lease to lapse (the export function passes timers);
   * without it a live lease is refused at once as "in progress", whoever holds it.
   */
  readonly leaseWait?: Wait | undefined;
}

/**
 * Milliseconds until the live lease of a holder that has stopped renewing lapses (a little more, so
 * the lapse is past), or undefined while its holder renews as a live one does.
 */
export function silentHolder(entry: RunEntry, now: Date, leaseMs: number): number | undefined {
  const expires = new Date(entry.leaseExpiresAt).getTime();
  const lastRenewal = expires - leaseMs;
  return now.getTime() - lastRenewal > SILENT_HOLDER_MS ? expires - now.getTime() + 1 : undefined;
}

/** The manifest key of the run when the ledger knows it as complete (published), else undefined. */
export async function completedManifest(terms: Pick<LeaseTerms, 'ledger'>, run: RunName): Promise<string | undefined> {
  const entry = (await runRecord(terms.ledger, run, 'absent').read()).value;
  return entry?.status === 'complete' ? entry.manifestKey : undefined;
}

/** Where a run stands in the ledger (its status and the attempt holding it last), or undefined without an entry. */
export async function runStanding(terms: Pick<LeaseTerms, 'ledger'>, run: RunName): Promise<{ readonly status: RunEntry['status']; readonly attempt: string } | undefined> {
  const entry = (await runRecord(terms.ledger, run, 'absent').read()).value;
  return entry && { status: entry.status, attempt: entry.attempt };
}

/** An attempt that stopped without finishing or giving the run up, as its run's ledger entry tells. */
export interface AbandonedAttempt {
  readonly attempt: string;
  readonly generation: number;
  /** When its lease lapsed: about when it stopped renewing (killed, out of memory or frozen). */
  readonly lapsedAt: string;
}

/**
 * The attempt of the run that died holding its lease, once the lease has lapsed: an attempt that
 * fails in the ordinary way releases the run, so only a killed or frozen one (out of time or memory)
 * leaves it running. A holder that stopped renewing but whose lease is still live is waited for
 * first (with `leaseWait`), so a retry that comes during the lapse finds the dead attempt rather
 * than a run "in progress". Undefined for a new, complete, released or live run, and for an entry
 * that is not a run lease.
 */
export async function abandonedAttempt(terms: Omit<LeaseTerms, 'log'>, run: RunName): Promise<AbandonedAttempt | undefined> {
  const record = runRecord(terms.ledger, run, 'absent');
  let entry = (await record.read()).value;
  const lapse = entry && terms.leaseWait && lapsing(entry, terms.clock(), terms.leaseMs);
  if (lapse !== undefined && terms.leaseWait) {
    await terms.leaseWait(lapse);
    entry = (await record.read()).value;
  }
  if (entry?.status !== 'running' || new Date(entry.leaseExpiresAt) > terms.clock()) return undefined;
  return { attempt: entry.attempt, generation: entry.generation ?? 1, lapsedAt: entry.leaseExpiresAt };
}

/** When the live lease of `entry` lapses, if its holder has stopped renewing; else undefined. */
function lapsing(entry: RunEntry, now: Date, leaseMs: number): number | undefined {
  if (!isHeld(entry.status) || new Date(entry.leaseExpiresAt) <= now) return undefined;
  return silentHolder(entry, now, leaseMs);
}

/**
 * Gives up the lease of a run on behalf of an attempt that cannot: the fan-out's assembler, killed by
 * Lambda (out of time or memory) while it held it, leaves it `running` until it lapses, and the
 * fan-out's failure step releases it (docs/run-atomicity.md). The entry becomes `released` as a
 * failed attempt leaves it, with the keys its holder recorded, which the next attempt deletes. A
 * holder that still ran would lose at its next write, as any attempt that was taken over does.
 * Returns the attempt it released, or undefined when none held the run (no entry, released, complete).
 */
export async function releaseHeldRun(terms: Pick<LeaseTerms, 'ledger' | 'clock' | 'log'>, run: RunName): Promise<{ readonly attempt: string; readonly generation: number } | undefined> {
  const released = await runRecord(terms.ledger, run, 'absent').change(
    // A publishing run keeps its chosen manifest: only its lease lapses, and the next attempt finishes it.
    (current) => (current && isHeld(current.status) ? { ...current, status: current.status === 'publishing' ? 'publishing' : 'released', leaseExpiresAt: terms.clock().toISOString() } : undefined),
    // Released at `leaseExpiresAt`: the entry's expiry counts from then.
    { rounds: MAX_ROUNDS, expiresAt: (entry) => entryExpiry(new Date(entry.leaseExpiresAt)) },
  );
  if (released.outcome !== 'written' || !released.previous) return undefined;
  const { attempt, generation = 1 } = released.previous;
  terms.log.warn('released the lease of an attempt that died holding it', { runId: run.runId, attempt });
  return { attempt, generation };
}

/**
 * The ledger entry of a run. Its own attempts fail on an entry that is not a run lease (`fail`);
 * those that only look at it from outside (the route, the fan-out's failure step) read it as none.
 */
export function runRecord(ledger: Ledger, { report, runId }: RunName, invalid: 'fail' | 'absent'): LedgerRecord<RunEntry> {
  return ledgerRecord(ledger, ledgerKey('run', report, runId), runEntrySchema, { what: `the lease on run "${runId}" of report "${report}"`, invalid });
}

/** A lease is held (live or lapsed) while the run is written and while it is published. */
export function isHeld(status: RunEntry['status']): boolean {
  return status === 'running' || status === 'publishing';
}

/** Run entries outlive every retry of their run, then expire. */
export function entryExpiry(now: Date): Date {
  return daysAfter(now, RUN_ENTRY_DAYS);
}
