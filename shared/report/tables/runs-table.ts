/**
 * The `runs` table (docs/downstream.md, "Complete runs"): one row per table of each published run,
 * with the rows that table holds for the run. Its file is the last a run copies into the table
 * prefixes (table-publish.ts), as dlt writes `_dlt_loads` after a load's tables: a run is listed here
 * only once every other table holds it completely, so joining it tells complete runs from a run whose
 * copies are being made (or were cut off and are rolled forward by the report's next run).
 *
 * One row per (run, table) rather than a map or struct column: Athena and DuckDB join and filter
 * plain typed columns without unnesting, `WHERE table_name = 'risks'` reads one small column, and a
 * report whose tables change between runs needs no schema change here.
 */
import { tableSchema, type TableSchema } from '../../table/schema';
import type { TableDefinition, TableRow } from '../../table/table';

export const RUNS_TABLE_NAME = 'runs';

/** A new column bumps MINOR, a removed or retyped one MAJOR (docs/downstream.md, "Schema files"). */
const RUNS_TABLE_VERSION = '1.0';

export const RUNS_TABLE: TableDefinition = {
  name: RUNS_TABLE_NAME,
  title: 'Runs',
  columns: [
    { key: 'table_name', type: 'text', description: 'A table the run published (`risks`, `board-items`, …; `runs` itself is not listed)' },
    { key: 'row_count', type: 'integer', description: 'Rows that table holds for the run (its `part-00000.parquet`)' },
    {
      key: 'published_at',
      type: 'datetime',
      description: "When the run's tables were complete and its publishing began (UTC); the row is readable only once every table of the run is in place",
    },
  ],
};

/** The machine schema of `runs`, published as every table's is (`_schema.json`, schemas/runs.json). */
export const RUNS_TABLE_SCHEMA: TableSchema = tableSchema(RUNS_TABLE_NAME, RUNS_TABLE_VERSION, RUNS_TABLE.columns);

/** The rows of one run: each table it published, in the order written, with its row count. */
export function runsTableRows(rows: ReadonlyMap<string, number>, publishedAt: Date): TableRow[] {
  return [...rows].map(([table, count]) => ({ values: [table, count, publishedAt] }));
}
