import { CHANGES_CSV } from '../changes/outputs';
import { snapshotPath } from '../changes/tracker';
import type { ReportDefinition } from '../definition/definition';
import type { FormatName } from '../manifest/formats';
import { latestKey, manifestKey, runFolderKey, tableFileKey, tableSchemaKey } from '../manifest/layout';
import { NAMES, type ReportNames } from '../names';
import { datasetsOf } from '../tables/registry';
import { RUNS_TABLE_NAME } from '../tables/runs-table';

/** Where a run writes: what the names of its files are made of. */
interface RunLayout {
  readonly report: string;
  readonly folder: string;
  readonly tables: readonly string[];
  readonly runDate: Date;
  readonly timeZone: string;
  readonly runId: string;
}

/**
 * The keys each format's outputs write (outputs/index.ts, FORMAT_OUTPUTS), named as they name them;
 * the compiler asks for a new format's entry. test/shared/report/run/planned-writes.test.ts checks the list against
 * the keys a run really writes.
 */
const FORMAT_KEYS: Readonly<Record<FormatName, (run: RunLayout) => string[]>> = {
  xlsx: (run) => [`${run.folder}/${run.report}.xlsx`],
  pdf: (run) => [`${run.folder}/${run.report}.pdf`],
  csv: (run) => [...run.tables.map((table) => `${run.folder}/${table}.csv`), `${run.folder}/${CHANGES_CSV}`],
  // The runs table's file comes last, as the run copies it last (tables/runs-table.ts).
  parquet: (run) => [...run.tables, RUNS_TABLE_NAME].flatMap((table) => [tableFileKey(run.report, table, run.runDate, run.timeZone, run.runId), tableSchemaKey(run.report, table)]),
};
const formatKeys = new Map<string, (run: RunLayout) => string[]>(Object.entries(FORMAT_KEYS));

/** What a run of a definition would write, before it runs (the dry run): keys relative to the storage's root. */
export interface PlannedWrites {
  readonly runFolder: string;
  /** Each format the definition lists, with the keys its outputs write. */
  readonly formats: readonly { readonly format: string; readonly keys: readonly string[] }[];
  /** What every run writes beside its formats: the manifest, the snapshots the next run compares with, latest.json. */
  readonly always: readonly string[];
}

/**
 * The keys a run of `definition` writes under run id `runId` on `runDate` (a dry run passes a
 * placeholder when the run will choose its own id). The tables are those of its datasets, the
 * snapshots those of its tables that runs compare (their change rules).
 */
export function plannedWrites(definition: ReportDefinition, run: { readonly runId: string; readonly runDate: Date }, names: ReportNames = NAMES): PlannedWrites {
  const entries = datasetsOf(definition.datasets, names.datasets).flatMap((d) => d.tables);
  const folder = runFolderKey(definition.name, run.runDate, definition.timeZone, run.runId);
  const layout: RunLayout = { report: definition.name, folder, tables: entries.map((t) => t.name), runDate: run.runDate, timeZone: definition.timeZone, runId: run.runId };
  const wanted = names.formats.filter((f) => (definition.formats as readonly string[]).includes(f.name));
  return {
    runFolder: folder,
    formats: wanted.map((f) => ({ format: f.name, keys: formatKeys.get(f.name)?.(layout) ?? [] })),
    always: [
      manifestKey(folder),
      ...entries.filter((t) => t.changes !== undefined).map((t) => `${folder}/${snapshotPath(t.name)}`),
      latestKey(definition.name),
    ],
  };
}
