/**
 * The Summary as the workbook's Summary sheet has it (summary-sheet.ts), in the same order and words:
 * the title, then each section with its label/value lines and its table, a section kept on one page.
 * Fills are the workbook's (the register's colours, the predictability band); a percentage column
 * marked `bar` gets a bar behind its figures; links lead to the item on the web.
 */
import { textColourOn } from '../../core/contrast';
import { isLink, webUrlOf, type CellValue, type ColumnType, type ReportSummary, type SummaryGrid, type SummaryLine, type SummarySection } from '../../table/table';
import { BOLD, CONTENT_WIDTH, type Doc, type Flow, INK, LINK, MUTED, PAGE, REGULAR, type Row, ruleUnder, tableCell, textRow } from './page';
import type { PdfValueFormat } from './values';
import { oneLineWidth, wrappableText } from './wrap-text';

const BODY = 9.5;
const SMALL = 8;
const LABEL_WIDTH = 190;
const PAD = 2.5;
const BAR_COLOUR = '#C9D9FB';

interface Cell {
  readonly text: string;
  readonly x: number;
  readonly width: number;
  readonly font: string;
  readonly size: number;
  readonly color: string;
  readonly align: 'left' | 'right';
  readonly link?: string | undefined;
  readonly fill?: string | null | undefined;
  /** 0…1: the share of the cell a data bar fills. */
  readonly bar?: number | undefined;
}

/** The Summary's sections for readers: all but the run's metadata (`about`), which drawAbout places last. */
export function drawSummary(doc: Doc, flow: Flow, summary: ReportSummary, format: PdfValueFormat): void {
  flow.keep([textRow(doc, summary.title, { font: BOLD, size: 16, after: 6, tag: { type: 'H1' } })]);
  for (const section of summary.sections.filter((s) => s.role !== 'about')) {
    flow.gap(10);
    const rows = sectionRows(doc, section, format);
    // A table longer than the page goes on with its header on top of the next.
    flow.keep(rows, section.grid ? rows[1 + section.lines.length] : undefined);
  }
}

/**
 * The run's metadata (About this run, Scope, Rows) in small print at the end of the document: it
 * fills what the last page leaves, broken between lines where it must, but a heading keeps its
 * first two lines and the last two lines stay together, so no page ends on a heading alone or
 * starts with one line of it. `note` (what a placeholder for unprintable characters means) closes
 * the first of them: it is about how this file was made, and on page 1 it stood above the report's
 * own figures.
 */
export function drawAbout(doc: Doc, flow: Flow, summary: ReportSummary, format: PdfValueFormat, note?: string): void {
  const sections = summary.sections.filter((s) => s.role === 'about');
  for (const [i, section] of sections.entries()) {
    flow.gap(8);
    const rows = sectionRows(doc, section, format);
    if (i === 0 && note !== undefined) rows.push(textRow(doc, note, { size: SMALL, color: MUTED, before: 2, after: 4 }));
    for (const block of unbroken(rows)) flow.keep(block);
  }
  // A summary without run metadata still says it, at the end.
  if (sections.length === 0 && note !== undefined) flow.keep([textRow(doc, note, { size: SMALL, color: MUTED, after: 4 })]);
}

/**
 * Rows in the blocks a page may break between: the heading with the first two lines, the last two
 * lines together, one line at a time between them (a block of four when one line would be left).
 */
export function unbroken<T>(rows: readonly T[]): T[][] {
  const head = rows.slice(0, 3);
  const tailStart = Math.max(head.length, rows.length - 2);
  const tail = rows.slice(tailStart);
  if (tail.length === 1) return [[...head, ...tail]];
  const middle = rows.slice(head.length, tailStart).map((row) => [row]);
  return [head, ...middle, ...(tail.length > 0 ? [tail] : [])].filter((block) => block.length > 0);
}

function sectionRows(doc: Doc, section: SummarySection, format: PdfValueFormat): Row[] {
  const about = section.role === 'about';
  const rows: Row[] = [textRow(doc, section.heading, { font: BOLD, size: about ? 9 : 12, color: about ? MUTED : INK, after: 3, tag: { type: 'H2' } })];
  for (const line of section.lines) rows.push(lineRow(doc, line, about, format));
  if (section.grid) rows.push(...gridRows(doc, section, section.grid, format));
  return rows;
}

function lineRow(doc: Doc, line: SummaryLine, about: boolean, format: PdfValueFormat): Row {
  const size = about ? SMALL : BODY;
  const color = about ? MUTED : INK;
  const valueX = PAGE.left + LABEL_WIDTH;
  const valueWidth = line.delta ? 110 : CONTENT_WIDTH - LABEL_WIDTH;
  // A changed item's label leads to its tracker page (a web link annotation), as in the e-mail.
  const web = line.link && webUrlOf(line.link);
  const cells: Cell[] = [
    { text: line.label, x: PAGE.left, width: LABEL_WIDTH - 6, font: REGULAR, size, color, align: 'left', ...(web !== undefined && { link: web, color: LINK }) },
    valueCell(line.value, line.type, { x: valueX, width: valueWidth, font: about ? REGULAR : BOLD, size, color }, format),
  ];
  if (line.delta) {
    cells.push({ text: line.delta, x: valueX + valueWidth, width: CONTENT_WIDTH - LABEL_WIDTH - valueWidth, font: REGULAR, size: SMALL, color: MUTED, align: 'left' });
  }
  return cellsRow(doc, cells, 1);
}

function valueCell(
  value: CellValue,
  type: ColumnType | undefined,
  place: Pick<Cell, 'x' | 'width' | 'font' | 'size' | 'color'>,
  format: PdfValueFormat,
  align: Cell['align'] = 'left',
): Cell {
  const link = isLink(value) ? webUrlOf(value) : undefined;
  return { ...place, text: format.cell(value, type), align, link, ...(link && { color: LINK }) };
}

/** Column widths of a section's table: the first (a name) as wide as it needs within limits, the rest shared. */
function columnWidths(doc: Doc, section: SummarySection, grid: SummaryGrid, format: PdfValueFormat): number[] {
  const n = grid.columns.length;
  if (section.role === 'attention' && n === 3) return [90, 170, CONTENT_WIDTH - 260];
  doc.font(REGULAR).fontSize(BODY);
  const firstTexts = [grid.columns[0]?.label ?? '', ...grid.rows.map((r) => format.cell(r.values[0], grid.columns[0]?.type))];
  const wanted = Math.max(...firstTexts.map((t) => oneLineWidth(doc, t))) + 2 * PAD + 4;
  const rest = n - 1;
  const first = rest === 0 ? CONTENT_WIDTH : Math.min(Math.max(wanted, 110), CONTENT_WIDTH - rest * 48, 230);
  const other = rest === 0 ? 0 : Math.min((CONTENT_WIDTH - first) / rest, 90);
  return [first, ...Array.from({ length: rest }, () => other)];
}

const isFigure = (type: ColumnType | undefined) => type === 'integer' || type === 'number' || type === 'percent';

function gridRows(doc: Doc, section: SummarySection, grid: SummaryGrid, format: PdfValueFormat): Row[] {
  const widths = columnWidths(doc, section, grid, format);
  const xs = widths.map((_, i) => PAGE.left + widths.slice(0, i).reduce((a, b) => a + b, 0));
  const header = cellsRow(
    doc,
    grid.columns.map((c, i) => ({ text: c.label, x: xs[i]!, width: widths[i]!, font: BOLD, size: SMALL, color: MUTED, align: isFigure(c.type) ? 'right' : 'left' })),
    2,
    true,
  );
  const rows = grid.rows.map((row) =>
    cellsRow(
      doc,
      grid.columns.map((c, i) => {
        const value = row.values[i];
        const cell = valueCell(value, c.type, { x: xs[i]!, width: widths[i]!, font: REGULAR, size: BODY, color: INK }, format, isFigure(c.type) ? 'right' : 'left');
        const bar = c.bar && typeof value === 'number' && Number.isFinite(value) ? Math.max(0, Math.min(1, value / 100)) : undefined;
        return { ...cell, fill: row.fills?.[i], bar };
      }),
      2,
    ),
  );
  return [header, ...rows];
}

/**
 * A row of cells side by side, as tall as its tallest (wrapped) cell: a table row to a screen reader
 * (a line's label and value too), its cells TH in a header (`ruled`), TD otherwise.
 */
function cellsRow(doc: Doc, cells: readonly Cell[], padY: number, ruled = false): Row {
  const inner = (c: Cell) => Math.max(1, c.width - 2 * PAD);
  const laid = cells.map((c) => {
    if (c.text === '') return { text: '', height: 0 };
    doc.font(c.font).fontSize(c.size);
    const text = wrappableText(doc, c.text, inner(c));
    return { text, height: doc.heightOfString(text, { width: inner(c) }) };
  });
  const height = Math.max(BODY + 2, ...laid.map((l) => l.height)) + 2 * padY;
  return {
    height,
    tag: { type: 'TR', header: ruled },
    draw(d, y, tr) {
      for (const [i, c] of cells.entries()) {
        tableCell(d, tr, ruled, () => {
          const fill = c.fill ? normalised(c.fill) : undefined;
          if (fill) d.rect(c.x, y, c.width, height).fill(fill);
          if (c.bar !== undefined && c.bar > 0) d.rect(c.x + 1, y + 1.5, (c.width - 2) * c.bar, height - 3).fill(BAR_COLOUR);
          const text = laid[i]!.text;
          if (text === '') return;
          const color = fill && !c.link ? textColourOn(fill) : c.color;
          d.font(c.font).fontSize(c.size).fillColor(color);
          d.text(text, c.x + PAD, y + padY, { width: inner(c), align: c.align, ...(c.link && { link: c.link, underline: true }) });
        });
      }
      if (ruled) ruleUnder(d, tr !== undefined, PAGE.left + CONTENT_WIDTH, y + height - 0.5);
    },
  };
}

/** `#rrggbb` of a fill given as `#rrggbb`, `rrggbb` or `aarrggbb`; undefined for anything else (no fill, as in the workbook). */
function normalised(colour: string): string | undefined {
  const hex = colour.replace(/^#/, '');
  if (!/^([0-9a-f]{6}|[0-9a-f]{8})$/i.test(hex)) return undefined;
  return `#${hex.length === 8 ? hex.slice(2) : hex}`;
}

