/**
 * The comparison's scratch directories (spilled-key-prints.ts): their names, the error a failed file
 * operation becomes, and the sweep of those a killed process left behind.
 */
import { readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { errorMessage, ExporterError } from '../../../core/errors';

/** The scratch file could not be made, written or read (a full disk, say): the table is not compared. */
export class ScratchFileError extends ExporterError {
  static override readonly kind: string = 'scratch-file';
}

/** Scratch directories are named so: one a comparison, removed by `close`. */
export const SCRATCH_PREFIX = 'report-keys-';

/**
 * A scratch directory untouched this long was left by a process that was killed (a Lambda that timed
 * out keeps its /tmp for the next invocation): no run lasts an hour, a Lambda at most 15 minutes.
 */
export const STALE_SCRATCH_MS = 60 * 60 * 1000;

/** Removes the stale scratch directories under `parent`; returns how many. Never fails a run. */
export function sweepStaleScratch(parent: string, now: number): number {
  let removed = 0;
  let names: string[];
  try {
    names = readdirSync(parent);
  } catch {
    return 0;
  }
  for (const name of names) {
    if (!name.startsWith(SCRATCH_PREFIX)) continue;
    const path = join(parent, name);
    try {
      if (now - statSync(path).mtimeMs <= STALE_SCRATCH_MS) continue;
      rmSync(path, { recursive: true, force: true });
      removed++;
    } catch {
      // Removed meanwhile by its owner, or not ours to remove: either way nothing to do.
    }
  }
  return removed;
}

/** Runs a file operation; its failure becomes a ScratchFileError, which the tracker turns into a note. */
export function scratch<T>(what: string, run: () => T): T {
  try {
    return run();
  } catch (error) {
    throw new ScratchFileError(`the comparison's scratch file could not be ${what} (${errorMessage(error)})`, { cause: error });
  }
}

