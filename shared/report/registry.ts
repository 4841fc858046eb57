/**
 * The registries of the exporter, as one value a run, its e-mail and its run page take: the tables
 * (tables/registry.ts), the formats (formats.ts) and what writes each format (outputs/index.ts).
 * Production code uses REGISTRY; a test adds a table or a format by handing over a copy with one
 * more entry, so every list derived from them (schemas, titles, outputs, file labels) follows.
 */
import { CHANGES_TABLE } from './changes/model';
import { CHANGES_SHEET_NAME } from './changes/sheet';
import type { DatasetEntry } from './dataset/dataset';
import { FORMATS, formatOf } from './definition/formats';
import { FORMAT_OUTPUTS, type FormatOutputs } from './outputs/index';
import { DATASETS, tableEntry } from './tables/registry';

export interface Registry extends FormatOutputs {
  readonly datasets: readonly DatasetEntry[];
}

export const REGISTRY: Registry = { datasets: DATASETS, formats: FORMATS, outputs: FORMAT_OUTPUTS };

/**
 * A table for people: its title ("PI objective items"); the changes (not a dataset's table) are named
 * like the workbook's sheet; an unknown table keeps its name.
 */
export function tableTitle(table: string, registry: Registry = REGISTRY): string {
  return tableEntry(table, registry.datasets)?.title ?? (table === CHANGES_TABLE.name ? CHANGES_SHEET_NAME : table);
}

/** A file of the run folder as people see it listed (the e-mail, the run page). */
export interface FileForPeople {
  /** What it holds: "Workbook", or the title of its table. */
  readonly label: string;
  /** Its format in a word: "Excel", "CSV". */
  readonly kind: string;
  /** The file people open first (the workbook). */
  readonly primary: boolean;
}

/** How a manifest's file is shown to people, from its format's entry; a format the registry lacks shows its name. */
export function fileForPeople(file: { readonly format: string; readonly rows: Readonly<Record<string, number>> }, registry: Registry = REGISTRY): FileForPeople {
  const format = formatOf(file.format, registry.formats);
  const titleOf = (table: string) => tableTitle(table, registry);
  return format
    ? { label: format.label(file.rows, titleOf), kind: format.kind, primary: format.primary === true }
    : { label: file.format, kind: file.format, primary: false };
}
