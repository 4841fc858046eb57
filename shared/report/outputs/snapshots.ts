/**
 * Each tracked table's snapshot (`snapshots/<table>.ndjson.gz` in the run folder), the next run's
 * baseline (docs/changes.md). The change tracker writes and compares them; this output gives it each
 * table's rows and has the snapshots verified with the run's other files.
 */
import { NO_ENTRIES, type OutputFactory } from './output';

export const snapshotsOutput: OutputFactory = (_run, context) =>
  Promise.resolve({
    openTable: (table, dataset) => context.tracker.openTable(dataset.name, table, dataset.resolvedSelectors()),
    finishTable: () => Promise.resolve(NO_ENTRIES),
    finishRun: (finished) => Promise.resolve({ stored: finished.snapshots }),
  });
