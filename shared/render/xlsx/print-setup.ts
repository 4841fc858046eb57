/**
 * How sheets print, worked out from their column widths (docs/formats.md, "Printing"):
 *
 * - data sheets print landscape, fitted to the page width only when the text stays at 7 pt or
 *   more; wider tables print across pages at a readable scale, with the header row and the key
 *   column repeated on every page;
 * - the Summary prints portrait, fitted to the page width with its smallest text at 8 pt or more,
 *   on as many pages as it needs, with a page break before a section that would not fit on the page it starts on;
 * - wrapped text gets a row height for its lines: neither Excel nor LibreOffice grows a streamed
 *   row when the file is opened, so without one a long description prints over the rows below.
 *
 * Widths are in Excel's character units (the width of "0" in Calibri 11, 7 px at 96 dpi, plus 5 px
 * of padding per column). The paper is the report locale's (../paper.ts): A4, or Letter in the US and Canada.
 */
import type { Paper } from '../paper';

export const MARGINS = { left: 0.4, right: 0.4, top: 0.5, bottom: 0.6, header: 0.3, footer: 0.3 } as const;
const PX_PER_IN = 96;
/** Body text of the data sheets and the smallest text of the Summary, in points. */
const DATA_FONT_PT = 11;
/** The smallest printed text allowed. */
const MIN_DATA_PT = 7;
/** Height of one line of 11-point Calibri, in points (Excel's default row is 15). */
export const LINE_PT = 15;
/** Excel's largest row height. */
const MAX_ROW_PT = 409;

/** Excel's width of a column the sheet gives none (8.43 characters, 64 px). */
export const DEFAULT_COLUMN_WIDTH = 8.43;

function columnsPx(widths: readonly number[]): number {
  return widths.reduce((sum, w) => sum + Math.round(w * 7) + 5, 0);
}

function printableWidthPx(orientation: 'portrait' | 'landscape', paper: Paper): number {
  const across = orientation === 'portrait' ? paper.widthIn : paper.heightIn;
  return (across - MARGINS.left - MARGINS.right) * PX_PER_IN;
}

export interface PageSetup {
  readonly orientation: 'portrait' | 'landscape';
  readonly paperSize: Paper['excelPaperSize'];
  readonly margins: typeof MARGINS;
  readonly fitToWidth?: number;
  readonly fitToHeight?: number;
  readonly scale?: number;
  readonly printTitlesRow?: string;
  readonly printTitlesColumn?: string;
}

/**
 * A data sheet's setup from its visible columns' widths. `titleColumns`: the columns that name a row
 * (its key through its title, `C:E`), repeated when the table prints across pages.
 */
export function dataSheetSetup(widths: readonly number[], titleColumns: string, titlesRow: string, paper: Paper): PageSetup {
  const base = { orientation: 'landscape', paperSize: paper.excelPaperSize, margins: MARGINS, printTitlesRow: titlesRow } as const;
  const fit = Math.min(1, printableWidthPx('landscape', paper) / columnsPx(widths));
  if (DATA_FONT_PT * fit >= MIN_DATA_PT) return { ...base, fitToWidth: 1, fitToHeight: 0 };
  return { ...base, scale: Math.ceil((100 * MIN_DATA_PT) / DATA_FONT_PT), printTitlesColumn: titleColumns };
}

/**
 * The Summary fits its columns to a portrait page's width: they are chosen narrow enough (83
 * characters) that the fit keeps 10-point text at 8 pt or more even where Calibri is replaced by a
 * wider font (LibreOffice without Calibri measures about 10 px a character, so the fit is ~80 %).
 */
export function summarySetup(paper: Paper): PageSetup {
  return { orientation: 'portrait', paperSize: paper.excelPaperSize, margins: MARGINS, fitToWidth: 1, fitToHeight: 0 };
}

/** Points of rows on one printed portrait page at full scale (a smaller fit only adds room). */
export function summaryPageHeightPt(paper: Paper): number {
  return (paper.heightIn - MARGINS.top - MARGINS.bottom) * 72;
}

/**
 * Points of rows on one printed page of a sheet fitted to the page width (`fitToWidth: 1`), from
 * its columns' widths as Excel measures them (Calibri). LibreOffice without Calibri measures
 * columns in a wider font, fits them at a smaller scale and so holds more rows a page: a page laid
 * out by this height, with a manual break after it, fits on both.
 */
export function fittedPageHeightPt(orientation: 'portrait' | 'landscape', widths: readonly number[], paper: Paper): number {
  const down = orientation === 'portrait' ? paper.heightIn : paper.widthIn;
  const fit = Math.min(1, printableWidthPx(orientation, paper) / columnsPx(widths));
  return ((down - MARGINS.top - MARGINS.bottom) * 72) / fit;
}

/**
 * How much of a wrapped column's width a line of text fills before it breaks. Excel's width unit is
 * Calibri's "0"; running text averages narrower letters, but LibreOffice without Calibri prints in
 * DejaVu Sans, about a sixth wider (a 44-letter line wraps in a 50-wide column), and bold is wider
 * still. Counted this way the estimate errs towards a taller row (white space) rather than a line
 * cut off by the next row.
 */
const FILL = { text: 0.82, bold: 0.8 } as const;

/** Lines a text takes in a wrapped cell `width` characters wide, each paragraph wrapped at spaces. */
export function wrappedLines(text: string, width: number): number {
  const perLine = Math.max(1, Math.floor(width * FILL.text));
  return text.split('\n').reduce((n, paragraph) => n + wordWrapped(paragraph, perLine), 0);
}

/**
 * Lines of a bold header in a wrapped cell `width` characters wide, wrapped at spaces as Excel and
 * LibreOffice do: a count of characters alone says two lines where "Improve / pricing / model"
 * prints three.
 */
export function headerLines(text: string, width: number): number {
  return wordWrapped(text, Math.max(1, Math.floor(width * FILL.bold)));
}

/**
 * Characters printed twice as wide as a "0": Hangul jamo and syllables, CJK punctuation, kana and
 * ideographs (with the supplementary planes' ideographs), Yi, compatibility ideographs and the
 * fullwidth forms, as Unicode's East Asian Width calls them Wide or Fullwidth. Any font that has
 * them (Excel's and LibreOffice's CJK fallbacks) sets them a full em wide.
 */
const WIDE = /[\u1100-\u115f\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff\ua000-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6\u{20000}-\u{3fffd}]/gu;

/** Width of a text in characters of "0": a wide character counts two (an astral one is already two UTF-16 units). */
export function textWidth(text: string): number {
  let width = text.length;
  for (const [c] of text.matchAll(WIDE)) width += 2 - c.length;
  return width;
}

/** Lines of one paragraph, `perLine` characters a line: a word that does not fit goes whole to the next line, a longer one breaks. */
function wordWrapped(paragraph: string, perLine: number): number {
  // Most cells fit on one line: no need to split them into words (this runs for every wrapped cell of every row).
  if (paragraph.length <= perLine && textWidth(paragraph) <= perLine) return 1;
  let lines = 1;
  let used = 0;
  for (const word of paragraph.split(/\s+/).filter(Boolean)) {
    const width = textWidth(word);
    const needed = used === 0 ? width : used + 1 + width;
    if (needed <= perLine) used = needed;
    else {
      lines += used === 0 ? 0 : 1;
      lines += Math.floor(Math.max(0, width - 1) / perLine);
      used = width % perLine || perLine;
    }
  }
  return lines;
}

/** Lines a written cell value (text, or a link's text) takes in its wrapped column: 1 for anything but text. */
export function cellLines(value: unknown, width: number): number {
  const text = typeof value === 'string' ? value : typeof value === 'object' && value !== null && 'result' in value ? String(value.result) : typeof value === 'object' && value !== null && 'text' in value ? String(value.text) : '';
  return text === '' ? 1 : wrappedLines(text, width);
}

/** Row height in points for `lines` lines of 11-point text, or undefined for one line (Excel's default). */
export function rowHeightFor(lines: number): number | undefined {
  return lines > 1 ? Math.min(MAX_ROW_PT, lines * LINE_PT) : undefined;
}
