/**
 * The table model: the contract between datasets (which produce rows) and renderers (which write
 * them as a worksheet and as a CSV file). Column order and names are the public contract for
 * downstream jobs and are documented in docs/tables.md.
 *
 * Rows are positional arrays aligned with `columns`, not objects: at 300,000 rows the per-row
 * object allocation of keyed records is a measurable share of render time.
 */

/**
 * - text: string (may be multi-line; may be anything a user typed, including `=cmd|...`)
 * - integer / number: finite number
 * - percent: a percentage as the API gives it, 0-100 (45 means 45 %). xlsx stores 0.45 with a
 *   percent format; CSV writes 45.
 * - date: a calendar date, carried as a Date at 00:00 UTC of that day. xlsx: a date cell; CSV: YYYY-MM-DD.
 * - datetime: an instant. xlsx: a date-time cell in the report's time zone; CSV: ISO 8601 with offset.
 * - link: { text, url }. xlsx: a hyperlink; CSV: the URL (the text is in a neighbouring column).
 * - boolean: true/false.
 * - list: a list of texts, carried as a string array (null when empty). xlsx and CSV join it with
 *   LIST_SEPARATOR; Parquet keeps it a LIST<string>, so a title containing "; " stays one element.
 */
export const COLUMN_TYPES = ['text', 'integer', 'number', 'percent', 'date', 'datetime', 'link', 'boolean', 'list'] as const;
export type ColumnType = (typeof COLUMN_TYPES)[number];

/** How a list is written into one spreadsheet or CSV cell; `; ` because titles often contain commas. */
export const LIST_SEPARATOR = '; ';

/** True for a `list` column's value (several texts in one cell); every other cell value is scalar. */
export function isTextList(value: CellValue): value is readonly string[] {
  return Array.isArray(value);
}

/** True for a link cell value (its text and address); the other object values are dates and lists. */
export function isLink(value: CellValue): value is LinkValue {
  return typeof value === 'object' && value !== null && !(value instanceof Date) && !isTextList(value);
}

/** Only http(s) addresses lead out of the workbook: `#'Sheet'!A1` points into it, anything else is unsafe. */
export function isWebUrl(url: string): boolean {
  return /^https?:\/\//i.test(url);
}

/** Where a link leads outside the workbook (the item's page in the planning tool, else its own address), or undefined. */
export function webUrlOf(link: LinkValue): string | undefined {
  const url = link.web ?? link.url;
  return isWebUrl(url) ? url : undefined;
}

/** The one-cell text of a list value. */
export function listText(values: readonly string[]): string {
  return values.join(LIST_SEPARATOR);
}

export interface Column {
  /** Stable machine name, used as the CSV header and worksheet header. snake_case. */
  readonly key: string;
  readonly type: ColumnType;
  /** One line for docs/tables.md. */
  readonly description: string;
  /** Preferred width in characters for the worksheet; the renderer picks one by type when absent. */
  readonly width?: number;
  /** Header for people (the workbook); the key stays the machine header (CSV). Set from tables/labels.ts. */
  readonly label?: string;
  /** Kept for the contract but hidden in the workbook (internal ids, colour codes); a reader can unhide it. */
  readonly hidden?: boolean;
  /** Workbook: kept on one line, never wrapped (ids and keys). */
  readonly nowrap?: boolean;
  /** Workbook: indented by the row's outline level (titles of a hierarchy). */
  readonly indentByLevel?: boolean;
  /**
   * Workbook: free text that runs to sentences or paragraphs (a description, mitigation actions,
   * notes). The sheet places these after the short columns, so a table printed across pages keeps
   * its short facts together and its long text on the last pages; the CSV, Parquet and snapshots
   * keep the contract's order.
   */
  readonly longText?: boolean;
  /**
   * Workbook: how people read a coded text value (`InProgress` → "In progress"). The CSV, Parquet
   * and snapshots keep the value as the API sends it, so programs and comparisons see no change.
   */
  readonly inWords?: (text: string) => string;
}

export interface LinkValue {
  readonly text: string;
  readonly url: string;
  /**
   * Where the item lives on the web, when `url` points inside the workbook (`#'Risks'!A12`): the
   * e-mail and chat messages link there, the workbook to its row.
   */
  readonly web?: string | undefined;
}

export type CellValue = string | number | boolean | Date | LinkValue | readonly string[] | null | undefined;

export interface TableRow {
  /** Values aligned with the table's columns; missing trailing values are empty cells. */
  readonly values: readonly CellValue[];
  /** Outline level for grouped hierarchies (0 = top level). */
  readonly outlineLevel?: number;
  /** Background fill of one cell: index into columns, and a hex colour such as "#ff0000" or "ff0000". */
  readonly fill?: { readonly column: number; readonly color: string } | undefined;
  /**
   * Per cell, a type other than its column's (undefined: the column's): the Changes sheet's Before and
   * After of a date field are dates in text columns. Only the leading sheets read it.
   */
  readonly types?: readonly (ColumnType | undefined)[];
}

export interface TableDefinition {
  /** File and sheet name: `risks`, `board-items`, ... (<= 31 characters, Excel's sheet-name limit). */
  readonly name: string;
  /** Sheet name for people ("Board items"); the workbook falls back to `name`. */
  readonly title?: string;
  readonly columns: readonly Column[];
  /** Deepest `outlineLevel` its rows use (0 or absent: a flat table); the worksheet's outline bar is sized from it. */
  readonly outlineLevels?: number;
}

/** A destination for the rows of one table (a worksheet, a CSV file). */
export interface TableSink {
  /** Resolves when the sink can take more rows: await it, it is how backpressure reaches the producer. */
  writeRow(row: TableRow): Promise<void> | void;
  /** Ends the table. Resolves with the number of data rows written (header excluded). */
  close(): Promise<number>;
}

/**
 * The Summary sheet (and the e-mail): sections of label/value lines and small tables. A link whose
 * url starts with `#` points into the workbook (`#'Risks'!A12`): the workbook makes it a jump to
 * that row, the e-mail shows its text.
 */
export interface SummaryLine {
  readonly label: string;
  /** Absent in a manifest when the value was undefined (JSON leaves the key out). */
  readonly value?: CellValue;
  readonly type?: ColumnType;
  /** The change since the run compared with, e.g. "+4 since 16/11/2026" in the report's locale (shown beside the value). */
  readonly delta?: string;
  /**
   * The same change without its date ("+4", "unchanged"), for the surfaces that say the date once over
   * a column of changes (the e-mail, chat, the run page) rather than after every figure.
   */
  readonly change?: string;
  /** The date of the run compared with ("16/11/2026"), beside `change`. */
  readonly since?: string;
  /** Where the figure stands against one reader's line ("above your line of 29"): that reader's message only. */
  readonly beyond?: string;
  /**
   * A figure that is not final yet (predictability before its PI is scored): the one-line headline
   * (preheader, chat notification) leaves it out, so a running score is not read as the result.
   */
  readonly provisional?: boolean;
  /**
   * The item the label names (a changed risk, a board item): its row in the workbook (`#'Risks'!A12`)
   * and its tracker address (`web`, or `url` itself when that is a web address). Every surface links
   * the label where it can: the workbook to the row, the e-mail, chat, run page and PDF to the tracker.
   */
  readonly link?: LinkValue;
}
export interface SummaryGridColumn {
  readonly label: string;
  readonly type?: ColumnType;
  /** Percent column drawn with a data bar. */
  readonly bar?: boolean;
  /** Left out where space is short (the e-mail); the workbook shows it. */
  readonly brief?: boolean;
  /** The header where space is short (the e-mail's phone width): words that fit a narrow column whole; the label otherwise. */
  readonly short?: string;
}
export interface SummaryGridRow {
  readonly values: readonly CellValue[];
  /** Background fill per cell ("#rrggbb"), aligned with values; null/undefined: none. */
  readonly fills?: readonly (string | null | undefined)[];
  /**
   * In "Needs attention", the row that stands for the items not listed ("8 more …"): their kind
   * ("Risk") and how many, so a headline count adds them to the rows shown (attention-tally.ts).
   */
  readonly more?: { readonly kind: string; readonly count: number };
}
export interface SummaryGrid {
  readonly columns: readonly SummaryGridColumn[];
  readonly rows: readonly SummaryGridRow[];
}
/**
 * Where a section goes, in the order every surface shows them: headline figures first, then what
 * needs attention, then what changed since the run before, then detail, and the run's metadata
 * ("about") last, in small print.
 */
export const SUMMARY_ROLES = ['headline', 'attention', 'changes', 'detail', 'about'] as const;
export type SummaryRole = (typeof SUMMARY_ROLES)[number];
export interface SummarySection {
  readonly heading: string;
  readonly lines: readonly SummaryLine[];
  readonly grid?: SummaryGrid;
  /** Default 'detail'. */
  readonly role?: SummaryRole;
  /** One sentence for the e-mail's small print, for a section the e-mail does not show itself. */
  readonly smallPrint?: string;
}
/**
 * A small sheet written whole (the Changes sheet): a heading, one sentence, then a table whose rows
 * may carry a fill and links like a data sheet's.
 */
export interface LeadingSheet {
  readonly heading: string;
  readonly sentence: string;
  readonly columns: readonly Column[];
  readonly rows: readonly TableRow[];
}

export interface ReportSummary {
  readonly title: string;
  readonly sections: readonly SummarySection[];
}
