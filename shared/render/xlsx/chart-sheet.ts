/**
 * A sheet of small tables, each with a native chart beside it (the Trends sheet): a heading, one
 * sentence, then per block a title, a header row (the category column, then one column per
 * figure) and a row per category. The charts refer to the tables' cells, so a reader can restyle
 * them, extend them or copy them into a slide.
 */
import { worksheetText } from '../cell-text';
import type { Paper } from '../paper';
import { DAY_MS } from '../../core/clock';
import type { ZoneClock } from '../time-zone';
import { columnLetters, type ExcelValue, Kind, producedKind, type StyleBook, type StyleModel, toExcel } from './cells';
import { rangeRef, type ChartAnchor, type ChartCategories, type ChartPart, type ChartSeries } from './chart-parts';
import type { WriterRow, WriterSheet } from './exceljs-internals/writer';
import { DEFAULT_COLUMN_WIDTH, fittedPageHeightPt, headerLines, LINE_PT, rowHeightFor } from './print-setup';

export interface ChartBlockColumn {
  readonly label: string;
  /** `percent` values are 0-100 and are written as Excel percentages. */
  readonly format: 'integer' | 'number' | 'percent';
}

/** A constant drawn as a dashed line over a chart (an edge of a target band): not a column of the table. */
export interface ChartLine {
  readonly label: string;
  /** In the unit of the chart's series (0-100 for percentages). */
  readonly value: number;
}

export interface ChartBlock {
  readonly title: string;
  readonly categoryLabel: string;
  readonly columns: readonly ChartBlockColumn[];
  readonly rows: readonly ChartBlockRow[];
  readonly chart?: {
    readonly kind: 'line' | 'column';
    /** Indexes into `columns`. */
    readonly series: readonly number[];
    /** Constants drawn as dashed lines over the chart (a target band), said once in `note` rather than repeated on every row. */
    readonly lines?: readonly ChartLine[];
  };
  /** One sentence under the table (what the chart's dashed lines are). */
  readonly note?: string;
}

export interface ChartBlockRow {
  /** The category as a reader reads it (the PDF's first column). */
  readonly category: string;
  /**
   * A category that is a moment (a run of the Trends): the workbook's cell holds it as a date in the
   * report's zone, with its time when `timed` (two runs of one day), and `category` is its text elsewhere.
   */
  readonly at?: Date;
  readonly timed?: boolean;
  readonly values: readonly (number | null)[];
}

export interface ChartSheetDeps {
  readonly styles: StyleBook;
  /** Dated categories hold the wall-clock time of the report's zone. */
  readonly clock: ZoneClock;
  /** The paper it prints on: where its page breaks fall. */
  readonly paper: Paper;
}

export interface ChartSheetContent {
  readonly heading: string;
  readonly sentence: string;
  readonly blocks: readonly ChartBlock[];
}

/** Rows a chart is tall; a block with a chart takes at least this many rows and a blank one. */
export const CHART_ROWS = 16;
const CHART_COLUMNS = 8;
/** Colour-blind-safe series colours (Okabe-Ito), then the band's grey, as RGB hex: the workbook's and the PDF's charts. */
export const PALETTE = ['0072B2', 'D55E00', '009E73', 'CC79A7', 'E69F00', '56B4E9', 'F0E442', '000000'];
export const BAND_COLOR = '7F7F7F';

export type PlacedChart = { readonly anchor: ChartAnchor; readonly part: ChartPart };

/** Writes the rows and returns the charts to attach (before the sheet is committed). */
export function writeChartSheetRows(sheet: WriterSheet, sheetName: string, content: ChartSheetContent, deps: ChartSheetDeps): PlacedChart[] {
  const { styles } = deps;
  const widest = Math.max(1, ...content.blocks.map((b) => b.columns.length + 1));
  // The run column holds a date-time where two runs share a day: `11/16/2026, 03:30 PM` (en-US).
  const widthOf = (i: number) => (i === 0 ? 21 : 14);
  // A band's edges (chart.lines) are no columns of the table: the chart reads them from hidden columns past it.
  const bandAt = widest + 1 + CHART_COLUMNS;
  const lines = Math.max(0, ...content.blocks.map((b) => b.chart?.lines?.length ?? 0));
  sheet.columns = [
    ...Array.from({ length: widest }, (_, i) => ({ width: widthOf(i) })),
    // The gap and the chart's columns keep Excel's default width (an explicit 8.43 is narrower: the page's scale would change).
    ...(lines > 0 ? [...Array.from({ length: bandAt - widest }, () => ({})), ...Array.from({ length: lines }, () => ({ hidden: true }))] : []),
  ];
  const pastChart = (cells: Cell[], band: Cell[]): Cell[] => (band.length === 0 ? cells : [...cells, ...Array<Cell>(bandAt - cells.length).fill(NO_CELL), ...band]);
  // The sheet prints fitted to the page width, the charts included: a gap column, then the chart's.
  const printed = [...Array.from({ length: widest }, (_, i) => widthOf(i)), ...Array<number>(1 + CHART_COLUMNS).fill(DEFAULT_COLUMN_WIDTH)];
  const pageHeight = fittedPageHeightPt('landscape', printed, deps.paper);
  let usedOnPage = 0;
  let previous: WriterRow | undefined;
  let rowNo = 0;
  const add = (cells: readonly Cell[], height?: number) => {
    const row = sheet.addRow(undefined);
    row.style = styles.row;
    if (height !== undefined) row.height = height;
    usedOnPage += height ?? LINE_PT;
    previous = row;
    cells.forEach((c, i) => {
      if (c.value === null) return;
      const cell = row.getCell(i + 1);
      cell.value = c.value;
      cell.style = c.style;
    });
    row.commit();
    return ++rowNo;
  };
  add([{ value: worksheetText(content.heading), style: styles.title }]);
  add([{ value: worksheetText(content.sentence), style: styles.oneLine }]);
  add([]);
  const charts: PlacedChart[] = [];
  for (const block of content.blocks) {
    const labels = [block.categoryLabel, ...block.columns.map((c) => c.label)];
    // Header labels wrap (theme and board names are long): a streamed row does not grow by itself.
    const headerHeight = rowHeightFor(Math.max(...labels.map((label, i) => headerLines(label, widthOf(i)))));
    // A chart is one drawing: printed across a page break, its top half ends one page and its
    // bottom half starts the next. A block that would not fit in what is left of the page starts a
    // new one (a manual break, so LibreOffice's roomier pages break at the same rows).
    const charted = block.chart !== undefined && block.rows.length > 0;
    const tableRows = block.rows.length + (block.note === undefined ? 0 : 1);
    const blockHeight = (headerHeight ?? LINE_PT) + LINE_PT * (charted ? Math.max(CHART_ROWS, tableRows + 1) : tableRows + 2);
    if (previous && usedOnPage + blockHeight > pageHeight) {
      previous.addPageBreak();
      usedOnPage = 0;
    }
    const titleRow = add([{ value: worksheetText(block.title), style: styles.sectionHeading }]);
    // A figure's header sits right, over its numbers (a number cell aligns right by itself).
    const band = charted ? (block.chart?.lines ?? []) : [];
    const headerRow = add(
      pastChart(
        labels.map((label, i) => ({ value: worksheetText(label), style: i === 0 ? styles.header : styles.figureHeader })),
        band.map((line) => ({ value: worksheetText(line.label), style: styles.figureHeader })),
      ),
      headerHeight,
    );
    const percent = block.columns.every((c) => c.format === 'percent');
    const categories = block.rows.map((r) => categoryCell(r, deps));
    for (const [n, r] of block.rows.entries()) {
      add(
        pastChart(
          [categories[n]!, ...block.columns.map((c, i) => figureCell(r.values[i] ?? null, c.format, styles))],
          band.map((line) => figureCell(line.value, percent ? 'percent' : 'number', styles)),
        ),
      );
    }
    const dataEnd = headerRow + block.rows.length;
    if (block.note !== undefined) add([{ value: worksheetText(block.note), style: styles.oneLine }]);
    if (charted) {
      charts.push({
        anchor: { fromCol: widest + 1, fromRow: titleRow - 1, toCol: widest + 1 + CHART_COLUMNS, toRow: titleRow - 2 + CHART_ROWS },
        part: chartOf(sheetName, block, { header: headerRow, last: dataEnd, band: bandAt }, chartCategories(block, categories)),
      });
      while (rowNo < titleRow + CHART_ROWS) add([]);
    } else {
      add([]);
    }
  }
  return charts;
}

type Cell = { readonly value: ExcelValue; readonly style: object };
const NO_CELL: Cell = { value: null, style: {} };

function figureCell(value: number | null, format: ChartBlockColumn['format'], styles: StyleBook): Cell {
  return { value: value === null ? null : format === 'percent' ? value / 100 : value, style: styles.of(styleKind(format)) };
}

function styleKind(format: ChartBlockColumn['format']): Kind {
  return format === 'percent' ? Kind.PercentFraction : format === 'integer' ? Kind.Integer : Kind.Number;
}

/** The first cell of a row: a dated category as a date cell (text where Excel has no date for it), any other as text. */
function categoryCell(row: ChartBlockRow, deps: ChartSheetDeps): { value: ExcelValue; style: StyleModel } {
  if (row.at === undefined) return { value: worksheetText(row.category), style: deps.styles.oneLine };
  const value = toExcel(row.at, 'datetime', deps.clock);
  if (producedKind !== Kind.DateTime) return { value: worksheetText(row.category), style: deps.styles.oneLine };
  return { value, style: deps.styles.leftAligned(row.timed ? Kind.DateTime : Kind.Date) };
}

/** What the chart caches of its category cells: their texts, or the dates' serials and number formats when every one is a date. */
function chartCategories(block: ChartBlock, cells: readonly { value: ExcelValue; style: StyleModel }[]): ChartCategories {
  const dated = cells.length > 0 && cells.every((c) => c.value instanceof Date);
  if (!dated) return block.rows.map((r) => r.category);
  return cells.map((c) => ({ serial: excelSerial(c.value as Date), format: c.style.numFmt ?? 'General' }));
}

/** Excel's serial of a wall-clock Date (its UTC fields), as exceljs writes the cell: days since 1899-12-30. */
function excelSerial(wall: Date): number {
  return wall.getTime() / DAY_MS + 25_569;
}

/** Where a block's table sits: its header row, its last data row, and the first (hidden) column of its band's edges (0-based). */
type TablePlace = { readonly header: number; readonly last: number; readonly band: number };

function chartOf(sheetName: string, block: ChartBlock, place: TablePlace, categories: ChartCategories): ChartPart {
  const chart = block.chart!;
  const first = place.header + 1;
  const percent = chart.series.every((i) => block.columns[i]?.format === 'percent');
  /** A series over the cells of `column` (0-based), its values as the cells hold them (a percentage as a fraction). */
  const seriesOf = (column: number, name: string, values: readonly (number | null)[], scale: number, color: string, dashed = false): ChartSeries => {
    const letter = columnLetters(column + 1);
    return {
      name,
      nameRef: rangeRef(sheetName, letter, place.header, place.header),
      valuesRef: rangeRef(sheetName, letter, first, place.last),
      values: values.map((v) => (v === null ? null : v / scale)),
      color,
      dashed,
    };
  };
  const scaleOf = (format: ChartBlockColumn['format'] | undefined) => (format === 'percent' ? 100 : 1);
  const lines = chart.lines ?? [];
  return {
    title: block.title,
    kind: chart.kind,
    categoriesRef: rangeRef(sheetName, 'A', first, place.last),
    categories,
    series: chart.series.map((i, n) =>
      seriesOf(i + 1, block.columns[i]!.label, block.rows.map((r) => r.values[i] ?? null), scaleOf(block.columns[i]!.format), PALETTE[n % PALETTE.length]!),
    ),
    overlay: lines.map((line, j) => seriesOf(place.band + j, line.label, block.rows.map(() => line.value), percent ? 100 : 1, BAND_COLOR, true)),
    ...(lines.length > 0 && { hiddenCells: true }),
    valueFormat: percent ? '0%' : '0',
  };
}
