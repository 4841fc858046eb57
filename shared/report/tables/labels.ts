import { isIdentifier } from '../../table/column-spec';
import type { Column, TableDefinition } from '../../table/table';

/**
 * Words for people: the sheet names of the workbook. Column headers for people are part of each
 * column's spec (tables/*.ts); the snake_case keys stay the contract of the CSV and machine formats.
 */

/** Sheet names by table name (Excel allows 31 characters and no `[]:*?/\`). */
export const SHEET_TITLES: Readonly<Record<string, string>> = {
  risks: 'Risks',
  'strategic-themes': 'Strategic themes',
  okrs: 'OKRs',
  'pi-objectives': 'PI objectives',
  'pi-objective-items': 'PI objective items',
  'board-items': 'Board items',
};

/**
 * A column as the workbook presents it. Labels and presentation flags are set where each column is
 * defined (the table's column specs); a column defined without them (a custom field, the Changes
 * sheet) keeps the one-line rule for identifiers.
 */
export function labelColumn(column: Column): Column {
  return column.type === 'text' && column.nowrap === undefined && isIdentifier(column.key) ? { ...column, nowrap: true } : column;
}

/** A table definition as the workbook should present it: sheet title and labelled columns. */
export function labelled(table: TableDefinition): TableDefinition {
  const title = table.title ?? SHEET_TITLES[table.name];
  return {
    ...table,
    ...(title !== undefined && { title }),
    columns: table.columns.map(labelColumn),
  };
}
