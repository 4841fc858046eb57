/**
 * The formats registry: what each value of a definition's `formats` is. The definition schema's
 * `formats`, the manifest's `format` of a file, the content types, and how a file is named for
 * people (the e-mail's file list, the run page) all derive from FORMATS; what writes a format is its
 * entry in FORMAT_OUTPUTS (outputs/index.ts), which the compiler asks for. This module imports
 * nothing, so the definition and manifest schemas (and names.ts, which the run page and the e-mail
 * name files with) read it without loading a renderer.
 */

export interface ReportFormat<N extends string = string> {
  /** The definition's `formats` value, and a file's `format` in the manifest. */
  readonly name: N;
  readonly contentType: string;
  /** The format in a word, beside a file's size for people: "Excel, 312 KiB". */
  readonly kind: string;
  /** Where the manifest lists its files: `files` (the run folder, for people) or `tables` (machine tables). */
  readonly listed: 'files' | 'tables';
  /** The file people open first: the e-mail's button, the run page's first download (one format at most). */
  readonly primary?: true;
  /**
   * What a file holds, for people: "Workbook", or the title of the table it holds. `rows` is the
   * file's manifest entry (tables by name); `titleOf` names a table for people.
   */
  label(rows: Readonly<Record<string, number>>, titleOf: (table: string) => string): string;
}

/** The label of a file that holds one table (a CSV, a Parquet file): the table's title. */
export const tableLabel = (rows: Readonly<Record<string, number>>, titleOf: (table: string) => string): string =>
  titleOf(Object.keys(rows)[0] ?? '');

export const XLSX_FORMAT: ReportFormat<'xlsx'> = {
  name: 'xlsx',
  contentType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  kind: 'Excel',
  listed: 'files',
  primary: true,
  label: () => 'Workbook',
};

/** The Summary and the Trends on the locale's paper (A4, Letter in the US and Canada) for a meeting (shared/render/pdf/). */
export const PDF_FORMAT: ReportFormat<'pdf'> = { name: 'pdf', contentType: 'application/pdf', kind: 'PDF', listed: 'files', label: () => 'Summary and trends' };

export const CSV_FORMAT: ReportFormat<'csv'> = { name: 'csv', contentType: 'text/csv; charset=utf-8', kind: 'CSV', listed: 'files', label: tableLabel };

export const PARQUET_FORMAT: ReportFormat<'parquet'> = {
  name: 'parquet',
  contentType: 'application/vnd.apache.parquet',
  kind: 'Parquet',
  listed: 'tables',
  label: tableLabel,
};

export const FORMATS = [XLSX_FORMAT, PDF_FORMAT, CSV_FORMAT, PARQUET_FORMAT] as const;

/** A definition's `formats` value: the one place the formats' names are a type. */
export type FormatName = (typeof FORMATS)[number]['name'];

/** A registered format by name (the formats of a run, by default the registry's). */
export function formatOf(name: string, formats: readonly ReportFormat[] = FORMATS): ReportFormat | undefined {
  return formats.find((f) => f.name === name);
}

/** The names of formats, as zod's enum wants them: at least one. */
export function formatNames<N extends string>(formats: readonly ReportFormat<N>[]): [N, ...N[]] {
  const [first, ...rest] = formats.map((f) => f.name);
  if (first === undefined) throw new Error('a registry without formats');
  return [first, ...rest];
}
