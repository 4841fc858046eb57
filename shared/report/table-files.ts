/**
 * The machine layout of a run (docs/downstream.md): one Parquet file per table under the table's own
 * prefix, `<report>/tables/<table>/dt=<day>/run=<runId>/part-00000.parquet`, next to (not inside) the
 * human run folder, so one Glue/Athena/DuckDB table spans every run. runExport opens one sink per
 * table here, and records the file and the table's schema for the manifest.
 */
import { StorageError } from '../core/errors';
import type { Log } from '../core/logger';
import { openParquetSink } from '../render/parquet/parquet-sink';
import type { ObjectUpload, Storage, StoredObject } from '../storage/storage';
import { classifySchemaChange, type TableSchema } from '../table/schema';
import type { TableDefinition, TableSink } from '../table/table';
import { CONTENT_TYPES, tableFileKey, tableSchemaKey } from './layout';
import { tableSchemaSchema, type ManifestTableFile, type SchemaChangeEntry } from './manifest';
import { schemaFileText, schemaOf } from './table-schemas';

export interface TableFilesOptions {
  readonly storage: Storage;
  readonly report: string;
  readonly runId: string;
  readonly runDate: Date;
  readonly timeZone: string;
  readonly exportedAt: Date;
  /** Object metadata of every file of the run (report, run id). */
  readonly metadata: Readonly<Record<string, string>>;
  readonly log: Log;
  /** runExport's bookkeeping, so a failed run aborts and removes these files with the rest. */
  readonly track: (upload: ObjectUpload) => void;
  readonly stored: (upload: ObjectUpload) => Promise<StoredObject>;
}

export interface TableFiles {
  /** A sink for the table's Parquet file; its upload is tracked for clean-up. */
  open(table: TableDefinition): TableSink;
  /** After the sink is closed: waits for the upload and returns its manifest entry. */
  finish(table: string, rows: number): Promise<ManifestTableFile>;
  /**
   * Writes `_schema.json` of every table of the run (call once all files are stored) and returns how
   * each differs from the one it replaces, if it does.
   */
  publishSchemas(): Promise<SchemaChangeEntry[]>;
  /** The contract schema of every table of the run, for the manifest. */
  schemas(): Record<string, TableSchema>;
}

/** A table outside the contract (none today) is still written, with version 0.0. */
const UNVERSIONED = '0.0';

export function openTableFiles(options: TableFilesOptions): TableFiles {
  const open = new Map<string, { upload: ObjectUpload; key: string; nulled: () => Readonly<Record<string, number>>; schema: TableSchema }>();
  const written = new Map<string, TableSchema>();
  const relative = (key: string) => key.slice(options.report.length + 1);

  return {
    open(table) {
      const key = tableFileKey(options.report, table.name, options.runDate, options.timeZone, options.runId);
      const upload = options.storage.openUpload(key, {
        contentType: CONTENT_TYPES.parquet,
        downloadName: `${options.report}-${table.name}.parquet`,
        metadata: options.metadata,
      });
      options.track(upload);
      const contract = schemaOf(table.name);
      const sink = openParquetSink(table, upload.stream, {
        runId: options.runId,
        exportedAt: options.exportedAt,
        schemaVersion: contract?.version ?? UNVERSIONED,
      });
      open.set(table.name, { upload, key, nulled: sink.nulledValues, schema: contract ?? sink.schema });
      return sink;
    },
    async finish(table, rows) {
      const entry = open.get(table);
      if (!entry) throw new StorageError(`No Parquet file was opened for table "${table}"`);
      open.delete(table);
      const object = await options.stored(entry.upload);
      await options.storage.annotate(entry.key, { ...options.metadata, rows: String(rows) });
      const nulled = entry.nulled();
      if (Object.keys(nulled).length > 0) {
        // The CSV keeps such a value as text; Parquet cannot put text into a DATE or DOUBLE column.
        options.log.warn('values that do not fit their column type were written as null in Parquet', { table, nulled });
      }
      written.set(table, entry.schema);
      return {
        table,
        path: relative(object.key),
        format: 'parquet',
        contentType: CONTENT_TYPES.parquet,
        bytes: object.bytes,
        sha256: object.sha256,
        rows,
        schemaVersion: entry.schema.version,
        schemaPath: relative(tableSchemaKey(options.report, table)),
        ...(Object.keys(nulled).length > 0 && { nulledValues: { ...nulled } }),
      };
    },
    async publishSchemas() {
      const changes: SchemaChangeEntry[] = [];
      for (const [table, schema] of written) {
        const previous = await readPublished(options.storage, tableSchemaKey(options.report, table));
        const change = previous && previous.version !== schema.version ? classifySchemaChange(previous, schema) : undefined;
        if (change && change.kind !== 'none') {
          changes.push({
            table, kind: change.kind, from: previous!.version, to: schema.version, added: [...change.added],
            removed: change.kind === 'breaking' ? [...change.removed] : [], retyped: change.kind === 'breaking' ? [...change.retyped] : [],
          });
          options.log.warn('table schema changed', { table, kind: change.kind, from: previous!.version, to: schema.version });
        }
        await options.storage.putObject(tableSchemaKey(options.report, table), schemaFileText(schema), {
          contentType: CONTENT_TYPES.json,
        });
      }
      return changes;
    },
    schemas() {
      return Object.fromEntries(written);
    },
  };
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
