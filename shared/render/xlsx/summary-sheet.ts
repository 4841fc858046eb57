/**
 * The Summary sheet: the report for people, top to bottom as composed in shared/report/summary/
 * (headline figures, Needs attention, detail, then the run's metadata in small print). Label/value
 * lines and small tables share one column grid, narrow enough to print portrait with no text under
 * 8 pt (print-setup.ts); a section that would not fit on the page it starts on begins a new page:
 *
 *   A (12)   B (22)                 C … I (7 each)
 *   label (A:B, wraps) ────────►    value                 (lines)
 *   first column (A:B, wraps) ─►    2nd, 3rd, … columns   (tables: theme, board, level …)
 *   What     Item (link)            Why ─────────────►    (Needs attention)
 *
 * Cells hold their text as it is; the layout fits it, nothing is hyphenated or cut. A label longer
 * than A:B wraps there, its row as tall as its lines. A table whose header has a word wider than a
 * narrow column ("Predictability", "Uncommitted") sets its narrow headers upright, wrapped at their
 * spaces, in a row as tall as its longest line: widening the columns instead would shrink the
 * printed page under its 8-point floor (print-setup.ts).
 *
 * Fills come from the figures (the register's colours, the predictability band); percentage
 * columns marked `bar` get a data bar; links starting with `#` jump to a row of the workbook.
 */
import { isLink, type CellValue, type ColumnType, type ReportSummary, type SummaryGrid, type SummaryLine, type SummarySection } from '../../table/table';
import type { ZoneClock } from '../time-zone';
import { inferType, Kind, producedKind, type StyleBook, type StyleModel, toExcel, wrappedLink } from './cells';
import type { WriterRow, WriterSheet } from './exceljs-internals/writer';
import type { Paper } from '../paper';
import { cellLines, LINE_PT, rowHeightFor, summaryPageHeightPt, wrappedLines } from './print-setup';

export const SUMMARY_COLUMN_WIDTHS: readonly number[] = [12, 22, 7, 7, 7, 7, 7, 7, 7];
const widths = SUMMARY_COLUMN_WIDTHS;
/** Characters from column `from` to the last, where long text wraps in one merged cell. */
const spanFrom = (from: number) => widths.slice(from - 1).reduce((a, b) => a + b, 0);
/** Lines of a wrapped Summary cell (links, table headers) in its column. */
const lineCount = (value: unknown, column: number) => cellLines(value, widths[column - 1] ?? 11);
/** Characters of A:B, where a line's label runs or wraps. */
const LABEL_SPAN = widths[0]! + widths[1]!;
const BAR_COLOUR = 'FF5B8DEF';
const FONT = { name: 'Calibri', family: 2 } as const;

const STYLE = {
  /** Labels run into the empty cell beside them: never wrapped. */
  label: { alignment: { vertical: 'top' }, font: { ...FONT, size: 11 } },
  value: { alignment: { vertical: 'top' }, font: { ...FONT, size: 11, bold: true } },
  /** Text in a table's later columns: indented, so it does not run into a number on its left. */
  gridText: { alignment: { vertical: 'top', indent: 1 }, font: { ...FONT, size: 11 } },
  gridHeader: {
    alignment: { vertical: 'bottom', wrapText: true },
    font: { ...FONT, size: 10, bold: true, color: { argb: 'FF52606D' } },
    border: { bottom: { style: 'thin', color: { argb: 'FFB0B8C1' } } },
  },
  /** A narrow column's header set upright (read bottom to top), wrapped at its spaces. */
  uprightHeader: {
    alignment: { vertical: 'bottom', horizontal: 'center', wrapText: true, textRotation: 90 },
    font: { ...FONT, size: 10, bold: true, color: { argb: 'FF52606D' } },
    border: { bottom: { style: 'thin', color: { argb: 'FFB0B8C1' } } },
  },
  // 10 pt: the smallest text, printed at 8 pt or more (see print-setup.ts).
  small: { alignment: { vertical: 'top' }, font: { ...FONT, size: 10, color: { argb: 'FF616E7C' } } },
  smallHeading: { font: { ...FONT, size: 10, bold: true, color: { argb: 'FF616E7C' } } },
} satisfies Record<string, StyleModel>;

/** Where column `i` of a section's table goes (1-based sheet columns). */
function placement(section: SummarySection, i: number): number {
  if (section.role === 'attention') return i + 1;
  return i === 0 ? 1 : i + 2;
}

export interface SummarySheetDeps {
  readonly styles: StyleBook;
  readonly clock: ZoneClock;
  /** The paper it prints on: where its page breaks fall. */
  readonly paper: Paper;
  /** Called every few rows: the writer's pacing. */
  readonly relieve: () => Promise<void>;
}

/** A data bar over a percentage column, as exceljs models conditional formatting. */
interface DataBar {
  ref: string;
  rules: Record<string, unknown>[];
}

interface Cell {
  readonly column: number;
  readonly value: CellValue;
  readonly type?: ColumnType | undefined;
  readonly style?: StyleModel | undefined;
  readonly fill?: string | null | undefined;
  /** Text that runs from its column to H, wrapped in one merged cell. */
  readonly wide?: boolean;
  /** A label in A with B free beside it: wraps in A:B when longer. */
  readonly label?: boolean;
}

/** Numbers and dates in a line keep their format (from the StyleBook) and take the line's font. */
function lineStyles(styles: StyleBook): (kind: Kind, own: StyleModel | undefined) => StyleModel {
  const variants = new Map<StyleModel, Map<Kind, StyleModel>>();
  return (kind, own) => {
    if (!own || kind === Kind.Link) return styles.of(kind);
    if (kind === Kind.Text) return own;
    let byKind = variants.get(own);
    if (!byKind) variants.set(own, (byKind = new Map<Kind, StyleModel>()));
    let style = byKind.get(kind);
    if (!style) byKind.set(kind, (style = { ...styles.of(kind), ...(own.font && { font: own.font }) }));
    return style;
  };
}

export async function writeSummaryRows(sheet: WriterSheet, summary: ReportSummary, deps: SummarySheetDeps): Promise<void> {
  const writer = new SummaryWriter(sheet, deps);
  writer.addRow([{ column: 1, value: summary.title, style: deps.styles.title }]);
  // When the run was: under the title, where a printed page is first read (its "About this run" line is at the end).
  const when = runDateLine(summary);
  if (when) writer.addRow(lineCells(when, true));
  for (const section of summary.sections) await writer.writeSection(section);
  writer.finish();
}

/** The Summary's state as it is written top to bottom: the rows so far, what is used of the page, the data bars to add. */
class SummaryWriter {
  private rowNumber = 0;
  private readonly bars: DataBar[] = [];
  private readonly styleOf: (kind: Kind, own: StyleModel | undefined) => StyleModel;
  private readonly pageHeight: number;
  private usedOnPage = 0;
  private lastRow: WriterRow | undefined;

  constructor(
    private readonly sheet: WriterSheet,
    private readonly deps: SummarySheetDeps,
  ) {
    this.styleOf = lineStyles(deps.styles);
    this.pageHeight = summaryPageHeightPt(deps.paper);
  }

  async writeSection(section: SummarySection): Promise<void> {
    this.keepTogether(section);
    const about = section.role === 'about';
    this.addRow([]);
    this.addRow([{ column: 1, value: section.heading, style: about ? STYLE.smallHeading : this.deps.styles.sectionHeading }]);
    for (const line of section.lines) {
      this.addRow(lineCells(line, about));
      if (this.rowNumber % 32 === 0) await this.deps.relieve();
    }
    if (section.grid) await this.writeGrid(section, section.grid);
  }

  /** The data bars, once every row is written. */
  finish(): void {
    for (const bar of this.bars) this.sheet.addConditionalFormatting(bar);
  }

  addRow(cells: readonly Cell[]): void {
    const row = this.sheet.addRow(undefined);
    row.style = this.deps.styles.row;
    let lines = 1;
    let upright = 0;
    for (const c of cells) {
      if (c.value === null || c.value === undefined || c.value === '') continue;
      const placed = this.writeCell(row, c);
      if (placed.upright) upright = Math.max(upright, placed.upright);
      else lines = Math.max(lines, placed.lines);
    }
    const height = upright > 0 ? Math.max(upright, lines * LINE_PT) : rowHeightFor(lines);
    if (height !== undefined) row.height = height;
    this.usedOnPage += height ?? LINE_PT;
    row.commit();
    this.lastRow = row;
    this.rowNumber += 1;
  }

  /** One cell of a row: its value, its style, the lines it takes (or the points an upright header needs). */
  private writeCell(row: WriterRow, c: Cell): { lines: number; upright?: number } {
    const cell = row.getCell(c.column);
    // A linked label (a changed item) spans A:B as a plain one does.
    const linkedLabel = c.label === true && isLink(c.value);
    // A link that wraps in its column (a Needs attention item) is written so LibreOffice wraps it too (wrappedLink).
    cell.value = wrappedLink(toExcel(c.value, c.type ?? inferType(c.value), this.deps.clock), linkedLabel ? cellLines(c.value, LABEL_SPAN) : lineCount(c.value, c.column));
    cell.style = (c.fill ? this.deps.styles.withFill(producedKind, c.fill) : undefined) ?? this.styleOf(producedKind, c.style);
    const rowNumber = this.rowNumber + 1;
    // A date and time gets the same room as text: in its column alone a wider print font shows ###.
    if (c.wide && (producedKind === Kind.Text || producedKind === Kind.DateTime || producedKind === Kind.Link)) {
      this.sheet.mergeCells(rowNumber, c.column, rowNumber, widths.length);
      // Left-aligned like the text beside it: a date at the far end of eight columns reads as unrelated.
      cell.style = { ...cell.style, alignment: { ...cell.style.alignment, wrapText: true, horizontal: 'left' } };
      return { lines: wrappedLines(typeof cell.value === 'string' ? cell.value : '', spanFrom(c.column)) };
    }
    if (linkedLabel || (c.label && typeof cell.value === 'string' && wrappedLines(cell.value, LABEL_SPAN) > 1)) {
      // A label longer than A:B wraps there: running on, it would be cut by the value in C.
      this.sheet.mergeCells(rowNumber, 1, rowNumber, 2);
      cell.style = { ...cell.style, alignment: { ...cell.style.alignment, wrapText: true } };
      return { lines: cellLines(c.value, LABEL_SPAN) };
    }
    if (c.column === widths.length && producedKind === Kind.Text) {
      // Text in the last column has no cell to run into before the page edge: it wraps.
      cell.style = { ...cell.style, alignment: { ...cell.style.alignment, wrapText: true } };
      return { lines: lineCount(cell.value, c.column) };
    }
    if (producedKind === Kind.Link || c.style === STYLE.gridHeader) return { lines: lineCount(cell.value, c.column) };
    if (c.style === STYLE.uprightHeader && typeof c.value === 'string') return { lines: 1, upright: uprightHeight(c.value) };
    return { lines: 1 };
  }

  /** A page break before a section that would not fit in what is left of the page (unless it is longer than a page). */
  private keepTogether(section: SummarySection): void {
    const rows = 2 + section.lines.length + (section.grid ? 1 + section.grid.rows.length : 0);
    // Linked items usually wrap onto a second line.
    const estimate = (rows + (section.role === 'attention' ? (section.grid?.rows.length ?? 0) : 0)) * LINE_PT;
    if (this.lastRow && this.usedOnPage + estimate > this.pageHeight && estimate <= this.pageHeight) {
      this.lastRow.addPageBreak();
      this.usedOnPage = 0;
    }
  }

  private async writeGrid(section: SummarySection, grid: SummaryGrid): Promise<void> {
    this.addRow(headerCells(section, grid));
    const first = this.rowNumber + 1;
    for (const row of grid.rows) {
      this.addRow(gridRowCells(section, grid, row));
      if (this.rowNumber % 32 === 0) await this.deps.relieve();
    }
    this.addBars(section, grid, first, this.rowNumber);
  }

  /** A data bar over each of the grid's `bar` columns, rows `first` to `last`. */
  private addBars(section: SummarySection, grid: SummaryGrid, first: number, last: number): void {
    grid.columns.forEach((c, i) => {
      if (!c.bar || last < first) return;
      const letter = String.fromCharCode(64 + placement(section, i));
      this.bars.push({
        ref: `${letter}${first}:${letter}${last}`,
        rules: [
          {
            type: 'dataBar',
            priority: this.bars.length + 1,
            gradient: false,
            cfvo: [{ type: 'num', value: 0 }, { type: 'num', value: 1 }],
            color: { argb: BAR_COLOUR },
          },
        ],
      });
    });
  }
}

/** A row of a section's table: its cells placed on the Summary's grid. */
function gridRowCells(section: SummarySection, grid: SummaryGrid, row: SummaryGrid['rows'][number]): Cell[] {
  return grid.columns.map((c, i) => ({
    column: placement(section, i),
    value: row.values[i],
    type: c.type === 'link' ? undefined : c.type,
    // Text runs into the empty cells beside it (one line); links and figures take their own style.
    style: c.type === 'text' || c.type === undefined ? (i === 0 ? STYLE.label : STYLE.gridText) : undefined,
    fill: row.fills?.[i],
    // The last column's text (Why) runs to the page edge and wraps there; so does an "n more" row's
    // link, alone in its row (a link in its narrow column alone would wrap word by word).
    wide: (section.role === 'attention' && i === grid.columns.length - 1) || (row.more !== undefined && row.values[i] !== null && row.values[i] !== undefined),
    label: section.role !== 'attention' && i === 0,
  }));
}

/** The run's date and time: the first date-time line of the Summary's "About this run". */
function runDateLine(summary: ReportSummary): SummaryLine | undefined {
  return summary.sections.find((s) => s.role === 'about')?.lines.find((l) => l.type === 'datetime');
}

/** A label and value line's cells. */
function lineCells(line: SummaryLine, about: boolean): Cell[] {
  return [
    // A changed item's label jumps to its row in the workbook (or opens its tracker page), in the
    // workbook's link style as a Needs attention item is.
    { column: 1, value: line.link ? { ...line.link, text: line.label } : line.label, style: about ? STYLE.small : line.link ? undefined : STYLE.label, label: true },
    // Long metadata (every board of the scope) wraps whole: a reader needs all of it.
    { column: 3, value: line.value, type: line.type, style: about ? STYLE.small : STYLE.value, wide: !line.delta },
    // The change since the run compared with ("+4 since 16 Nov", docs/changes.md), beside the figure.
    ...(line.delta ? [{ column: 4, value: line.delta, style: STYLE.small }] : []),
  ];
}

/**
 * A table's header row, the labels as they are: each across its column, wrapped at its spaces; only a
 * narrow column's header with a word wider than the column stands upright ("Predictability"), since
 * across it would be broken inside the word. Setting every header of the row upright for one of them
 * stood 33 headers on end in the demo where most fit across.
 */
function headerCells(section: SummarySection, grid: SummaryGrid): Cell[] {
  return grid.columns.map((c, i) => {
    const column = placement(section, i);
    const upright = column > 2 && Math.max(...c.label.split(/\s+/).map(widthOfWord)) > NARROW_LINE;
    return { column, value: c.label, style: upright ? STYLE.uprightHeader : STYLE.gridHeader };
  });
}

/** Points an upright header needs: its longest line (at most two lines across a narrow column, broken at spaces), plus padding. */
function uprightHeight(label: string): number {
  const words = label.split(/\s+/);
  const joined = (from: number, to: number) => widthOfWord(words.slice(from, to).join(' '));
  // Two lines fit across a 7-wide column: the shorter longest line of the splits at a space, or the one word.
  let line = joined(0, words.length);
  for (let i = 1; i < words.length; i++) line = Math.min(line, Math.max(joined(0, i), joined(i, words.length)));
  return Math.ceil(line * POINTS_PER_LETTER + 10);
}

/**
 * How much of a narrow (C … I) column one line of a 10-point bold header fills, per character:
 * printed through LibreOffice's fit, a word wider than about 6.8 "average" letters in a 7-wide
 * column is broken wherever the column ends ("Progres/s", "Commit/ted"), so a column is widened to
 * its widest word by this measure.
 */
const NARROW_LINE = 6.8;
/** Points of one "average" letter of a 10-point bold header, printed in LibreOffice's wider stand-in font. */
const POINTS_PER_LETTER = 6.2;
const letterWidth = (ch: string): number => (/[mwMW]/.test(ch) ? 1.5 : /[A-Z]/.test(ch) ? 1.2 : /[iljtfr().,'’ -]/.test(ch) ? 0.6 : 1);
const widthOfWord = (word: string): number => [...word].reduce((sum, ch) => sum + letterWidth(ch), 0);

