/**
 * An output of a run: a format or a by-product written from the same rows as they stream. exportRun
 * (run/run-export.ts) opens the outputs the definition asks for (outputsFor, outputs/index.ts), each
 * with (the planned run, the output context), fans each table's rows out to the sink each one opens,
 * then finishes the run. Each step returns what the output adds to the manifest; the run
 * checks every stored file it names before the manifest is published.
 */
import type { Log } from '../../core/logger';
import type { StoredObject } from '../../storage/storage';
import type { ReportSummary, TableDefinition, TableSink } from '../../table/table';
import type { ChangeTracker } from '../changes/tracker';
import type { ChangeReport } from '../changes/model';
import type { Dataset, DatasetEntry } from '../dataset/dataset';
import type { ReportFormat } from '../manifest/formats';
import type { Manifest, ManifestFile, ManifestTableFile, SchemaChangeEntry } from '../manifest/manifest';
import type { ManifestFigures } from '../manifest/manifest-summary';
import type { AttentionItem } from '../summary/attention';
import type { ExportResult } from '../run/result';
import type { ChartSheetContent } from '../../render/xlsx/chart-sheet';
import type { TableSchema } from '../../table/schema';
import type { PlannedRun, RunInProgress } from '../run/run';
import type { StoredFile } from '../run/run-writer';
import type { Clock } from '../../core/clock';

/** What an output adds to the manifest. */
export interface OutputEntries {
  /** Files in the run folder, listed under `files` (in the order of outputsFor). */
  readonly files?: readonly ManifestFile[];
  /** Other stored files the manifest names (with their full keys): verified like `files`. */
  readonly stored?: readonly StoredFile[];
  /** Top-level manifest fields of the output (e.g. Parquet's `tables` and `schemas`). */
  readonly fields?: {
    readonly tables?: readonly ManifestTableFile[];
    readonly schemas?: Readonly<Record<string, TableSchema>>;
    readonly schemaChanges?: readonly SchemaChangeEntry[];
  };
  /** Figures added to the manifest's `summary` (read by later runs, e.g. the trends). */
  readonly figures?: ManifestFigures;
  /** What the output hands back to the caller of runExport beside the manifest. */
  readonly result?: Pick<ExportResult, 'trends'>;
}

/**
 * Sheets of charts another output adds to the report (the Trends): in the workbook after the Summary
 * in the order added and before the Changes sheet, in the PDF after the Summary. Added when the
 * output opens (before the xlsx output opens the workbook); the xlsx and pdf outputs ask for
 * `content` in their finishRun, before the Summary, each once.
 */
export interface WorkbookSheets {
  add(name: string, content: WorkbookSheet['content']): void;
  readonly added: readonly WorkbookSheet[];
}

export interface WorkbookSheet {
  readonly name: string;
  content(finished: FinishedRun): Promise<ChartSheetContent>;
}

/**
 * Where an output writes the run it is given (the planned run: its definition, its run id): the
 * attempt in progress, everything written through its `writer`, and what the outputs share.
 */
export interface OutputContext extends RunInProgress {
  /** When this attempt started: what the files say they were exported at. */
  readonly exportedAt: Date;
  /** The run's clock: when its tables were complete, for the `runs` table (tables/runs-table.ts). */
  readonly clock: Clock;
  readonly tracker: ChangeTracker;
  readonly sheets: WorkbookSheets;
  /** The run's tables registry (tables/registry.ts): contracts, titles. */
  readonly datasets: readonly DatasetEntry[];
  readonly log: Log;
}

/**
 * What the manifest records of this run besides its files and the run's own facts (its run id is the
 * run's): for outputs that compare it with earlier runs.
 */
export interface RunRecord extends Pick<Manifest, 'generatedAt' | 'selectors' | 'changes'> {
  /** The datasets' figures for the manifest's `summary`. */
  readonly figures: ManifestFigures;
}

/** What the run came to after its last table: what outputs written at the end (sheets, changes) need. */
export interface FinishedRun {
  readonly summary: ReportSummary;
  /** Every item "Needs attention" counts, in the Summary's order: the workbook's "Needs attention" sheet. */
  readonly attention: readonly AttentionItem[];
  readonly changes: ChangeReport;
  /** Snapshots the change tracker stored, for verification. */
  readonly snapshots: readonly StoredFile[];
  readonly rows: Readonly<Record<string, number>>;
  readonly record: RunRecord;
}

export interface RunOutput {
  /** The sink of one table, or undefined when the output writes nothing per table. */
  openTable(table: TableDefinition, dataset: Dataset): Promise<TableSink | undefined>;
  /** After the table's sink is closed, with the number of rows written. */
  finishTable(table: string, rows: number): Promise<OutputEntries>;
  finishRun(finished: FinishedRun): Promise<OutputEntries>;
}

/**
 * Opens an output for a run, or returns undefined when the definition does not ask for it. A
 * format's outputs (FORMAT_OUTPUTS, outputs/index.ts) are opened only for a definition that lists it.
 */
export type OutputFactory = (run: PlannedRun, context: OutputContext) => Promise<RunOutput | undefined>;

export const NO_ENTRIES: OutputEntries = {};

/** The manifest entry of a file stored in the run folder. */
export function fileEntry(object: StoredObject, runFolder: string, format: ReportFormat, rows: Record<string, number>): ManifestFile {
  return {
    path: object.key.slice(object.key.lastIndexOf(`${runFolder}/`) + runFolder.length + 1),
    format: format.name,
    contentType: format.contentType,
    bytes: object.bytes,
    sha256: object.sha256,
    rows: { ...rows },
  };
}
