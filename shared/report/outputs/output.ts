/**
 * An output of a run: a format or a by-product written from the same rows as they stream. runExport
 * opens every output of OUTPUTS (outputs/index.ts), fans each table's rows out to the sink each one
 * opens, then finishes the run. Each step returns what the output adds to the manifest; the run
 * checks every stored file it names before the manifest is published.
 */
import type { Log } from '../../core/logger';
import type { StoredObject } from '../../storage/storage';
import type { ReportSummary, TableDefinition, TableSink } from '../../table/table';
import type { ChangeTracker } from '../changes/tracker';
import type { ChangeReport } from '../changes/model';
import type { Dataset } from '../dataset';
import type { ReportDefinition } from '../definition';
import { CONTENT_TYPES } from '../layout';
import type { ManifestFile, ManifestTableFile, SchemaChangeEntry } from '../manifest';
import type { TableSchema } from '../../table/schema';
import type { RunWriter, StoredFile } from '../run-writer';

/** What an output adds to the manifest. */
export interface OutputEntries {
  /** Files in the run folder, listed under `files` (in the order of OUTPUTS). */
  readonly files?: readonly ManifestFile[];
  /** Other stored files the manifest names (with their full keys): verified like `files`. */
  readonly stored?: readonly StoredFile[];
  /** Top-level manifest fields of the output (e.g. Parquet's `tables` and `schemas`). */
  readonly fields?: {
    readonly tables?: readonly ManifestTableFile[];
    readonly schemas?: Readonly<Record<string, TableSchema>>;
    readonly schemaChanges?: readonly SchemaChangeEntry[];
  };
}

/** The run an output writes into: everything is written through `writer`. */
export interface OutputContext {
  readonly definition: ReportDefinition;
  readonly writer: RunWriter;
  readonly runId: string;
  /** The `dt=` partition's date. */
  readonly runDate: Date;
  /** When this attempt started: what the files say they were exported at. */
  readonly exportedAt: Date;
  readonly tracker: ChangeTracker;
  readonly log: Log;
}

/** The run after its last table: what outputs written at the end (sheets, changes) need. */
export interface FinishedRun {
  readonly summary: ReportSummary;
  readonly changes: ChangeReport;
  /** Snapshots the change tracker stored, for verification. */
  readonly snapshots: readonly StoredFile[];
  readonly rows: Readonly<Record<string, number>>;
}

export interface RunOutput {
  /** The sink of one table, or undefined when the output writes nothing per table. */
  openTable(table: TableDefinition, dataset: Dataset): Promise<TableSink | undefined>;
  /** After the table's sink is closed, with the number of rows written. */
  finishTable(table: string, rows: number): Promise<OutputEntries>;
  finishRun(run: FinishedRun): Promise<OutputEntries>;
}

/** One entry of OUTPUTS: opens the output for a run, or returns undefined when the definition does not ask for it. */
export type OutputFactory = (ctx: OutputContext) => Promise<RunOutput | undefined>;

export const NO_ENTRIES: OutputEntries = {};

/** The manifest entry of a file stored in the run folder. */
export function fileEntry(object: StoredObject, runFolder: string, format: 'xlsx' | 'csv', rows: Record<string, number>): ManifestFile {
  return {
    path: object.key.slice(object.key.lastIndexOf(`${runFolder}/`) + runFolder.length + 1),
    format,
    contentType: CONTENT_TYPES[format],
    bytes: object.bytes,
    sha256: object.sha256,
    rows: { ...rows },
  };
}
