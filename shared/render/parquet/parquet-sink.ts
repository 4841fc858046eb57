/**
 * Parquet renderer (hyparquet-writer; the choice and its measurements are in the README's library
 * choices and docs/benchmarks.md). Rows are buffered column-wise up to one row group, which is then
 * encoded, snappy-compressed and written to `out` with backpressure, so memory is bounded by one row
 * group whatever the table's size.
 *
 * Values are raw, for machines (docs/downstream.md): no formula neutralising, no cell-length cut,
 * lists as LIST<string>, percent as a fraction, dates as DATE, date-times as UTC TIMESTAMP.
 */
import type { Writable } from 'node:stream';
import { ByteWriter, ParquetWriter } from 'hyparquet-writer';
import { SinkLifecycle } from '../sink-lifecycle';
import { tableSchema, type SchemaType, type TableSchema } from '../../table/schema';
import { isTextList, listText, type CellValue, type TableDefinition, type TableRow, type TableSink } from '../../table/table';
import { parquetSchema } from './parquet-schema';
import { DAY_MS } from '../../core/clock';

export interface ParquetOptions {
  /** Written into every row's run_id column and the file's key-value metadata. */
  readonly runId: string;
  /** Written into every row's exported_at column. */
  readonly exportedAt: Date;
  /** Version of the table's schema contract (shared/report/manifest/table-schemas.ts), recorded in the file. */
  readonly schemaVersion: string;
  /** A row group ends after this many rows ... */
  readonly rowGroupRows?: number;
  /** ... or once its text reaches this many UTF-16 units, whichever comes first (bounds memory for long texts). */
  readonly rowGroupChars?: number;
}

/**
 * 10,000 board-item rows are ~5 MB of text before encoding. Measured at 300,000 rows
 * (docs/benchmarks.md, "Parquet"): peak RSS ~165 MB with groups of 10,000, ~225 MB with 20,000 and
 * ~245 MB with 50,000, for files within a few percent of each other; Athena, Spark and DuckDB read
 * groups of this size without trouble.
 */
export const DEFAULT_ROW_GROUP_ROWS = 10_000;
export const DEFAULT_ROW_GROUP_CHARS = 8 * 1024 * 1024;

export interface ParquetSink extends TableSink {
  /** The schema the file was written with (the table's columns, then run_id and exported_at). */
  readonly schema: TableSchema;
  /** Values that did not fit their column's type (e.g. a date the API sent in an unknown format), written as null. */
  readonly nulledValues: () => Readonly<Record<string, number>>;
}

type Convert = (value: CellValue) => unknown;
const MISMATCH = Symbol('mismatch');

function textOf(value: CellValue): string | typeof MISMATCH {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? MISMATCH : value.toISOString();
  if (isTextList(value)) return listText(value);
  // A link: the URL is what a machine needs; its text is in a neighbouring column.
  return (value as { url: string }).url;
}

/** Converters from a cell value to what hyparquet-writer encodes for the column's type. */
function converter(type: SchemaType, percent: boolean): Convert {
  switch (type) {
    case 'string':
      return textOf;
    case 'bigint':
      return (v) => (typeof v === 'number' && Number.isSafeInteger(v) ? BigInt(v) : MISMATCH);
    case 'double':
      return (v) => (typeof v === 'number' && Number.isFinite(v) ? (percent ? v / 100 : v) : MISMATCH);
    case 'boolean':
      return (v) => (typeof v === 'boolean' ? v : MISMATCH);
    case 'date':
      // Calendar dates are carried at 00:00 UTC (table.ts): whole days since the epoch.
      return (v) => (v instanceof Date && !Number.isNaN(v.getTime()) ? Math.floor(v.getTime() / DAY_MS) : MISMATCH);
    case 'timestamp':
      return (v) => (v instanceof Date && !Number.isNaN(v.getTime()) ? BigInt(v.getTime()) : MISMATCH);
    case 'array<string>':
      return (v) => (isTextList(v) ? [...v] : typeof v === 'string' ? [v] : MISMATCH);
  }
}

/** A ByteWriter that hands each finished row group to a Node stream and starts over. */
class StreamWriter extends ByteWriter {
  constructor(private readonly drain: (chunk: Buffer) => Promise<void> | void) {
    super(1024 * 1024);
  }
  flush(): Promise<void> | void {
    if (this.index === 0) return;
    // A copy: the buffer is reused for the next row group while the stream may still hold the chunk.
    const chunk = Buffer.from(new Uint8Array(this.buffer, 0, this.index));
    this.index = 0;
    return this.drain(chunk);
  }
}

/**
 * Opens a Parquet sink for one table on `out`, with the table's published schema (`schemaVersion`)
 * plus the run's `run_id` and `exported_at` columns. Rows are buffered into row groups bounded by
 * rows and text size; values a column type cannot hold are written as null and counted.
 */
export function openParquetSink(table: TableDefinition, out: Writable, options: ParquetOptions): ParquetSink {
  const schema = tableSchema(table.name, options.schemaVersion, table.columns);
  const dataColumns = schema.columns.slice(0, table.columns.length);
  const converters = dataColumns.map((c, i) => converter(c.type, table.columns[i]!.type === 'percent'));
  const rowGroupRows = options.rowGroupRows ?? DEFAULT_ROW_GROUP_ROWS;
  const rowGroupChars = options.rowGroupChars ?? DEFAULT_ROW_GROUP_CHARS;
  const runId = options.runId;
  const exportedAt = BigInt(options.exportedAt.getTime());
  const nulled: Record<string, number> = {};

  const life = new SinkLifecycle(out, `the Parquet file of "${table.name}"`);
  const writer = new StreamWriter((chunk) => life.write(chunk));
  const parquet = new ParquetWriter({
    writer,
    schema: parquetSchema(schema.columns),
    codec: 'SNAPPY',
    createdBy: 'planning-report-exporter',
    // Statistics of long texts cost time and say little; 64 bytes keeps min/max useful for keys and ids.
    statisticsTruncateLength: 64,
    kvMetadata: [
      { key: 'table', value: table.name },
      { key: 'schema_version', value: options.schemaVersion },
      { key: 'run_id', value: runId },
    ],
  });

  let columns: unknown[][] = dataColumns.map(() => []);
  let buffered = 0;
  let bufferedChars = 0;
  let rows = 0;

  const writeGroup = (): Promise<void> | void => {
    if (buffered === 0) return;
    const n = buffered;
    const columnData = [
      ...dataColumns.map((c, i) => ({ name: c.name, data: columns[i]! })),
      { name: 'run_id', data: new Array<string>(n).fill(runId) },
      { name: 'exported_at', data: new Array<bigint>(n).fill(exportedAt) },
    ];
    columns = dataColumns.map(() => []);
    buffered = 0;
    bufferedChars = 0;
    return parquet.write({ columnData, rowGroupSize: n });
  };

  const push = (row: TableRow) => {
    const values = row.values;
    for (let i = 0; i < converters.length; i++) {
      const value = values[i];
      let converted: unknown = null;
      if (value !== null && value !== undefined) {
        converted = converters[i]!(value);
        if (converted === MISMATCH) {
          const name = dataColumns[i]!.name;
          nulled[name] = (nulled[name] ?? 0) + 1;
          converted = null;
        } else if (typeof converted === 'string') {
          bufferedChars += converted.length;
        }
      }
      columns[i]!.push(converted);
    }
    buffered += 1;
    rows += 1;
  };

  return {
    schema,
    nulledValues: () => ({ ...nulled }),
    writeRow(row: TableRow): Promise<void> | void {
      life.checkWritable();
      push(row);
      if (buffered >= rowGroupRows || bufferedChars >= rowGroupChars) return writeGroup();
    },
    async close(): Promise<number> {
      await life.close(async () => {
        await writeGroup();
        // The footer (metadata) is appended to the writer's buffer; the last flush sends it.
        await parquet.finish();
        await writer.flush();
      });
      return rows;
    },
  };
}
