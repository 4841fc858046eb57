/**
 * Rolling a cut-off publishing forward (docs/run-atomicity.md, "Publishing into the tables"). An
 * attempt killed between two copies into the table prefixes leaves its run `publishing`, some tables
 * holding it and others not. Its own run id's next attempt finishes it, but a report's next run has
 * another run id and would never look at that run's lease. So every run notes itself in the report's
 * `publishing/<report>` entry before its manifest is chosen (before the first copy), takes itself off
 * once complete, and each run of the report first finishes every run noted there whose copies were
 * cut off: from the lease's recorded copies (staged key → table key, bytes, sha256), with the same keys.
 */
import * as z from 'zod';
import { errorMessage, RunInProgressError } from '../../core/errors';
import type { Log } from '../../core/logger';
import { ledgerKey, type Ledger } from '../../ledger/ledger';
import { ledgerRecord, type LedgerRecord } from '../../ledger/ledger-record';
import type { Storage } from '../../storage/storage';
import type { RunContext } from './context';
import { runStanding, type TableCopy } from './run-entry';
import { RunLease, type LeaseOutcome } from './run-lease';
import { publishTables, runsLast } from './table-publish';

/** As long as a run's lease entry: a noted run whose lease entry is gone is let go. */
const ENTRY_DAYS = 35;
const MAX_ROUNDS = 20;

/** One attempt that is about to choose its run's manifest (or did: then its lease says `publishing`). */
const notedSchema = z.object({ runId: z.string(), attempt: z.string() });
const publishingSchema = z.object({ runs: z.array(notedSchema) });
type Noted = z.infer<typeof notedSchema>;
type Publishing = z.infer<typeof publishingSchema>;

/**
 * Notes the attempt in its report's entry, before the compare-and-swap that makes its run
 * `publishing`: a run can only reach that state noted, so the report's next run finds it.
 */
export async function notePublishing(ledger: Ledger, report: string, noted: Noted, now: Date): Promise<void> {
  await change(ledger, report, now, (runs) => (runs.some((r) => same(r, noted)) ? undefined : [...runs, noted]));
}

/**
 * Takes a complete run off its report's entry (every attempt of it), or only the attempt `noted`
 * that can no longer publish (its run's other attempts note themselves). A failure is only logged:
 * the next run of the report lets it go.
 */
export async function notePublished(ledger: Ledger, report: string, done: { readonly runId: string; readonly attempt?: string }, context: { readonly now: Date; readonly log: Log }): Promise<void> {
  const gone = (r: Noted) => r.runId === done.runId && (done.attempt === undefined || r.attempt === done.attempt);
  try {
    await change(ledger, report, context.now, (runs) => (runs.some(gone) ? runs.filter((r) => !gone(r)) : undefined));
  } catch (error) {
    const { runId } = done;
    const { log } = context;
    log.warn('the run is published but could not be taken off the runs publishing; the next run does it', { runId, error: errorMessage(error) });
  }
}

/** What rolling forward needs of the run that does it. */
type RollContext = Pick<RunContext, 'storage' | 'ledger' | 'clock' | 'log' | 'leaseMs' | 'leaseWait'>;

/**
 * Finishes the copies of every run of `report` (but `runId`, which its own attempt finishes) that
 * was cut off while publishing, and lets go of noted attempts that can no longer publish. A run whose
 * copies cannot be finished now is logged and left noted (a 503; a live holder finishes it itself):
 * this run is not held back by another run's trouble, and the one after tries again.
 */
export async function rollForward(context: RollContext, report: string, runId: string): Promise<void> {
  const { value } = await record(context.ledger, report).read();
  for (const noted of value?.runs ?? []) {
    if (noted.runId === runId) continue;
    try {
      await settle(context, report, noted);
    } catch (error) {
      context.log.error('could not finish the publishing of an earlier run; the next run tries again', { report, runId: noted.runId, error: errorMessage(error) });
    }
  }
}

/** Finishes one noted run if it is `publishing`; lets the note go once it can no longer publish. */
async function settle(context: RollContext, report: string, noted: Noted): Promise<void> {
  const { ledger, log } = context;
  const done = { now: context.clock(), log };
  const standing = await runStanding(context, { report, runId: noted.runId });
  // Still writing under the attempt noted: it may yet choose its manifest (or died before; its retry decides).
  if (standing?.status === 'running' && standing.attempt === noted.attempt) return;
  if (standing?.status === 'publishing') {
    const leased = await takePublishing(context, report, noted.runId);
    if (!leased) return;
    if (leased.kind === 'publishing') await finishOrWithdraw(context, leased, { report, 'run-id': noted.runId });
    else if (leased.kind === 'acquired') {
      // Not publishing after all (it changed between the two reads): give it back untouched.
      await leased.lease.release([], []);
      return;
    }
    // Complete now, by this run or another.
    await notePublished(ledger, report, { runId: noted.runId }, done);
    return;
  }
  // Complete, released, gone, or written by another attempt now (which notes itself): this attempt can no longer publish.
  await notePublished(ledger, report, standing?.status === 'complete' ? { runId: noted.runId } : noted, done);
}

/** Takes the lease of a publishing run, or undefined while a live holder copies it itself. */
async function takePublishing(context: RollContext, report: string, runId: string): Promise<LeaseOutcome | undefined> {
  try {
    return await RunLease.acquire(context, { report, runId });
  } catch (error) {
    if (error instanceof RunInProgressError) return undefined;
    throw error;
  }
}

/**
 * Finishes the copies of a run taken over while publishing; or, when a file still to copy has no
 * staged source any more (the staging area expired before any run came back), withdraws the copies
 * made: the run is then in no table rather than in some for good.
 */
async function finishOrWithdraw(context: RollContext, leased: Extract<LeaseOutcome, { kind: 'publishing' }>, metadata: Readonly<Record<string, string>>): Promise<void> {
  const { storage, log } = context;
  const fields = { report: metadata.report, runId: metadata['run-id'], tables: leased.copies.length };
  if (!(await sourcesLost(storage, leased.copies))) {
    log.warn('an earlier run of this report stopped while publishing its tables; finishing its copies first', fields);
    await finishCopies(storage, leased, metadata, log);
    return;
  }
  log.error('an earlier run of this report stopped while publishing its tables and its staged files expired; removing the tables it copied, so it is in none', fields);
  // The runs table's file first: it never lists a run some table lacks.
  for (const copy of runsLast(leased.copies).reverse()) await storage.deleteObjects([copy.to]);
  await leased.lease.abandonPublishing();
}

/** True when a file still to copy (not in place as the manifest states) has no staged source. */
async function sourcesLost(storage: Storage, copies: readonly TableCopy[]): Promise<boolean> {
  for (const copy of copies) {
    const there = await storage.hashObject(copy.to);
    if (there?.sha256 === copy.sha256 && there.bytes === copy.bytes) continue;
    if ((await storage.hashObject(copy.from)) === undefined) return true;
  }
  return false;
}

/** Copies the chosen manifest's table files of a run taken over while publishing, and completes it. */
export async function finishCopies(
  storage: Storage,
  leased: Extract<LeaseOutcome, { kind: 'publishing' }>,
  metadata: Readonly<Record<string, string>>,
  log: Log,
): Promise<void> {
  leased.lease.startHeartbeat();
  await publishTables({ storage, lease: leased.lease, copies: leased.copies, metadata, log }, leased.manifestKey);
}

function same(a: Noted, b: Noted): boolean {
  return a.runId === b.runId && a.attempt === b.attempt;
}

async function change(ledger: Ledger, report: string, now: Date, next: (runs: readonly Noted[]) => Noted[] | undefined): Promise<void> {
  const expiresAt = () => new Date(now.getTime() + ENTRY_DAYS * 86_400_000);
  await record(ledger, report).change((current) => {
    const runs = next(current?.runs ?? []);
    return runs && { runs };
  }, { rounds: MAX_ROUNDS, expiresAt });
}

function record(ledger: Ledger, report: string): LedgerRecord<Publishing> {
  return ledgerRecord(ledger, ledgerKey('publishing', report), publishingSchema, { what: `the runs of "${report}" publishing into its tables`, invalid: 'absent' });
}
