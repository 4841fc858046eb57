import { isIdentifier } from '../../table/column-spec';
import type { Column, TableDefinition } from '../../table/table';
import type { DatasetEntry } from '../dataset/dataset';
import { DATASETS, tableEntry } from './registry';
import type { Messages } from '../../core/i18n/messages';
import { columnLabel, tableSheetName } from '../sheet-names';

/**
 * Words for people: a table's sheet name is its title in the registry (tables/registry.ts); column
 * headers for people are part of each column's spec (tables/*.ts); the snake_case keys stay the
 * contract of the CSV and machine formats.
 */

/**
 * A column as the workbook presents it. Labels and presentation flags are set where each column is
 * defined (the table's column specs); a column defined without them (a custom field, the Changes
 * sheet) keeps the one-line rule for identifiers.
 */
export function labelColumn(column: Column): Column {
  return column.type === 'text' && column.nowrap === undefined && isIdentifier(column.key) ? { ...column, nowrap: true } : column;
}

/**
 * A table definition as the workbook should present it: sheet title and labelled columns, in the
 * report's language when `messages` are given (the keys stay the CSV's and Parquet's snake_case).
 */
export function labelled(table: TableDefinition, datasets: readonly DatasetEntry[] = DATASETS, messages?: Messages): TableDefinition {
  const english = table.title ?? tableEntry(table.name, datasets)?.title;
  const title = english !== undefined && messages ? tableSheetName(table.name, english, messages) : english;
  const inWords = (c: Column): Column => (messages && c.label !== undefined ? { ...c, label: columnLabel(c.label, messages) } : c);
  return {
    ...table,
    ...(title !== undefined && { title }),
    columns: table.columns.map((c) => inWords(labelColumn(c))),
  };
}
