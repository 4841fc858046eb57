/**
 * Excel renderer on exceljs's streaming writer (the only module that imports exceljs).
 * Conventions are documented in docs/formats.md. What exceljs needs to be told, and why (measured
 * in the team's exceljs notes): styles only with useStyles, zlib level 6, no shared strings, and
 * pacing by the producer because exceljs's internal buffers ignore backpressure. Three patches of
 * exceljs/archiver internals keep memory flat (docs/benchmarks.md, "Rendering"): the pacing reads the
 * readable-stream 2 PassThrough in front of deflate, the sheet's 64 KiB buffers are recycled, and
 * the hyperlink list is written in slices; each checks the shape it relies on and throws otherwise.
 */
import type { Writable } from 'node:stream';
import ExcelJS from 'exceljs';
import { ExporterError } from '../../core/errors';
import { outputWriteError } from '../output-error';
import type {
  CellValue,
  ColumnType,
  ReportSummary,
  TableDefinition,
  TableRow,
  TableSink,
} from '../../table/table';
import { worksheetText } from '../cell-text';
import { createZoneClock, type ZoneClock } from '../time-zone';

export interface XlsxOptions {
  /** IANA zone: datetime cells hold the wall-clock time there (Excel cells have no zone). */
  readonly timeZone: string;
  readonly creator?: string;
  /** Document title (file properties) and the default Summary title. */
  readonly title?: string;
}

export interface XlsxSheetOptions {
  /**
   * The deepest `outlineLevel` the rows will use (0-7). Excel sizes the outline gutter and its
   * level buttons from a sheet header that is written before the first row, so the renderer cannot
   * learn it from the rows. Default 0; rows with levels are still grouped, only the buttons are missing.
   */
  readonly outlineLevels?: number;
}

export interface XlsxWorkbook {
  /** Starts the next data sheet. One sheet at a time: close its sink before opening another. */
  openSheet(table: TableDefinition, options?: XlsxSheetOptions): TableSink;
  /** Writes the Summary sheet, which is the workbook's first sheet. Call after the data sheets. */
  writeSummary(summary: ReportSummary): Promise<void>;
  /** Finishes the file and waits until `out` has finished. */
  close(): Promise<void>;
}

export const SUMMARY_SHEET_NAME = 'Summary';

/** Rows between yields to the event loop; ~10-50 keeps exceljs's buffers small at no time cost. */
const ROWS_PER_YIELD = 32;
/**
 * Sheet XML that exceljs has produced and the zip has not compressed yet, above which the producer
 * waits. exceljs hands its XML to an unbounded buffer in front of the zip, so this is the only
 * place a slow destination (or a deflate thread starved of CPU) can be noticed before memory grows.
 * 1 MiB is ~25 ms of deflate: enough that deflate never waits for the producer, short enough that
 * the 64 KiB buffers in flight are few (they are recycled, see recycleSheetBuffers).
 */
const MAX_PENDING_XML_BYTES = 2 ** 20;
/** Excel's 1,048,576 rows a sheet, less the header. */
const EXCEL_MAX_DATA_ROWS = 1_048_575;
/** Excel's outline depth limit. */
const MAX_OUTLINE_LEVEL = 7;
/** Excel refuses longer hyperlink addresses (and "repairs" the file). */
const MAX_URL_LENGTH = 2079;
/** The only link schemes that become clickable: never javascript:, file:, data:, … */
// eslint-disable-next-line no-control-regex -- control characters are what it rejects
const SAFE_URL = /^(?:https?:\/\/|mailto:)[^\s\u0000-\u001F\u007F\uFFFE\uFFFF]+$/i;
/** 1900-03-01: Excel's serials before it are shifted by its 1900-02-29 leap-year bug. */
const EXCEL_FIRST_SAFE_MS = Date.UTC(1900, 2, 1);
const EXCEL_END_MS = Date.UTC(10000, 0, 1);
const DAY_MS = 86_400_000;
const FONT_NAME = 'Calibri';
const FONT_SIZE = 11;

// -------------------------------------------------------------------------------------------------
// The slice of exceljs's streaming writer this module uses. Its typings describe the in-memory
// Workbook, so the writer is narrowed to what is actually called.

interface StyleModel {
  numFmt?: string;
  font?: Record<string, unknown>;
  alignment?: Record<string, unknown>;
  fill?: Record<string, unknown>;
}
type ExcelValue = string | number | boolean | Date | { text: string; hyperlink: string } | null;
interface WriterCell {
  value: ExcelValue;
  style: StyleModel;
}
interface WriterRow {
  getCell(column: number): WriterCell;
  style: StyleModel;
  outlineLevel: number;
  commit(): void;
}
interface WriterSheet {
  readonly id: number;
  properties: { outlineLevelRow: number };
  columns: { width: number }[];
  autoFilter: string | null;
  addRow(values: undefined): WriterRow;
  commit(): void;
}
interface WriterWorkbook {
  creator: string;
  lastModifiedBy: string;
  title: string;
  addWorksheet(name: string, options: Record<string, unknown>): WriterSheet;
  commit(): Promise<unknown>;
}

// -------------------------------------------------------------------------------------------------
// Styles. exceljs caches a style's id by object identity (a WeakMap) and serialises any object it
// has not seen, so every cell gets one of these shared objects and none is ever mutated.

const enum Kind {
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

function kindStyle(kind: Kind, fontColor?: string): StyleModel {
  const font = fontColor ? { ...BASE_FONT, color: { argb: fontColor } } : undefined;
  switch (kind) {
    case Kind.Text:
      // Wrapped, or multi-line text shows as one line.
      return { alignment: { vertical: 'top', wrapText: true }, ...(font && { font }) };
    case Kind.Integer:
      return { numFmt: '0', alignment: TOP, ...(font && { font }) };
    case Kind.Number:
      return { alignment: TOP, ...(font && { font }) };
    case Kind.PercentWhole:
      return { numFmt: '0%', alignment: TOP, ...(font && { font }) };
    case Kind.PercentFraction:
      return { numFmt: '0.0%', alignment: TOP, ...(font && { font }) };
    case Kind.Date:
      return { numFmt: 'yyyy-mm-dd', alignment: TOP, ...(font && { font }) };
    case Kind.DateTime:
      return { numFmt: 'yyyy-mm-dd hh:mm', alignment: TOP, ...(font && { font }) };
    case Kind.Link:
      // Excel's own Hyperlink colour; on a dark fill the readable colour wins.
      return {
        alignment: { vertical: 'top', wrapText: true },
        font: { ...BASE_FONT, underline: true, color: { argb: fontColor ?? 'FF0563C1' } },
      };
    case Kind.Boolean:
      return { alignment: { vertical: 'top', horizontal: 'center' }, ...(font && { font }) };
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

/** White text on dark fills, black on light ones (WCAG relative luminance, 0.179 threshold). */
export function readableFontColor(argb: string): string {
  const channel = (offset: number) => {
    const c = parseInt(argb.slice(offset, offset + 2), 16) / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  const luminance = 0.2126 * channel(2) + 0.7152 * channel(4) + 0.0722 * channel(6);
  return luminance < 0.179 ? 'FFFFFFFF' : 'FF000000';
}

class StyleBook {
  private readonly plain: StyleModel[] = [];
  private readonly filled = new Map<string, StyleModel>();
  private readonly colors = new Map<string, string | null>();
  /** Header cells: bold. Shared by every sheet. */
  readonly header: StyleModel = {
    font: { ...BASE_FONT, bold: true },
    alignment: { vertical: 'top', wrapText: true },
  };
  readonly title: StyleModel = { font: { ...BASE_FONT, size: 14, bold: true } };
  /** Summary section headings: bold, one line that may run into the empty value column. */
  readonly sectionHeading: StyleModel = { font: { ...BASE_FONT, bold: true } };
  /** Rows get this instead of exceljs's per-row `{}`, which it would serialise row by row. */
  readonly row: StyleModel = {};

  constructor() {
    for (let kind = 0; kind < KIND_COUNT; kind++) this.plain.push(kindStyle(kind));
  }

  of(kind: Kind): StyleModel {
    return this.plain[kind]!;
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
        ...kindStyle(kind, readableFontColor(argb)),
        fill: { type: 'pattern', pattern: 'solid', fgColor: { argb }, bgColor: { indexed: 64 } },
      };
      this.filled.set(key, style);
    }
    return style;
  }
}

// -------------------------------------------------------------------------------------------------
// Values

/** Set by toExcel alongside its result: the kind of the cell it produced (avoids a per-cell object). */
let producedKind: Kind = Kind.Text;

/**
 * The exceljs value for one cell; the kind of cell goes to `producedKind`. The column type decides
 * how numbers and Dates are shown; a value of another runtime type is written as what it is.
 */
function toExcel(value: CellValue, type: ColumnType | undefined, clock: ZoneClock): ExcelValue {
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
      producedKind = type === 'integer' && Number.isInteger(value) ? Kind.Integer : Kind.Number;
      return value;
    case 'boolean':
      producedKind = Kind.Boolean;
      return value;
    default:
      break;
  }
  if (value instanceof Date) return dateToExcel(value, type, clock);
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
  if (url.length <= MAX_URL_LENGTH && SAFE_URL.test(url) && shown !== '') {
    producedKind = Kind.Link;
    return { text: shown, hyperlink: url };
  }
  // Not a link we let anyone click (javascript:, data:, relative, too long): its text only.
  producedKind = Kind.Text;
  return shown;
}

// -------------------------------------------------------------------------------------------------
// Sheets

// eslint-disable-next-line no-control-regex -- control characters are what it replaces
const FORBIDDEN_SHEET_CHARS = /[[\]:*?/\\\u0000-\u001F]/g;

function widthOf(type: ColumnType, key: string, preferred: number | undefined): number {
  const byType: Record<ColumnType, number> = {
    text: 40,
    link: 40,
    integer: 10,
    number: 14,
    percent: 10,
    date: 12,
    datetime: 17,
    boolean: 9,
  };
  const max = type === 'text' || type === 'link' ? 60 : 100;
  // Room for the header and the autofilter button next to it.
  const min = Math.min(key.length + 4, max);
  return Math.max(min, Math.min(max, preferred ?? byType[type]));
}

function columnLetters(n: number): string {
  let s = '';
  for (let c = n; c > 0; c = Math.floor((c - 1) / 26)) s = String.fromCharCode(65 + ((c - 1) % 26)) + s;
  return s;
}

export function openXlsxWorkbook(out: Writable, options: XlsxOptions): XlsxWorkbook {
  const clock = createZoneClock(options.timeZone);
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({
    stream: out,
    // Without it the streaming writer writes no styles at all: no formats, no bold, no fills.
    useStyles: true,
    // Shared strings: 1 % smaller files for 26 % more time and gigabytes of memory at 300k rows.
    useSharedStrings: false,
    // exceljs defaults to level 1; 6 makes files ~18 % smaller at no measurable time cost.
    zip: { zlib: { level: 6 } },
  }) as unknown as WriterWorkbook;
  workbook.creator = options.creator ?? 'planning-report-exporter';
  workbook.lastModifiedBy = workbook.creator;
  if (options.title) workbook.title = options.title;

  const sheetOrder = reserveFirstSheet(workbook);
  const flow = new OutputFlow(out);
  const styles = new StyleBook();
  const usedNames = new Set<string>([SUMMARY_SHEET_NAME.toLowerCase()]);
  let openSheetName: string | undefined;
  let summaryWritten = false;
  let closed = false;

  const assertWritable = (action: string) => {
    if (closed) throw new ExporterError(`Cannot ${action}: the workbook is closed`);
    if (summaryWritten) throw new ExporterError(`Cannot ${action}: the Summary sheet is written last`);
    if (openSheetName !== undefined) {
      throw new ExporterError(`Cannot ${action}: close the sheet "${openSheetName}" first`);
    }
  };

  const uniqueSheetName = (name: string): string => {
    let base = name.replace(FORBIDDEN_SHEET_CHARS, '_').replace(/^'+|'+$/g, '').slice(0, 31) || 'Sheet';
    let candidate = base;
    for (let n = 2; usedNames.has(candidate.toLowerCase()); n++) {
      const suffix = ` (${n})`;
      base = base.slice(0, 31 - suffix.length);
      candidate = base + suffix;
    }
    usedNames.add(candidate.toLowerCase());
    return candidate;
  };

  return {
    openSheet(table: TableDefinition, sheetOptions?: XlsxSheetOptions): TableSink {
      assertWritable(`open the sheet "${table.name}"`);
      const name = uniqueSheetName(table.name);
      openSheetName = name;
      const columns = table.columns;
      const types = columns.map((c) => c.type);
      const columnCount = columns.length;
      const sheet = workbook.addWorksheet(name, {
        views: [{ state: 'frozen', xSplit: 0, ySplit: 1, topLeftCell: 'A2', activeCell: 'A2' }],
        properties: {
          outlineLevelRow: clampOutline(sheetOptions?.outlineLevels ?? 0),
          // Group headers (summary rows) sit above their details, as in a hierarchy.
          outlineProperties: { summaryBelow: false, summaryRight: false },
        },
      });
      // exceljs flags a row `collapsed` when its level >= this property, which it reads live but has
      // already written to the sheet header above: raised past any level, no visible row is marked
      // collapsed (Excel would show its group as closed while the rows are open).
      sheet.properties.outlineLevelRow = MAX_OUTLINE_LEVEL + 1;
      sheet.columns = columns.map((c) => ({ width: widthOf(c.type, c.key, c.width) }));

      const header = sheet.addRow(undefined);
      header.style = styles.row;
      for (let i = 0; i < columnCount; i++) {
        const cell = header.getCell(i + 1);
        cell.value = worksheetText(columns[i]!.key);
        cell.style = styles.header;
      }
      header.commit();
      const pendingXml = pendingXmlBytes(sheet);
      recycleSheetBuffers(sheet);
      writeHyperlinksInSlices(sheet);

      let rows = 0;
      let sinceYield = 0;
      let sheetClosed = false;

      return {
        writeRow(row: TableRow): Promise<void> | void {
          if (sheetClosed) throw new ExporterError(`The sheet "${name}" is closed`);
          if (rows >= EXCEL_MAX_DATA_ROWS) {
            throw new ExporterError(
              `The table "${table.name}" has more than ${EXCEL_MAX_DATA_ROWS.toLocaleString('en-US')} rows, ` +
                "Excel's limit for one sheet; the CSV export has no such limit",
            );
          }
          const values = row.values;
          const fill = row.fill;
          const fillColumn =
            fill && Number.isInteger(fill.column) && fill.column >= 0 && fill.column < columnCount ? fill.column : -1;
          const target = sheet.addRow(undefined);
          target.style = styles.row;
          for (let i = 0; i < columnCount; i++) {
            const value = toExcel(values[i], types[i], clock);
            const style = i === fillColumn ? styles.withFill(producedKind, fill!.color) : undefined;
            // Empty text is an empty cell, as in the CSV (and Excel's ISBLANK agrees).
            const empty = value === null || value === '';
            if (empty && style === undefined) continue;
            const cell = target.getCell(i + 1);
            cell.value = empty ? null : value;
            cell.style = style ?? styles.of(producedKind);
          }
          const level = row.outlineLevel;
          if (level) target.outlineLevel = clampOutline(level);
          target.commit();
          rows += 1;
          if (++sinceYield >= ROWS_PER_YIELD) {
            sinceYield = 0;
            return flow.relieve(pendingXml);
          }
        },
        close(): Promise<number> {
          if (sheetClosed) return Promise.reject(new ExporterError(`The sheet "${name}" is closed`));
          sheetClosed = true;
          if (columnCount > 0) sheet.autoFilter = `A1:${columnLetters(columnCount)}${rows + 1}`;
          sheet.commit();
          openSheetName = undefined;
          return Promise.resolve(rows);
        },
      };
    },

    async writeSummary(summary: ReportSummary): Promise<void> {
      assertWritable('write the Summary');
      summaryWritten = true;
      const sheet = sheetOrder.addFirst(SUMMARY_SHEET_NAME);
      sheet.columns = [{ width: 32 }, { width: 60 }];
      let written = 0;
      const addRow = (label: string, style: StyleModel, value?: CellValue, type?: ColumnType) => {
        const row = sheet.addRow(undefined);
        row.style = styles.row;
        const labelCell = row.getCell(1);
        labelCell.value = worksheetText(label);
        labelCell.style = style;
        if (value !== undefined && value !== null) {
          const cell = row.getCell(2);
          cell.value = toExcel(value, type ?? inferType(value), clock);
          cell.style = styles.of(producedKind);
        }
        row.commit();
        written += 1;
      };
      const blank = () => {
        sheet.addRow(undefined).commit();
        written += 1;
      };

      addRow(summary.title, styles.title);
      for (const section of summary.sections) {
        blank();
        addRow(section.heading, styles.sectionHeading);
        for (const line of section.lines) {
          addRow(line.label, styles.of(Kind.Text), line.value, line.type);
          if (written % ROWS_PER_YIELD === 0) await flow.relieve(noPendingXml);
        }
      }
      sheet.commit();
    },

    async close(): Promise<void> {
      if (closed) throw new ExporterError('The workbook is already closed');
      if (openSheetName !== undefined) {
        throw new ExporterError(`Cannot close the workbook: close the sheet "${openSheetName}" first`);
      }
      if (!summaryWritten) throw new ExporterError('Cannot close the workbook: write the Summary sheet first');
      closed = true;
      flow.throwIfFailed();
      try {
        await workbook.commit();
      } catch (error) {
        throw outputWriteError('the Excel workbook', error);
      }
    },
  };
}

function inferType(value: CellValue): ColumnType {
  if (typeof value === 'number') return 'number';
  if (typeof value === 'boolean') return 'boolean';
  if (value instanceof Date) return 'datetime';
  if (typeof value === 'object' && value !== null) return 'link';
  return 'text';
}

function clampOutline(level: number): number {
  return Number.isFinite(level) ? Math.min(MAX_OUTLINE_LEVEL, Math.max(0, Math.trunc(level))) : 0;
}

/**
 * Summary must be the first sheet but is written last (it reports row counts). The sheet order
 * of the file is the order of exceljs's `_worksheets` array, indexed by sheet id, and a sheet's zip
 * entry opens the moment it is added. Adding Summary first would therefore hold every data sheet in
 * memory behind Summary's open entry (the zip is written one entry at a time). Instead, id 1 is held
 * by a placeholder so data sheets get ids 2, 3, …; Summary is added last, takes the freed id 1 and
 * is listed first, while its zip entry is simply the last one.
 */
function reserveFirstSheet(workbook: WriterWorkbook): { addFirst(name: string): WriterSheet } {
  const internals = workbook as unknown as { _worksheets?: unknown };
  const sheets = internals._worksheets;
  if (!Array.isArray(sheets) || sheets.length !== 0) {
    throw new ExporterError('exceljs internals changed: WorkbookWriter._worksheets is not an empty array');
  }
  const placeholder = { placeholder: 'Summary' };
  sheets[1] = placeholder;
  return {
    addFirst(name: string): WriterSheet {
      if (sheets[1] !== placeholder) throw new ExporterError('exceljs internals changed: sheet id 1 was taken');
      sheets[1] = undefined;
      const sheet = workbook.addWorksheet(name, {});
      if (sheet.id !== 1) throw new ExporterError(`exceljs internals changed: Summary got sheet id ${sheet.id}`);
      return sheet;
    },
  };
}

function noPendingXml(): number {
  return 0;
}

/** Where a stream keeps what it holds: a public getter (Node, readable-stream 3) or its state (readable-stream 2). */
type BufferedStream = {
  writableLength?: unknown;
  readableLength?: unknown;
  _writableState?: { length?: unknown };
  _readableState?: { length?: unknown };
};

function bufferedBytes(stream: BufferedStream, side: 'writable' | 'readable'): number | undefined {
  const length = side === 'writable' ? stream.writableLength : stream.readableLength;
  if (typeof length === 'number') return length;
  const state = side === 'writable' ? stream._writableState : stream._readableState;
  return typeof state?.length === 'number' ? state.length : undefined;
}

/**
 * How many bytes of this sheet's XML wait in front of the zip. exceljs writes the XML into its own
 * StreamBuf, which passes every 64 KiB to a PassThrough (its `pipes`) that archiver reads when the
 * deflate stream asks for more. StreamBuf ignores the PassThrough's backpressure, so whatever the
 * producer writes faster than deflate compresses piles up in that PassThrough's write buffer —
 * without pacing, ~100 MB at 300,000 rows, released only when the entry ends. archiver 5 builds that
 * PassThrough from readable-stream 2, which has no `writableLength`/`readableLength` getters, so the
 * lengths are read from its stream states. Neither StreamBuf's `pipes` nor those states are public:
 * an unexpected shape is an error here, not a silent 0 that would let memory grow with the sheet.
 */
function pendingXmlBytes(sheet: WriterSheet): () => number {
  const stream = (sheet as unknown as { stream?: { pipes?: unknown } }).stream;
  const pipes = stream?.pipes;
  const measurable = (pipe: BufferedStream | null): boolean =>
    typeof pipe === 'object' &&
    pipe !== null &&
    bufferedBytes(pipe, 'writable') !== undefined &&
    bufferedBytes(pipe, 'readable') !== undefined;
  if (!Array.isArray(pipes) || pipes.length === 0 || !(pipes as (BufferedStream | null)[]).every(measurable)) {
    throw new ExporterError(
      'exceljs internals changed: the worksheet stream has no measurable pipes (StreamBuf.pipes), so its buffering cannot be bounded',
    );
  }
  const targets = pipes as BufferedStream[];
  return () => {
    let bytes = 0;
    for (const pipe of targets) bytes += (bufferedBytes(pipe, 'writable') ?? 0) + (bufferedBytes(pipe, 'readable') ?? 0);
    return bytes;
  };
}

/** Hyperlink elements rendered into one string at a time when the sheet closes. */
const HYPERLINKS_PER_WRITE = 4096;

/**
 * exceljs writes the sheet's `<hyperlinks>` list (one element per link, ~45 bytes each) when the
 * sheet closes, rendered through its XmlStream into a single string: at 300,000 links a 13 MB
 * string plus the 1.2 million pieces it was joined from, and a Buffer copy of it, all at once on
 * top of everything the links already hold — the peak of a linked sheet. This writes the same
 * bytes in slices. exceljs's streaming sheet records each link as `{ rId, address }`; any other
 * shape (tooltips, internal locations) is left to exceljs's own renderer.
 */
function writeHyperlinksInSlices(sheet: WriterSheet): void {
  const internals = sheet as unknown as {
    _writeHyperlinks?: unknown;
    _sheetRelsWriter?: { _hyperlinks?: unknown };
    stream: { write(text: string): unknown };
  };
  const original = internals._writeHyperlinks;
  if (typeof original !== 'function' || !Array.isArray(internals._sheetRelsWriter?._hyperlinks)) {
    throw new ExporterError('exceljs internals changed: WorksheetWriter._writeHyperlinks or its hyperlink list is missing');
  }
  const plain = (link: unknown): link is { rId: string; address: string } =>
    typeof link === 'object' &&
    link !== null &&
    Object.keys(link).length === 2 &&
    typeof (link as { rId?: unknown }).rId === 'string' &&
    /^rId\d+$/.test((link as { rId: string }).rId) &&
    typeof (link as { address?: unknown }).address === 'string' &&
    /^[A-Z]+\d+$/.test((link as { address: string }).address);
  internals._writeHyperlinks = function writeHyperlinks(this: typeof internals): void {
    const links = this._sheetRelsWriter?._hyperlinks as unknown[];
    if (links.length === 0 || !links.every(plain)) {
      (original as () => void).call(this);
      return;
    }
    this.stream.write('<hyperlinks>');
    for (let start = 0; start < links.length; start += HYPERLINKS_PER_WRITE) {
      let xml = '';
      const end = Math.min(links.length, start + HYPERLINKS_PER_WRITE);
      for (let i = start; i < end; i++) {
        const link = links[i] as { rId: string; address: string };
        xml += `<hyperlink ref="${link.address}" r:id="${link.rId}"/>`;
      }
      this.stream.write(xml);
    }
    this.stream.write('</hyperlinks>');
  };
}

/** Free 64 KiB sheet buffers kept for reuse: enough for what is in flight under MAX_PENDING_XML_BYTES. */
const MAX_RECYCLED_BUFFERS = 32;

interface ReadWriteBufShape {
  size: number;
  buffer: Buffer;
  iRead: number;
  iWrite: number;
  readonly full: boolean;
}
interface SheetStreamShape {
  bufSize: unknown;
  batch: unknown;
  buffers: unknown;
  pipes: unknown;
  _getWritableBuffer: unknown;
}
interface PipedStreamShape {
  pipe: (destination: unknown, options?: unknown) => unknown;
  _readableState?: { pipes?: unknown; pipesCount?: unknown };
}
type TransformFn = (chunk: unknown, encoding: unknown, callback: (...args: unknown[]) => void) => void;

/**
 * Reuses the sheet stream's 64 KiB buffers instead of allocating one per 64 KiB of XML. exceljs's
 * StreamBuf fills a fresh `Buffer.alloc(65536)` at a time and hands it on to the zip; the bytes are
 * gone as soon as deflate has read them, but the buffer usually outlives two scavenges on its way
 * (filling, waiting in front of deflate), so V8 moves it to the old generation, where it is freed
 * only by a full GC — which V8 starts for external memory only after ~64 MB of it has piled up.
 * That garbage (up to ~1.1 KB a row, 60+ MB, measured with a FinalizationRegistry on the
 * allocations) was the difference between a 140 MB and a 195 MB peak. Here a buffer goes back to a
 * small pool the moment deflate's `_transform` has finished with it (Node's zlib drops its
 * reference before the callback; deflate keeps its own window), and StreamBuf takes its next buffer
 * from that pool. Any difference in the internals it relies on is an error, not a silent fallback.
 */
function recycleSheetBuffers(sheet: WriterSheet): void {
  const changed = (what: string) => new ExporterError(`exceljs internals changed: ${what}; cannot recycle sheet buffers`);
  const stream = (sheet as unknown as { stream?: SheetStreamShape }).stream;
  if (!stream || typeof stream._getWritableBuffer !== 'function' || stream.batch !== true) {
    throw changed('the worksheet stream is not a batching StreamBuf');
  }
  const size = stream.bufSize;
  const buffers = stream.buffers;
  if (typeof size !== 'number' || !Array.isArray(buffers) || buffers.length === 0) {
    throw changed('StreamBuf has no bufSize or current buffer');
  }
  const sample = buffers[buffers.length - 1] as Partial<ReadWriteBufShape>;
  const fields = Object.keys(sample).sort().join(',');
  if (fields !== 'buffer,iRead,iWrite,size' || !Buffer.isBuffer(sample.buffer) || !('full' in sample)) {
    throw changed(`a StreamBuf ReadWriteBuf has the fields ${fields}`);
  }
  const ReadWriteBuf = (sample as object).constructor as { prototype: ReadWriteBufShape };
  const pipes = stream.pipes;
  if (!Array.isArray(pipes) || pipes.length !== 1 || typeof (pipes[0] as PipedStreamShape).pipe !== 'function') {
    throw changed('the worksheet stream does not feed one PassThrough');
  }

  const free: Buffer[] = [];
  const owned = new WeakSet<Buffer>();
  stream._getWritableBuffer = function getWritableBuffer(this: { buffers: ReadWriteBufShape[] }): ReadWriteBufShape {
    const last = this.buffers[this.buffers.length - 1];
    if (last && !last.full) return last;
    let buffer = free.pop();
    if (!buffer) {
      buffer = Buffer.allocUnsafeSlow(size);
      owned.add(buffer);
    }
    // Every byte is written before the buffer is read: StreamBuf hands on only full buffers
    // (batch mode) and copies the filled part of the last one when the sheet ends.
    const next = Object.create(ReadWriteBuf.prototype) as ReadWriteBufShape;
    next.size = size;
    next.buffer = buffer;
    next.iRead = 0;
    next.iWrite = 0;
    this.buffers.push(next);
    return next;
  };

  const hookDeflate = (destination: unknown) => {
    const target = destination as { _transform?: unknown } | null;
    if (!target || typeof target._transform !== 'function') throw changed('the zip entry stream has no _transform');
    const transform = target._transform as TransformFn;
    target._transform = function recyclingTransform(this: unknown, chunk, encoding, callback) {
      transform.call(this, chunk, encoding, (...args: unknown[]) => {
        callback(...args);
        if (Buffer.isBuffer(chunk) && owned.has(chunk) && free.length < MAX_RECYCLED_BUFFERS) free.push(chunk);
      });
    } satisfies TransformFn;
  };
  const passThrough = pipes[0] as PipedStreamShape;
  const state = passThrough._readableState;
  if (typeof state?.pipesCount !== 'number') throw changed('the PassThrough in front of the zip has no pipesCount');
  if (state.pipesCount === 0) {
    // archiver starts the entry (pipes it into deflate) once the entries before it are written.
    const pipe = passThrough.pipe;
    passThrough.pipe = function hookedPipe(this: unknown, destination, options) {
      hookDeflate(destination);
      passThrough.pipe = pipe;
      return pipe.call(this, destination, options);
    };
  } else if (state.pipesCount === 1) {
    hookDeflate(state.pipes);
  } else {
    throw changed('the PassThrough in front of the zip feeds several streams');
  }
}

/**
 * Paces the producer. exceljs's internal buffers ignore backpressure, so after every few rows the
 * producer gives the zip pipeline a turn of the event loop, then waits while `out` reports a full
 * buffer (a slow destination such as an S3 upload) or while too much XML waits to be compressed.
 */
class OutputFlow {
  private failure: Error | undefined;

  constructor(private readonly out: Writable) {
    // Remembered, not thrown: the producer learns of it at its next row instead of waiting forever.
    out.on('error', (error: Error) => {
      this.failure ??= error;
    });
    out.on('close', () => {
      if (!out.writableFinished) this.failure ??= new Error('The output stream closed before the workbook was written');
    });
  }

  throwIfFailed(): void {
    if (this.failure) throw outputWriteError('the Excel workbook', this.failure);
  }

  async relieve(pendingXml: () => number): Promise<void> {
    await new Promise((resolve) => setImmediate(resolve));
    for (;;) {
      this.throwIfFailed();
      if (this.out.writableNeedDrain) await this.drained();
      // A short sleep, not setImmediate: it leaves the CPU to the deflate thread on a 2-core machine.
      else if (pendingXml() > MAX_PENDING_XML_BYTES) await new Promise((resolve) => setTimeout(resolve, 2));
      else return;
    }
  }

  private drained(): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        this.out.off('drain', done);
        this.out.off('error', done);
        this.out.off('close', done);
        resolve();
      };
      this.out.on('drain', done);
      this.out.on('error', done);
      this.out.on('close', done);
    });
  }
}
