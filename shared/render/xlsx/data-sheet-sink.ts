/**
 * One data table streamed into its sheet (and its continuations past Excel's row limit): the sink
 * `XlsxWorkbook.openSheet` hands out. What the columns say about their cells is worked out once per
 * table (`SheetColumns`); the sink keeps only what changes row by row.
 */
import { ExporterError } from '../../core/errors';
import type { CellValue, TableDefinition, TableRow, TableSink } from '../../table/table';
import { worksheetText } from '../cell-text';
import type { Paper } from '../paper';
import type { ZoneClock } from '../time-zone';
import { capLinks, columnLetters, fitWrapped, Kind, producedKind, type StyleBook, type StyleModel, toExcel, widthOf } from './cells';
import { tuneDataSheet } from './exceljs-internals/data-sheet';
import { pendingXmlBytes } from './exceljs-internals/sheet-buffers';
import type { WriterRow, WriterSheet, WriterWorkbook } from './exceljs-internals/writer';
import { dataSheetSetup, rowHeightFor, type PageSetup } from './print-setup';

/** Rows between yields to the event loop; ~10-50 keeps exceljs's buffers small at no time cost. */
const ROWS_PER_YIELD = 32;
/** Excel's 1,048,576 rows a sheet, less the header. */
const EXCEL_MAX_DATA_ROWS = 1_048_575;
/** Excel's outline depth limit. */
export const MAX_OUTLINE_LEVEL = 7;

/** What a data sheet takes from the workbook it is part of. */
export interface DataSheetHost {
  readonly workbook: WriterWorkbook;
  readonly styles: StyleBook;
  readonly clock: ZoneClock;
  readonly paper: Paper;
  readonly footer: { oddFooter: string };
  readonly maxRowsPerSheet: number | undefined;
  readonly maxHyperlinksPerSheet: number | undefined;
  /** A sheet name not taken yet, made from `name`. */
  uniqueSheetName(name: string): string;
  /** Marks which sheet is open (undefined: none), so nothing else is written meanwhile. */
  sheetOpened(name: string | undefined): void;
  /** The writer's pacing, given the sheet's XML still waiting to be compressed. */
  relieve(pendingXml: () => number): Promise<void>;
}

/** One sheet of the table: the first, or a continuation past Excel's row limit. */
interface OpenPart {
  readonly sheet: WriterSheet;
  readonly pendingXml: () => number;
  links: number;
}

/**
 * What the columns of a table say about every cell, worked out once, in the sheet's order: the short
 * columns first, then the long text (Column.longText), each group in the table's order. A table
 * printed across pages then keeps its short facts on the first pages, beside the repeated key and
 * title, and its descriptions on the last; the CSV and Parquet keep the table's own order.
 */
class SheetColumns {
  readonly count: number;
  readonly columns: TableDefinition['columns'];
  /** Per sheet column: the index of its value in a row (the table's order). */
  readonly source: number[];
  /** Per table column: its place in the sheet (a row's fill names a table column). */
  readonly placeOf: number[];
  readonly types: TableDefinition['columns'][number]['type'][];
  /** Per column: 0 as the kind says, 1 text on one line (ids), 2 text indented by the row's level. */
  readonly variants: number[];
  readonly hasVariants: boolean;
  readonly widths: number[];
  /** Per column: whether its text wraps (and so may need a taller row). */
  readonly wraps: boolean[];
  readonly inWords: (((text: string) => string) | undefined)[];

  constructor(tableColumns: TableDefinition['columns']) {
    const indices = tableColumns.map((_, i) => i);
    const last = (i: number) => tableColumns[i]!.longText === true && !tableColumns[i]!.hidden;
    this.source = [...indices.filter((i) => !last(i)), ...indices.filter(last)];
    this.placeOf = indices.map((i) => this.source.indexOf(i));
    const columns = this.source.map((i) => tableColumns[i]!);
    this.columns = columns;
    this.count = columns.length;
    this.types = columns.map((c) => c.type);
    this.variants = columns.map((c) => (c.indentByLevel ? 2 : c.nowrap ? 1 : 0));
    this.hasVariants = this.variants.some((v) => v !== 0);
    this.widths = columns.map((c) => widthOf(c.type, c.label ?? c.key, c.width));
    this.wraps = columns.map((c, i) => !c.nowrap && !c.hidden && this.variants[i] !== 1);
    this.inWords = columns.map((c) => c.inWords);
  }
}

export class DataSheetSink implements TableSink {
  private readonly title: string;
  private readonly columns: SheetColumns;
  private readonly outlineLevels: number;
  private readonly maxRows: number;
  private current: OpenPart;
  private part = 1;
  private rowsInSheet = 0;
  private rows = 0;
  private sinceYield = 0;
  private closed = false;

  constructor(
    private readonly host: DataSheetHost,
    table: TableDefinition,
    outlineLevels: number,
  ) {
    this.title = table.title ?? table.name;
    this.columns = new SheetColumns(table.columns);
    this.outlineLevels = clampOutline(outlineLevels);
    this.maxRows = Math.max(1, host.maxRowsPerSheet ?? EXCEL_MAX_DATA_ROWS);
    this.current = this.startSheet(host.uniqueSheetName(this.title));
  }

  writeRow(row: TableRow): Promise<void> | void {
    if (this.closed) throw new ExporterError(`The sheet "${this.title}" is closed`);
    if (this.rowsInSheet >= this.maxRows) {
      // Past Excel's limit the table goes on in "Board items (2)", … rather than failing the export.
      this.finishSheet();
      this.current = this.startSheet(this.host.uniqueSheetName(`${this.title} (${++this.part})`));
      this.rowsInSheet = 0;
    }
    const target = this.current.sheet.addRow(undefined);
    target.style = this.host.styles.row;
    const lines = this.writeCells(target, row);
    const height = rowHeightFor(lines);
    if (height !== undefined) target.height = height;
    if (row.outlineLevel) target.outlineLevel = clampOutline(row.outlineLevel);
    target.commit();
    this.rows += 1;
    this.rowsInSheet += 1;
    if (++this.sinceYield >= ROWS_PER_YIELD) {
      this.sinceYield = 0;
      return this.host.relieve(this.current.pendingXml);
    }
  }

  close(): Promise<number> {
    if (this.closed) return Promise.reject(new ExporterError(`The sheet "${this.title}" is closed`));
    this.closed = true;
    this.finishSheet();
    this.host.sheetOpened(undefined);
    return Promise.resolve(this.rows);
  }

  /** The row's cells; returns the lines its tallest wrapped cell takes. */
  private writeCells(target: WriterRow, row: TableRow): number {
    const { styles, clock } = this.host;
    const c = this.columns;
    const fill = row.fill;
    const fillColumn = fill && Number.isInteger(fill.column) && fill.column >= 0 && fill.column < c.count ? c.placeOf[fill.column]! : -1;
    let lines = 1;
    for (let i = 0; i < c.count; i++) {
      const wrapped = fitWrapped(toExcel(inWordsOf(row.values[c.source[i]!], c.inWords[i]), c.types[i], clock), c.wraps[i] ? c.widths[i]! : 0);
      lines = Math.max(lines, wrapped.lines);
      const value = capLinks(wrapped.value, this.current, this.host.maxHyperlinksPerSheet);
      const style = i === fillColumn ? styles.withFill(producedKind, fill!.color) : undefined;
      // Empty text is an empty cell, as in the CSV (and Excel's ISBLANK agrees).
      const empty = value === null || value === '';
      if (empty && style === undefined) continue;
      const cell = target.getCell(i + 1);
      cell.value = empty ? null : value;
      cell.style = style ?? (c.hasVariants && producedKind === Kind.Text ? this.textStyle(c.variants[i]!, row.outlineLevel) : styles.of(producedKind));
    }
    return lines;
  }

  private textStyle(variant: number, level: number | undefined): StyleModel {
    const styles = this.host.styles;
    return variant === 1 ? styles.oneLine : variant === 2 ? styles.indented(level ?? 0) : styles.of(Kind.Text);
  }

  private startSheet(name: string): OpenPart {
    this.host.sheetOpened(name);
    const { columns, widths } = this.columns;
    const setup = dataSheetSetup(widths.filter((_, i) => !columns[i]!.hidden), rowNamesOf(columns), '1:1', this.host.paper);
    const sheet = this.host.workbook.addWorksheet(name, {
      views: [frozenView(setup)],
      properties: {
        outlineLevelRow: this.outlineLevels,
        // Group headers (summary rows) sit above their details, as in a hierarchy.
        outlineProperties: { summaryBelow: false, summaryRight: false },
      },
      pageSetup: setup,
      headerFooter: this.host.footer,
    });
    // exceljs flags a row `collapsed` when its level >= this property, which it reads live but has
    // already written to the sheet header above: raised past any level, no visible row is marked
    // collapsed (Excel would show its group as closed while the rows are open).
    sheet.properties.outlineLevelRow = MAX_OUTLINE_LEVEL + 1;
    // Hidden, not dropped: internal ids and colour codes stay for whoever unhides them.
    sheet.columns = columns.map((c, i) => ({ width: widths[i]!, ...(c.hidden && { hidden: true }) }));
    this.writeHeader(sheet);
    const pendingXml = pendingXmlBytes(sheet);
    tuneDataSheet(sheet);
    return { sheet, pendingXml, links: 0 };
  }

  private writeHeader(sheet: WriterSheet): void {
    const { columns, count } = this.columns;
    const header = sheet.addRow(undefined);
    header.style = this.host.styles.row;
    for (let i = 0; i < count; i++) {
      const cell = header.getCell(i + 1);
      cell.value = worksheetText(columns[i]!.label ?? columns[i]!.key);
      cell.style = this.host.styles.header;
    }
    header.commit();
  }

  private finishSheet(): void {
    const { sheet } = this.current;
    if (this.columns.count > 0) sheet.autoFilter = `A1:${columnLetters(this.columns.count)}${this.rowsInSheet + 1}`;
    sheet.commit();
  }
}

/**
 * The columns that name a row, repeated on every page when a table prints across pages: its key
 * (`key`, else `id`, else the first visible column) through its title when one follows (`C:E` on
 * Risks: the risk key, its hidden id and its title), so every page can be tied to its rows.
 */
function rowNamesOf(columns: TableDefinition['columns']): string {
  const visible = (key: string) => columns.findIndex((c) => c.key === key && !c.hidden);
  const named = visible('key') >= 0 ? visible('key') : visible('id');
  const first = named >= 0 ? named : Math.max(0, columns.findIndex((c) => !c.hidden));
  const title = columns.findIndex((c, i) => i > first && c.key === 'title' && !c.hidden);
  return `${columnLetters(first + 1)}:${columnLetters((title >= 0 ? title : first) + 1)}`;
}

/**
 * The header row frozen; on a sheet that prints across pages also the columns up to the last one
 * that names a row, so scrolling right keeps the key and title in view as the printed pages do.
 */
function frozenView(setup: PageSetup): { state: 'frozen'; xSplit: number; ySplit: number; topLeftCell: string; activeCell: string } {
  const last = setup.printTitlesColumn?.split(':')[1];
  const xSplit = last === undefined ? 0 : columnNumber(last);
  const topLeftCell = `${columnLetters(xSplit + 1)}2`;
  return { state: 'frozen', xSplit, ySplit: 1, topLeftCell, activeCell: topLeftCell };
}

/** `E` → 5, `AA` → 27. */
function columnNumber(letters: string): number {
  return [...letters].reduce((n, c) => n * 26 + c.charCodeAt(0) - 64, 0);
}

function clampOutline(level: number): number {
  return Number.isFinite(level) ? Math.min(MAX_OUTLINE_LEVEL, Math.max(0, Math.trunc(level))) : 0;
}

/** A coded text value as people read it (Column.inWords); any other value as it is. */
function inWordsOf(value: CellValue, words: ((text: string) => string) | undefined): CellValue {
  return words && typeof value === 'string' ? words(value) : value;
}
