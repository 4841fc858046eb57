/**
 * The schema contract of every table, from the column definitions that also generate docs/tables.md.
 * The committed files under schemas/ are the published contract (regenerate with
 * `npx tsx scripts/table-docs.ts`); bump a table's version here when its columns change: MINOR for
 * added columns, MAJOR for removed or retyped ones (test/shared/report/table-schemas.test.ts checks it).
 */
import { tableSchema, type TableSchema } from '../table/schema';
import type { Column } from '../table/table';
import type { DatasetName } from './definition';
import { BOARD_ITEM_COLUMNS } from './tables/board-items';
import { OKR_COLUMNS, STRATEGIC_THEME_COLUMNS } from './tables/okrs';
import { PI_OBJECTIVE_COLUMNS, piObjectiveItemColumns } from './tables/pi-objectives';
import { RISK_COLUMNS } from './tables/risks';

interface TableContract {
  readonly table: string;
  readonly version: string;
  readonly columns: readonly Column[];
}

const CONTRACTS: readonly TableContract[] = [
  // risks: the cf_<title> custom-field columns that follow vary with the tenant; they are written
  // (typed) but are not part of the contract.
  { table: 'risks', version: '1.0', columns: RISK_COLUMNS },
  { table: 'strategic-themes', version: '1.2', columns: STRATEGIC_THEME_COLUMNS },
  { table: 'okrs', version: '1.2', columns: OKR_COLUMNS },
  { table: 'pi-objectives', version: '1.1', columns: PI_OBJECTIVE_COLUMNS },
  // With additionalColumns off, the last four columns are absent from the file (null to a reader).
  { table: 'pi-objective-items', version: '1.2', columns: piObjectiveItemColumns(true) },
  { table: 'board-items', version: '1.2', columns: BOARD_ITEM_COLUMNS },
];

export const TABLE_SCHEMAS: readonly TableSchema[] = CONTRACTS.map((c) => tableSchema(c.table, c.version, c.columns));

/** The published schema of a table by name, or undefined for a table without one. */
export function schemaOf(table: string): TableSchema | undefined {
  return TABLE_SCHEMAS.find((s) => s.table === table);
}

/** The text of a committed or published schema file: stable, diff-friendly JSON. */
export function schemaFileText(schema: TableSchema): string {
  return `${JSON.stringify(schema, null, 2)}\n`;
}

/** The tables each dataset of a definition produces (for Glue tables and docs). */
export const DATASET_TABLES: Readonly<Record<DatasetName, readonly string[]>> = {
  risks: ['risks'],
  okrs: ['strategic-themes', 'okrs'],
  piObjectives: ['pi-objectives', 'pi-objective-items'],
  boardItems: ['board-items'],
};

/** Tables a definition (input form: datasets named) writes, in export order. */
export function tablesOfDatasets(datasets: Readonly<Partial<Record<DatasetName, unknown>>>): string[] {
  return (Object.keys(DATASET_TABLES) as DatasetName[]).filter((d) => datasets[d] !== undefined).flatMap((d) => DATASET_TABLES[d]);
}
