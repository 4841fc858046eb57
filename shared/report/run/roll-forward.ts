/**
 * Rolling a cut-off publishing forward (docs/run-atomicity.md, "Publishing into the tables"). An
 * attempt killed between two copies into the table prefixes leaves its run `publishing`, some tables
 * holding it and others not. Its own run id's next attempt finishes it, but a report's next run has
 * another run id and would never look at that run's lease. So every run's lease notes it in the
 * report's `publishing/<report>` entry before its manifest is chosen (before the first copy) and takes
 * it off once complete (publishing-note.ts), and each run of the report first finishes every run noted
 * there whose copies were cut off: from the lease's recorded copies (staged key → table key, bytes,
 * sha256), with the same keys.
 */
import { errorMessage, RunInProgressError } from '../../core/errors';
import type { Log } from '../../core/logger';
import type { Storage } from '../../storage/storage';
import type { RunContext } from './context';
import { notedRuns, notePublished, type Noted } from './publishing-note';
import { runStanding, type TableCopy } from './run-entry';
import { RunLease, type LeaseOutcome } from './run-lease';
import { publishTables, runsLast } from './table-publish';

/** What rolling forward needs of the run that does it. */
type RollContext = Pick<RunContext, 'storage' | 'ledger' | 'clock' | 'log' | 'leaseMs' | 'leaseWait'>;

/**
 * Finishes the copies of every run of `report` (but `runId`, which its own attempt finishes) that
 * was cut off while publishing, and lets go of noted attempts that can no longer publish. A run whose
 * copies cannot be finished now is logged and left noted (a 503; a live holder finishes it itself):
 * this run is not held back by another run's trouble, and the one after tries again.
 */
export async function rollForward(context: RollContext, report: string, runId: string): Promise<void> {
  for (const noted of await notedRuns(context.ledger, report)) {
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
  const run = { report, runId: noted.runId };
  const standing = await runStanding(context, run);
  // Still writing under the attempt noted: it may yet choose its manifest (or died before; its retry decides).
  if (standing?.status === 'running' && standing.attempt === noted.attempt) return;
  if (standing?.status === 'publishing') {
    const leased = await takePublishing(context, report, noted.runId);
    if (!leased) return;
    // Its lease takes it off the note once it completes it, or gives it up.
    if (leased.kind === 'publishing') await finishOrWithdraw(context, leased, { report, 'run-id': noted.runId });
    else if (leased.kind === 'acquired') {
      // Not publishing after all (it changed between the two reads): give it back untouched.
      await leased.lease.release([], []);
    } else await notePublished(context, run);
    return;
  }
  // Complete, released, gone, or written by another attempt now (which notes itself): this attempt can no longer publish.
  await notePublished(context, standing?.status === 'complete' ? run : { ...run, attempt: noted.attempt });
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
