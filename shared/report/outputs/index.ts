/**
 * The outputs of a run, in the order their files are listed in the manifest: the trends, each format
 * the definition lists (in the order of the formats registry, formats.ts) with what writes it, then
 * the snapshots. Adding an output is one file in this folder (a RunOutput factory, see output.ts)
 * and one entry here: under its format in FORMAT_OUTPUTS, or in outputsFor for a by-product.
 */
import type { TableDefinition, TableSink } from '../../table/table';
import type { Dataset } from '../dataset/dataset';
import type { ReportDefinition } from '../definition/definition';
import type { FormatName, ReportFormat } from '../manifest/formats';
import type { ManifestFile } from '../manifest/manifest';
import type { PlannedRun } from '../run/run';
import type { StoredFile } from '../run/run-writer';
import { changesOutput } from './changes';
import { csvOutput } from './csv';
import type { FinishedRun, OutputContext, OutputEntries, OutputFactory, RunOutput, WorkbookSheet, WorkbookSheets } from './output';
import { parquetOutput } from './parquet';
import { pdfOutput } from './pdf';
import { snapshotsOutput } from './snapshots';
import { trendsOutput } from './trends';
import { xlsxOutput } from './xlsx';

/** What writes each format of the registry; changes.csv goes with every CSV run. */
export const FORMAT_OUTPUTS: Readonly<Record<FormatName, readonly OutputFactory[]>> = {
  xlsx: [xlsxOutput],
  pdf: [pdfOutput],
  csv: [csvOutput, changesOutput],
  parquet: [parquetOutput],
};

/** The formats of a run and what writes each (the registry's, or a test's with one more). */
export interface FormatOutputs {
  readonly formats: readonly ReportFormat[];
  readonly outputs: Readonly<Record<string, readonly OutputFactory[]>>;
}

/** The outputs a definition asks for. The trends come first: they add their sheet to the workbook before the xlsx output opens it. */
export function outputsFor(definition: ReportDefinition, registry: FormatOutputs): OutputFactory[] {
  const wanted = registry.formats.filter((f) => (definition.formats as readonly string[]).includes(f.name));
  return [trendsOutput, ...wanted.flatMap((f) => registry.outputs[f.name] ?? []), snapshotsOutput];
}

/** What all outputs of a run added to the manifest, gathered per output so the list keeps its order. */
export interface RunEntries {
  readonly files: readonly ManifestFile[];
  readonly stored: readonly StoredFile[];
  readonly fields: NonNullable<OutputEntries['fields']>;
  readonly figures: NonNullable<OutputEntries['figures']>;
  readonly result: NonNullable<OutputEntries['result']>;
}

/** The outputs of one run, opened together and driven as one. */
export interface RunOutputs {
  openTable(table: TableDefinition, dataset: Dataset): Promise<TableSink[]>;
  finishTable(table: string, rows: number): Promise<void>;
  finishRun(finished: FinishedRun): Promise<RunEntries>;
}

export async function openOutputs(run: PlannedRun, context: Omit<OutputContext, 'sheets'>, factories: readonly OutputFactory[]): Promise<RunOutputs> {
  const shared: OutputContext = { ...context, sheets: workbookSheets() };
  const outputs: RunOutput[] = [];
  for (const factory of factories) {
    const output = await factory(run, shared);
    if (output) outputs.push(output);
  }
  const entries = outputs.map((): OutputEntries[] => []);
  return {
    async openTable(table, dataset) {
      const sinks: TableSink[] = [];
      for (const output of outputs) {
        const sink = await output.openTable(table, dataset);
        if (sink) sinks.push(sink);
      }
      return sinks;
    },
    async finishTable(table, rows) {
      for (const [i, output] of outputs.entries()) entries[i]!.push(await output.finishTable(table, rows));
    },
    async finishRun(finished) {
      for (const [i, output] of outputs.entries()) entries[i]!.push(await output.finishRun(finished));
      const all = entries.flat();
      return {
        files: all.flatMap((e) => e.files ?? []),
        stored: all.flatMap((e) => e.stored ?? []),
        fields: Object.assign({}, ...all.map((e) => e.fields ?? {})) as RunEntries['fields'],
        figures: Object.assign({}, ...all.map((e) => e.figures ?? {})) as RunEntries['figures'],
        result: Object.assign({}, ...all.map((e) => e.result ?? {})) as RunEntries['result'],
      };
    },
  };
}

/** The sheets outputs add to the workbook (and the PDF); the xlsx output reads them when it opens, so it lists them. */
function workbookSheets(): WorkbookSheets {
  const added: WorkbookSheet[] = [];
  return { added, add: (name, content) => void added.push({ name, content }) };
}
