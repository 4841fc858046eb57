/**
 * The tables and formats by name, as people see them: a table's title, what a file holds and its
 * format in a word. No writer is here: the run page and the e-mail's file list (the export API's
 * function among them) name a run's files without loading exceljs, pdfkit or a font. What writes
 * each format joins these in registry.ts, which only the run imports.
 */
import { CHANGES_TABLE } from './changes/model';
import { CHANGES_SHEET_NAME } from './changes/sheet';
import type { DatasetEntry } from './dataset/dataset';
import { FORMATS, formatOf, type ReportFormat } from './manifest/formats';
import { DATASETS, tableEntry } from './tables/registry';

/** The tables (by dataset) and the formats a run knows: the production lists, or a test's with one more entry. */
export interface ReportNames {
  readonly datasets: readonly DatasetEntry[];
  readonly formats: readonly ReportFormat[];
}

export const NAMES: ReportNames = { datasets: DATASETS, formats: FORMATS };

/**
 * A table for people: its title ("PI objective items"); the changes (not a dataset's table) are named
 * like the workbook's sheet; an unknown table keeps its name.
 */
export function tableTitle(table: string, names: ReportNames = NAMES): string {
  return tableEntry(table, names.datasets)?.title ?? (table === CHANGES_TABLE.name ? CHANGES_SHEET_NAME : table);
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

/** How a manifest's file is shown to people, from its format's entry; a format the names lack shows its name. */
export function fileForPeople(file: { readonly format: string; readonly rows: Readonly<Record<string, number>> }, names: ReportNames = NAMES): FileForPeople {
  const format = formatOf(file.format, names.formats);
  const titleOf = (table: string) => tableTitle(table, names);
  return format
    ? { label: format.label(file.rows, titleOf), kind: format.kind, primary: format.primary === true }
    : { label: file.format, kind: file.format, primary: false };
}
