/**
 * Publishing into the tables (docs/run-atomicity.md, "Publishing into the tables"): an attempt
 * stages its table files outside the table prefixes; once the ledger chose its manifest (the lease's
 * `publishing` compare-and-swap), the holder of the run copies each staged file to its table prefix,
 * under the key the manifest names, and only then completes the run. Whoever holds the run copies
 * the same files (those of the chosen manifest) to the same keys, so an attempt that takes over a run
 * killed between two copies finishes them, and a copy repeated by a stale attempt changes no byte.
 */
import { errorMessage, ExporterError, LeaseLostError, StorageError } from '../../core/errors';
import type { Log } from '../../core/logger';
import type { Storage } from '../../storage/storage';
import type { TableCopy } from './run-entry';
import type { RunLease } from './run-lease';
import { verifyStored } from './run-writer';
import { RUNS_TABLE_NAME } from '../tables/runs-table';

export interface TablePublishing {
  readonly storage: Storage;
  readonly lease: RunLease;
  readonly copies: readonly TableCopy[];
  /** Object metadata of the run's files (report, run id); each copy is labelled with its rows too. */
  readonly metadata: Readonly<Record<string, string>>;
  readonly log: Log;
}

/**
 * Copies every staged table file of the chosen manifest into its table prefix, then completes the
 * run (`manifestKey`), removes the staged files and takes the run off its report's runs publishing. Each copy comes after a renewal of the lease,
 * which fails (LeaseLostError) once another attempt holds the run: a stale attempt stops at its next
 * copy. A copy already in place (an earlier holder made it) is not made again; every copy is read
 * back and compared with the manifest's bytes and sha256 before the run is complete.
 *
 * A failure leaves the run `publishing` with its lease given up, so the next attempt finishes it.
 */
export async function publishTables(publishing: TablePublishing, manifestKey: string): Promise<void> {
  const { storage, lease, metadata, log } = publishing;
  const copies = runsLast(publishing.copies);
  try {
    for (const copy of copies) {
      await lease.renew();
      const there = await storage.hashObject(copy.to);
      if (there?.bytes !== copy.bytes || there.sha256 !== copy.sha256) {
        await storage.copyObject(copy.from, copy.to, { ...metadata, rows: String(copy.rows) });
      }
      await verifyStored(storage, [{ key: copy.to, bytes: copy.bytes, sha256: copy.sha256 }]);
    }
    await lease.complete(manifestKey);
  } catch (error) {
    lease.stopHeartbeat();
    // A copy that failed because another attempt took the run over (it removed the staged files once
    // complete) is told as the lost lease it is.
    const loss = error instanceof LeaseLostError ? undefined : await lease.loss().catch(() => undefined);
    if (loss) throw new LeaseLostError(loss.error.message, { cause: error });
    // Still publishing: the lease lapses at once and the next attempt of the run finishes the copies.
    await lease.release([], []).catch(() => false);
    // Ours (a lost lease, a store's failure) carry their meaning; anything else is said as a retryable storage failure.
    if (error instanceof ExporterError) throw error;
    throw new StorageError(`the run's table files could not all be published: ${errorMessage(error)}; the next attempt of the run finishes them`, { cause: error, retryable: true });
  }
  await removeStaged(storage, copies, log);
  await lease.letNoteGo();
}

/**
 * The copies with the `runs` table's last (its file is staged last; an order recorded otherwise is
 * put right): readers joining `runs` see a run only once every other table holds it.
 */
export function runsLast(copies: readonly TableCopy[]): TableCopy[] {
  const isRuns = (copy: TableCopy) => copy.to.includes(`/tables/${RUNS_TABLE_NAME}/`);
  return [...copies.filter((c) => !isRuns(c)), ...copies.filter(isRuns)];
}

/**
 * Removes the staged files once the run is complete. A failure is only logged: the run is published,
 * and the bucket's lifecycle rule on the staging area expires what is left.
 */
async function removeStaged(storage: Storage, copies: readonly TableCopy[], log: Log): Promise<void> {
  try {
    await storage.deleteObjects(copies.map((c) => c.from));
  } catch (error) {
    log.warn('the run is published but its staged table files could not be removed; they expire with the staging area', {
      error: errorMessage(error),
    });
  }
}
