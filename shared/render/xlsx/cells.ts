/**
 * Cell and style conversion for the Excel renderer: table values to exceljs values, the shared
 * style objects cells point at, fill colours and column widths. Conventions: docs/formats.md.
 * Pure functions and plain objects; the writer that uses them is ./workbook.ts.
 */
import { EXCEL_FORMATS, type ExcelDateFormats } from '../../core/format';
import { textColourOn } from '../../core/contrast';
import { DAY_MS } from '../../core/clock';
import { isTextList, listText, type CellValue, type ColumnType } from '../../table/table';
import { worksheetText } from '../cell-text';
import type { ZoneClock } from '../time-zone';
import { cellLines } from './print-setup';

/** Excel refuses longer hyperlink addresses (and "repairs" the file). */
const MAX_URL_LENGTH = 2079;
/**
 * Hyperlinks a worksheet keeps as hyperlinks proper (Excel's specifications allow 66,530 a sheet). Past
 * this a link is a HYPERLINK formula, which Excel and LibreOffice also open on a click: it needs no
 * relationship, which exceljs must hold in memory until the sheet ends (~0.3 KB a link), so a sheet of
 * millions of rows stays flat in memory and within what Excel opens.
 */
export const MAX_SHEET_HYPERLINKS = 65_530;
/** Excel's limit on a string in a formula, and on HYPERLINK's address. */
const MAX_FORMULA_STRING = 255;
/** Excel's limit on a whole formula, its `=` counted: a longer one makes Excel call the workbook damaged and drop it. */
const MAX_FORMULA_LENGTH = 8_192;
/** The only link schemes that become clickable: never javascript:, file:, data:, … */
// eslint-disable-next-line no-control-regex -- control characters are what it rejects
const SAFE_URL = /^(?:https?:\/\/|mailto:)[^\s\u0000-\u001F\u007F\uFFFE\uFFFF]+$/i;
/** A jump inside the workbook, `#'Sheet name'!A12` (the Summary's links to rows). */
// eslint-disable-next-line no-control-regex -- control characters are what it rejects
const INTERNAL_LINK = /^#'(?:[^'\u0000-\u001F]|'')+'![A-Z]{1,3}\d{1,7}$/;
/** 1900-03-01: Excel's serials before it are shifted by its 1900-02-29 leap-year bug. */
const EXCEL_FIRST_SAFE_MS = Date.UTC(1900, 2, 1);
const EXCEL_END_MS = Date.UTC(10000, 0, 1);
const FONT_NAME = 'Calibri';
const FONT_SIZE = 11;

/** A cell or row style as exceljs models it. */
export interface StyleModel {
  numFmt?: string;
  font?: Record<string, unknown>;
  alignment?: Record<string, unknown>;
  fill?: Record<string, unknown>;
  border?: Record<string, unknown>;
}
/** What a cell of exceljs's streaming writer holds. */
export type ExcelValue =
  | string
  | number
  | boolean
  | Date
  | { text: string; hyperlink: string }
  | { formula: string; result: string }
  | null;

// -------------------------------------------------------------------------------------------------
// Styles. exceljs caches a style's id by object identity (a WeakMap) and serialises any object it
// has not seen, so every cell gets one of these shared objects and none is ever mutated.

export const enum Kind {
  Text,
  Integer,
  Number,
  PercentWhole,
  PercentFraction,
  Date,
  DateTime,
  Link,
  Boolean,
}
const KIND_COUNT = 9;

const TOP = { vertical: 'top' } as const;
const BASE_FONT = { name: FONT_NAME, size: FONT_SIZE, family: 2 };

function kindStyle(kind: Kind, dates: ExcelDateFormats, fontColor?: string): StyleModel {
  const font = fontColor ? { ...BASE_FONT, color: { argb: fontColor } } : undefined;
  switch (kind) {
    case Kind.Text:
      // Wrapped, or multi-line text shows as one line.
      return { alignment: { vertical: 'top', wrapText: true }, ...(font && { font }) };
    case Kind.Integer:
      return { numFmt: EXCEL_FORMATS.integer, alignment: TOP, ...(font && { font }) };
    case Kind.Number:
      return { alignment: TOP, ...(font && { font }) };
    case Kind.PercentWhole:
      return { numFmt: EXCEL_FORMATS.percent, alignment: TOP, ...(font && { font }) };
    case Kind.PercentFraction:
      return { numFmt: EXCEL_FORMATS.percent, alignment: TOP, ...(font && { font }) };
    case Kind.Date:
      return { numFmt: dates.date, alignment: TOP, ...(font && { font }) };
    case Kind.DateTime:
      return { numFmt: dates.datetime, alignment: TOP, ...(font && { font }) };
    case Kind.Link:
      // Excel's own Hyperlink colour; on a dark fill the readable colour wins.
      return {
        alignment: { vertical: 'top', wrapText: true },
        font: { ...BASE_FONT, underline: true, color: { argb: fontColor ?? 'FF0563C1' } },
      };
    case Kind.Boolean:
      return { numFmt: EXCEL_FORMATS.boolean, alignment: { vertical: 'top', horizontal: 'center' }, ...(font && { font }) };
  }
}

const HEX_COLOR = /^#?([0-9a-f]{3}|[0-9a-f]{6})$/i;

/** `#rrggbb`, `rrggbb` or `#rgb` → exceljs ARGB; undefined for anything else. */
export function parseFillColor(color: string): string | undefined {
  const m = HEX_COLOR.exec(color.trim());
  if (!m) return undefined;
  let hex = m[1]!;
  if (hex.length === 3) hex = hex[0]! + hex[0]! + hex[1]! + hex[1]! + hex[2]! + hex[2]!;
  return `FF${hex.toUpperCase()}`;
}

/** Black or white text on a fill, whichever contrasts more (WCAG, core/contrast.ts): ARGB for exceljs. */
export function readableFontColor(argb: string): string {
  return `FF${textColourOn(argb).slice(1)}`;
}

export class StyleBook {
  private readonly plain: StyleModel[] = [];
  private readonly filled = new Map<string, StyleModel>();
  private readonly colors = new Map<string, string | null>();
  /** Header cells: bold. Shared by every sheet. */
  readonly header: StyleModel = {
    font: { ...BASE_FONT, bold: true },
    alignment: { vertical: 'top', wrapText: true },
  };
  /** The header of a column of figures: bold, right-aligned over its numbers (which Excel aligns right). */
  readonly figureHeader: StyleModel = {
    font: { ...BASE_FONT, bold: true },
    alignment: { vertical: 'top', horizontal: 'right', wrapText: true },
  };
  readonly title: StyleModel = { font: { ...BASE_FONT, size: 14, bold: true } };
  /** Summary section headings: bold, one line that may run into the empty value column. */
  readonly sectionHeading: StyleModel = { font: { ...BASE_FONT, bold: true } };
  /** Rows get this instead of exceljs's per-row `{}`, which it would serialise row by row. */
  readonly row: StyleModel = {};
  /** Text kept on one line: ids and keys, which must not wrap mid-number. */
  readonly oneLine: StyleModel = { alignment: { vertical: 'top' } };
  private readonly indents: StyleModel[] = [];
  private readonly lefts: StyleModel[] = [];

  /** `dates`: the report locale's date formats (excelDateFormats), worked out once for the workbook. */
  constructor(private readonly dates: ExcelDateFormats) {
    for (let kind = 0; kind < KIND_COUNT; kind++) this.plain.push(kindStyle(kind, dates));
  }

  of(kind: Kind): StyleModel {
    return this.plain[kind]!;
  }

  /** A value that names its row (the Trends' run dates): left-aligned under its header, as a text label is. */
  leftAligned(kind: Kind): StyleModel {
    return (this.lefts[kind] ??= { ...this.plain[kind]!, alignment: { vertical: 'top', horizontal: 'left' } });
  }

  /** Wrapped text indented by `level` steps (titles of a hierarchy); level 0 is plain text. */
  indented(level: number): StyleModel {
    if (level <= 0) return this.plain[Kind.Text]!;
    return (this.indents[level] ??= { alignment: { vertical: 'top', wrapText: true, indent: level } });
  }

  /** The style of a filled cell, or undefined when the colour is not a valid hex colour. */
  withFill(kind: Kind, color: string): StyleModel | undefined {
    let argb = this.colors.get(color);
    if (argb === undefined) {
      argb = parseFillColor(color) ?? null;
      // Colour strings come from data; bound the cache rather than trust their variety.
      if (this.colors.size > 10_000) this.colors.clear();
      this.colors.set(color, argb);
    }
    if (argb === null) return undefined;
    const key = `${kind}:${argb}`;
    let style = this.filled.get(key);
    if (!style) {
      style = {
        ...kindStyle(kind, this.dates, readableFontColor(argb)),
        fill: { type: 'pattern', pattern: 'solid', fgColor: { argb }, bgColor: { indexed: 64 } },
      };
      this.filled.set(key, style);
    }
    return style;
  }
}

// -------------------------------------------------------------------------------------------------
// Values

/**
 * Set by toExcel alongside its result: the kind of the cell it produced (avoids a per-cell object).
 * Importers read it through the live ES module binding right after calling toExcel.
 */
export let producedKind: Kind = Kind.Text;

/**
 * The exceljs value for one cell; the kind of cell goes to `producedKind`. The column type decides
 * how numbers and Dates are shown; a value of another runtime type is written as what it is.
 */
export function toExcel(value: CellValue, type: ColumnType | undefined, clock: ZoneClock): ExcelValue {
  if (value === null || value === undefined) {
    producedKind = kindOfEmpty(type);
    return null;
  }
  switch (typeof value) {
    case 'string':
      producedKind = Kind.Text;
      return worksheetText(value);
    case 'number':
      if (!Number.isFinite(value)) {
        producedKind = kindOfEmpty(type);
        return null;
      }
      if (type === 'percent') {
        producedKind = Number.isInteger(value) ? Kind.PercentWhole : Kind.PercentFraction;
        return value / 100;
      }
      // Whole numbers take thousands separators (2,148); Excel has no format that also drops a fraction's trailing dot.
      producedKind = (type === 'integer' || type === 'number') && Number.isInteger(value) ? Kind.Integer : Kind.Number;
      return value;
    case 'boolean':
      producedKind = Kind.Boolean;
      return value;
    default:
      break;
  }
  if (value instanceof Date) return dateToExcel(value, type, clock);
  if (isTextList(value)) {
    producedKind = Kind.Text;
    return worksheetText(listText(value));
  }
  return linkToExcel(value.text, value.url);
}

function kindOfEmpty(type: ColumnType | undefined): Kind {
  switch (type) {
    case 'date':
      return Kind.Date;
    case 'datetime':
      return Kind.DateTime;
    case 'integer':
      return Kind.Integer;
    case 'percent':
      return Kind.PercentWhole;
    case 'number':
      return Kind.Number;
    case 'boolean':
      return Kind.Boolean;
    default:
      return Kind.Text;
  }
}

function dateToExcel(value: Date, type: ColumnType | undefined, clock: ZoneClock): ExcelValue {
  const ms = value.getTime();
  if (Number.isNaN(ms)) {
    producedKind = kindOfEmpty(type);
    return null;
  }
  // exceljs turns a Date into a serial from its UTC fields, so the Date handed over must carry
  // the wall-clock fields: the calendar day for `date`, the time in the report zone otherwise.
  const isDate = type === 'date';
  const wall = isDate ? Math.floor(ms / DAY_MS) * DAY_MS : ms + clock.offsetMs(ms);
  if (wall < EXCEL_FIRST_SAFE_MS || wall >= EXCEL_END_MS) {
    // Outside what Excel dates can show correctly: keep it readable and exact as text.
    producedKind = Kind.Text;
    if (!isDate) return clock.isoWithOffset(value);
    const iso = value.toISOString();
    return iso.slice(0, iso.indexOf('T'));
  }
  producedKind = isDate ? Kind.Date : Kind.DateTime;
  return new Date(wall);
}

function linkToExcel(text: string, url: string): ExcelValue {
  const shown = worksheetText(text) || worksheetText(url);
  if (url.length <= MAX_URL_LENGTH && (SAFE_URL.test(url) || INTERNAL_LINK.test(url)) && shown !== '') {
    producedKind = Kind.Link;
    return { text: shown, hyperlink: url };
  }
  // Not a link we let anyone click (javascript:, data:, relative, too long): its text only.
  producedKind = Kind.Text;
  return shown;
}

/** A formula string literal: quotes doubled, cut into pieces Excel accepts, joined with `&`. */
function formulaString(text: string): string {
  const pieces: string[] = [];
  for (let at = 0; at < text.length || pieces.length === 0; at += MAX_FORMULA_STRING) {
    pieces.push(`"${text.slice(at, at + MAX_FORMULA_STRING).replaceAll('"', '""')}"`);
  }
  return pieces.join('&');
}

/**
 * A link cell past the sheet's MAX_SHEET_HYPERLINKS as a HYPERLINK formula whose cached result is its
 * text (shown without recalculation); an address longer than HYPERLINK takes stays text only. Sets
 * `producedKind` like toExcel.
 */
export function linkAsFormula(link: { text: string; hyperlink: string }): ExcelValue {
  const formula = hyperlinkFormula(link);
  if (formula === undefined) {
    producedKind = Kind.Text;
    return link.text;
  }
  producedKind = Kind.Link;
  return { formula, result: link.text };
}

/**
 * `HYPERLINK(address,text)`, or undefined when Excel would not take it: an address longer than a
 * formula's string, or a formula longer than MAX_FORMULA_LENGTH (a long text is cut into 255-character
 * pieces joined by `&`, so 8,000 characters of text already pass the limit).
 */
function hyperlinkFormula(link: { text: string; hyperlink: string }): string | undefined {
  if (link.hyperlink.length > MAX_FORMULA_STRING) return undefined;
  const formula = `HYPERLINK(${formulaString(link.hyperlink)},${formulaString(link.text)})`;
  return formula.length + 1 > MAX_FORMULA_LENGTH ? undefined : formula;
}

/**
 * A link whose text takes more than one line in its wrapped column, as a HYPERLINK formula:
 * LibreOffice never wraps a cell holding a hyperlink proper (it prints one line, cut off at the next
 * cell: "OPS-13 Supplier could leak p"), but wraps a formula's text; Excel shows and opens both
 * alike. A link on one line, or one Excel would not take as a formula (an address longer than
 * HYPERLINK takes, a text that makes the formula longer than Excel's limit), stays a hyperlink proper.
 */
export function wrappedLink(value: ExcelValue, lines: number): ExcelValue {
  if (lines <= 1 || typeof value !== 'object' || value === null || !('hyperlink' in value)) return value;
  return hyperlinkFormula(value) === undefined ? value : linkAsFormula(value);
}

/** A value in a wrapped column `width` characters wide (0: a column that does not wrap) as written, and the lines it takes. */
export function fitWrapped(value: ExcelValue, width: number): { value: ExcelValue; lines: number } {
  if (width <= 0) return { value, lines: 1 };
  const lines = cellLines(value, width);
  return { value: wrappedLink(value, lines), lines };
}

/**
 * `value` as a data sheet writes it: a hyperlink proper while the sheet has had fewer than `max`
 * (counted in `sheet.links`), a HYPERLINK formula after.
 */
export function capLinks(value: ExcelValue, sheet: { links: number }, max = MAX_SHEET_HYPERLINKS): ExcelValue {
  if (typeof value !== 'object' || value === null || !('hyperlink' in value)) return value;
  return sheet.links++ < max ? value : linkAsFormula(value);
}

// -------------------------------------------------------------------------------------------------
// Columns

/** Characters a yes/no column needs for the words Excel and LibreOffice print in it. */
const BOOLEAN_MIN_WIDTH = 10;

/** `key`: the header text (the column's label, or its name). */
export function widthOf(type: ColumnType, key: string, preferred: number | undefined): number {
  const byType: Record<ColumnType, number> = {
    text: 40,
    list: 30,
    link: 40,
    integer: 10,
    number: 14,
    percent: 10,
    date: 12,
    // `11/21/2026, 08:00 AM`: the longest of the locales' date-time formats, without ###.
    datetime: 21,
    boolean: 9,
  };
  const max = type === 'text' || type === 'link' ? 60 : 100;
  // Room for the header and the autofilter button next to it; a yes/no for its longest word
  // (FALSCH, FALSE): LibreOffice prints a truth value too wide for its cell as 0 or 1.
  const min = Math.max(Math.min(key.length + 4, max), type === 'boolean' ? BOOLEAN_MIN_WIDTH : 0);
  return Math.max(min, Math.min(max, preferred ?? byType[type]));
}

export function columnLetters(n: number): string {
  let s = '';
  for (let c = n; c > 0; c = Math.floor((c - 1) / 26)) s = String.fromCharCode(65 + ((c - 1) % 26)) + s;
  return s;
}

/** The column type a Summary value is shown as when its line names none. */
export function inferType(value: CellValue): ColumnType {
  if (typeof value === 'number') return 'number';
  if (typeof value === 'boolean') return 'boolean';
  if (value instanceof Date) return 'datetime';
  if (isTextList(value)) return 'list';
  if (typeof value === 'object' && value !== null) return 'link';
  return 'text';
}
