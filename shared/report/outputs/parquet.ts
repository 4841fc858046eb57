/**
 * The machine layout of a run (docs/downstream.md): one Parquet file per table under the table's own
 * prefix, `<report>/tables/<table>/dt=<day>/run=<runId>/part-00000.parquet`, next to (not inside) the
 * human run folder, so one Glue/Athena/DuckDB table spans every run. Parquet output opens one sink
 * per table in the run's staging area (layout.ts), never in the table prefix: the manifest names the
 * table's file where the run's publishing copies it (run-attempt.ts), and the writer records the copy.
 */
import type { Log } from '../../core/logger';
import type { ParquetSink } from '../../render/parquet/parquet-sink';
import type { ObjectUpload, Storage } from '../../storage/storage';
import { classifySchemaChange, type TableSchema } from '../../table/schema';
import type { TableDefinition } from '../../table/table';
import { PARQUET_FORMAT } from '../manifest/formats';
import { stagedTableKey, tableFileKey, tableSchemaKey } from '../manifest/layout';
import { tableSchemaSchema, type ManifestTableFile, type SchemaChangeEntry } from '../manifest/manifest';
import type { RunWriter } from '../run/run-writer';
import { schemaFileText, schemaOf } from '../manifest/table-schemas';
import type { PlannedRun } from '../run/run';
import { RUNS_TABLE, RUNS_TABLE_SCHEMA, runsTableRows } from '../tables/runs-table';
import type { OutputContext, OutputFactory } from './output';
import type { StoredFile } from '../run/run-writer';

/** A table outside the registry (none today) is still written, with version 0.0. */
const UNVERSIONED = '0.0';

interface OpenFile {
  readonly upload: ObjectUpload;
  readonly nulled: () => Readonly<Record<string, number>>;
  readonly schema: TableSchema;
}

export const parquetOutput: OutputFactory = (run, context) => {
  const { definition } = run;
  const { writer } = context;
  const report = definition.name;
  const open = new Map<string, OpenFile>();
  const written = new Map<string, TableSchema>();
  const entries: ManifestTableFile[] = [];
  const rowCounts = new Map<string, number>();
  const openTable = async (table: TableDefinition, contract: TableSchema | undefined): Promise<ParquetSink> => {
    // Loaded when a run writes Parquet (most write none), as the workbook's and the PDF's renderers.
    const { openParquetSink } = await import('../../render/parquet/parquet-sink');
    const key = stagedTableKey(report, table.name, run.runId);
    const upload = await writer.openUpload(key, { contentType: PARQUET_FORMAT.contentType, downloadName: `${report}-${table.name}.parquet` });
    const sink = openParquetSink(table, upload.stream, { runId: run.runId, exportedAt: context.exportedAt, schemaVersion: contract?.version ?? UNVERSIONED });
    open.set(table.name, { upload, nulled: sink.nulledValues, schema: contract ?? sink.schema });
    return sink;
  };
  const finishTable = async (table: string, rows: number): Promise<{ stored: StoredFile[] }> => {
    const file = open.get(table)!;
    open.delete(table);
    const { entry, staged } = await tableFileEntry(run, context, table, rows, file);
    written.set(table, file.schema);
    entries.push(entry);
    // Verified where it is staged; the run's publishing checks the copy again.
    return { stored: [{ ...entry, key: staged }] };
  };
  return Promise.resolve({
    async openTable(table) {
      return openTable(table, schemaOf(table.name, context.datasets));
    },
    async finishTable(table, rows) {
      rowCounts.set(table, rows);
      return finishTable(table, rows);
    },
    async finishRun() {
      // Staged after every other table, so it is also the last copy the run's publishing makes.
      const stored = rowCounts.size === 0 ? [] : (await finishTable(RUNS_TABLE.name, await writeRunsTable(await openTable(RUNS_TABLE, RUNS_TABLE_SCHEMA), rowCounts, context.clock()))).stored;
      const schemaChanges = await publishSchemas(writer, report, written, context.log);
      return { stored, fields: { tables: entries, schemas: Object.fromEntries(written), schemaChanges } };
    },
  });
};

/** Writes the run's rows of the `runs` table (one per table it published); resolves with their number. */
async function writeRunsTable(sink: ParquetSink, rowCounts: ReadonlyMap<string, number>, publishedAt: Date): Promise<number> {
  for (const row of runsTableRows(rowCounts, publishedAt)) await sink.writeRow(row);
  return sink.close();
}

/**
 * Waits for the table's staged file to be stored, records its copy for the run's publishing, and
 * returns its manifest entry (the path it is published at) and the staged key.
 */
async function tableFileEntry(
  run: PlannedRun,
  context: OutputContext,
  table: string,
  rows: number,
  file: OpenFile,
): Promise<{ entry: ManifestTableFile; staged: string }> {
  const report = run.definition.name;
  const relative = (key: string) => key.slice(report.length + 1);
  const object = await context.writer.stored(file.upload, rows);
  const published = tableFileKey(report, table, context.runDate, run.definition.timeZone, run.runId);
  context.writer.stageTable(object, published, rows);
  const nulled = file.nulled();
  if (Object.keys(nulled).length > 0) {
    // The CSV keeps such a value as text; Parquet cannot put text into a DATE or DOUBLE column.
    context.log.warn('values that do not fit their column type were written as null in Parquet', { table, nulled });
  }
  const entry: ManifestTableFile = {
    table,
    path: relative(published),
    format: PARQUET_FORMAT.name,
    contentType: PARQUET_FORMAT.contentType,
    bytes: object.bytes,
    sha256: object.sha256,
    rows,
    schemaVersion: file.schema.version,
    schemaPath: relative(tableSchemaKey(report, table)),
    ...(Object.keys(nulled).length > 0 && { nulledValues: { ...nulled } }),
  };
  return { entry, staged: object.key };
}

/**
 * Writes `_schema.json` of every table of the run (once all files are stored) and returns how each
 * differs from the one it replaces, if it does.
 */
async function publishSchemas(writer: RunWriter, report: string, written: ReadonlyMap<string, TableSchema>, log: Log): Promise<SchemaChangeEntry[]> {
  const changes: SchemaChangeEntry[] = [];
  for (const [table, schema] of written) {
    const previous = await readPublished(writer.storage, tableSchemaKey(report, table));
    const change = previous && previous.version !== schema.version ? classifySchemaChange(previous, schema) : undefined;
    if (change && change.kind !== 'none') {
      changes.push({
        table, kind: change.kind, from: previous!.version, to: schema.version, added: [...change.added],
        removed: change.kind === 'breaking' ? [...change.removed] : [], retyped: change.kind === 'breaking' ? [...change.retyped] : [],
      });
      log.warn('table schema changed', { table, kind: change.kind, from: previous!.version, to: schema.version });
    }
    await writer.putShared(tableSchemaKey(report, table), schemaFileText(schema));
  }
  return changes;
}

/** The schema published before this run, or undefined when there is none (or it is unreadable). */
async function readPublished(storage: Storage, key: string): Promise<TableSchema | undefined> {
  const bytes = await storage.getObject(key);
  if (!bytes) return undefined;
  try {
    const parsed = tableSchemaSchema.safeParse(JSON.parse(Buffer.from(bytes).toString('utf8')));
    return parsed.success ? parsed.data : undefined;
  } catch {
    // Not JSON: treated as absent; this run's schema replaces it.
    return undefined;
  }
}
