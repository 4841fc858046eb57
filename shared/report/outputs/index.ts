/**
 * The outputs of a run, in the order their files are listed in the manifest. Adding an output is one
 * file in this folder (a RunOutput factory, see output.ts) and one entry here.
 */
import type { TableDefinition, TableSink } from '../../table/table';
import type { Dataset } from '../dataset';
import type { ManifestFile } from '../manifest';
import type { StoredFile } from '../run-writer';
import { changesOutput } from './changes';
import { csvOutput } from './csv';
import type { FinishedRun, OutputContext, OutputEntries, OutputFactory, RunOutput } from './output';
import { parquetOutput } from './parquet';
import { snapshotsOutput } from './snapshots';
import { xlsxOutput } from './xlsx';

export const OUTPUTS: readonly OutputFactory[] = [xlsxOutput, csvOutput, changesOutput, parquetOutput, snapshotsOutput];

/** What all outputs of a run added to the manifest, gathered per output so the list keeps its order. */
export interface RunEntries {
  readonly files: readonly ManifestFile[];
  readonly stored: readonly StoredFile[];
  readonly fields: NonNullable<OutputEntries['fields']>;
}

/** The outputs of one run, opened together and driven as one. */
export interface RunOutputs {
  openTable(table: TableDefinition, dataset: Dataset): Promise<TableSink[]>;
  finishTable(table: string, rows: number): Promise<void>;
  finishRun(run: FinishedRun): Promise<RunEntries>;
}

export async function openOutputs(ctx: OutputContext, factories: readonly OutputFactory[] = OUTPUTS): Promise<RunOutputs> {
  const outputs: RunOutput[] = [];
  for (const factory of factories) {
    const output = await factory(ctx);
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
    async finishRun(run) {
      for (const [i, output] of outputs.entries()) entries[i]!.push(await output.finishRun(run));
      const all = entries.flat();
      return {
        files: all.flatMap((e) => e.files ?? []),
        stored: all.flatMap((e) => e.stored ?? []),
        fields: Object.assign({}, ...all.map((e) => e.fields ?? {})) as RunEntries['fields'],
      };
    },
  };
}
