/**
 * Parquet schema elements for the machine schema of a table (shared/table/schema.ts): the physical
 * type and the logical annotation every reader understands (Athena/Hive, Spark, DuckDB, pyarrow).
 * Both the legacy converted_type and the logical_type are set where they exist, because older
 * Hive-based readers look only at the former.
 */
import type { SchemaElement } from 'hyparquet-writer';
import type { SchemaColumn, SchemaType } from '../../table/schema';

type Leaf = Omit<SchemaElement, 'name' | 'repetition_type'>;

const LEAVES: Readonly<Record<Exclude<SchemaType, 'array<string>'>, Leaf>> = {
  string: { type: 'BYTE_ARRAY', converted_type: 'UTF8', logical_type: { type: 'STRING' } },
  // Plain INT64 is a signed 64-bit integer by definition; hyparquet-writer 0.17 writes the INTEGER
  // logical type in a form DuckDB rejects (TProtocolException), so no annotation.
  bigint: { type: 'INT64' },
  double: { type: 'DOUBLE' },
  boolean: { type: 'BOOLEAN' },
  date: { type: 'INT32', converted_type: 'DATE', logical_type: { type: 'DATE' } },
  // Milliseconds since the epoch, UTC: what a JavaScript Date holds, so nothing is rounded.
  timestamp: { type: 'INT64', converted_type: 'TIMESTAMP_MILLIS', logical_type: { type: 'TIMESTAMP', isAdjustedToUTC: true, unit: 'MILLIS' } },
};

/** The schema elements of one column: one leaf, or the three-level LIST group of the Parquet spec. */
export function parquetElements(column: SchemaColumn): SchemaElement[] {
  const repetition_type = column.nullable ? 'OPTIONAL' : 'REQUIRED';
  if (column.type === 'array<string>') {
    return [
      { name: column.name, repetition_type, converted_type: 'LIST', logical_type: { type: 'LIST' }, num_children: 1 },
      { name: 'list', repetition_type: 'REPEATED', num_children: 1 },
      { name: 'element', repetition_type: 'REQUIRED', ...LEAVES.string },
    ];
  }
  return [{ name: column.name, repetition_type, ...LEAVES[column.type] }];
}

export function parquetSchema(columns: readonly SchemaColumn[]): SchemaElement[] {
  return [{ name: 'schema', num_children: columns.length }, ...columns.flatMap(parquetElements)];
}
