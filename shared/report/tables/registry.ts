/**
 * The tables registry: every dataset a definition can name, with its tables, in export order. Sheet
 * titles, the table contracts (schemas/, docs/tables.md), change rules, the selectors a caller may
 * narrow and the order runExport writes datasets in all derive from it. Adding a table is one file
 * that exports its DatasetEntry (see risks.ts) and one entry in DATASETS; a new dataset also gets its
 * options in the definition schema (definition.ts). Functions that derive from the list take it as
 * an argument with DATASETS as the default, so a test can run an export with one more entry.
 */
import type { DatasetEntry, TableEntry } from '../dataset/dataset';
import { BOARD_ITEMS_DATASET } from './board-items';
import { OKRS_DATASET } from './okrs';
import { PI_OBJECTIVES_DATASET } from './pi-objectives';
import { RISKS_DATASET } from './risks';

export const DATASETS: readonly DatasetEntry[] = [RISKS_DATASET, OKRS_DATASET, PI_OBJECTIVES_DATASET, BOARD_ITEMS_DATASET];

/** Every table of the registry, in export order. */
export function tablesOf(datasets: readonly DatasetEntry[] = DATASETS): TableEntry[] {
  return datasets.flatMap((d) => d.tables);
}

export function tableEntry(table: string, datasets: readonly DatasetEntry[] = DATASETS): TableEntry | undefined {
  return tablesOf(datasets).find((t) => t.name === table);
}

export function datasetEntry(dataset: string, datasets: readonly DatasetEntry[] = DATASETS): DatasetEntry | undefined {
  return datasets.find((d) => d.name === dataset);
}

/** The datasets a definition names (its `datasets`, parsed or as written), in export order. */
export function datasetsOf(named: object, datasets: readonly DatasetEntry[] = DATASETS): DatasetEntry[] {
  return datasets.filter((d) => (named as Readonly<Record<string, unknown>>)[d.name] !== undefined);
}
