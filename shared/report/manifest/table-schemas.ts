/**
 * The schema contract of every table, from the column definitions that also generate docs/tables.md.
 * The committed files under schemas/ are the published contract (regenerate with
 * `npx tsx scripts/table-docs.ts`); a table's version is in its registry entry (tables/registry.ts).
 */
import { tableSchema, type TableSchema } from '../../table/schema';
import type { DatasetEntry, TableEntry } from '../dataset/dataset';
import { DATASETS, tableEntry, tablesOf } from '../tables/registry';
import { RUNS_TABLE_SCHEMA } from '../tables/runs-table';

/** The planning data's tables, then `runs`, which lists the runs every other table holds completely. */
export const TABLE_SCHEMAS: readonly TableSchema[] = [...tablesOf().map(contractOf), RUNS_TABLE_SCHEMA];

function contractOf(table: TableEntry): TableSchema {
  return tableSchema(table.name, table.contract.version, table.contract.columns);
}

/** The published schema of a table by name, or undefined for a table without one. */
export function schemaOf(table: string, datasets: readonly DatasetEntry[] = DATASETS): TableSchema | undefined {
  const entry = tableEntry(table, datasets);
  return entry && contractOf(entry);
}

/** The text of a committed or published schema file: stable, diff-friendly JSON. */
export function schemaFileText(schema: TableSchema): string {
  return `${JSON.stringify(schema, null, 2)}\n`;
}
