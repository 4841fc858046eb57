/**
 * Text as pdfkit can lay out in time and memory linear in its length. pdfkit's LineWrapper breaks
 * a word wider than its line by measuring the whole rest of the word again after each line it cuts
 * off, and its font keeps every string it has measured: in an export a 10,000-character title took
 * 13 s and 1.3 GB, 100,000 characters ran out of memory, and 100,000 spaces (one "word" to it) did
 * not finish. Every text laid out over a width goes through wrappableText first; ordinary text comes
 * back as it is.
 *
 * A PDF is for reading in a meeting, not for holding data: a text longer than a reader reads in a
 * cell (PDF_TEXT_MAX_CHARS characters, or PDF_TEXT_MAX_LINES lines over its width) is shortened, with
 * a marker saying how long it is and where it is whole. Before, every risk title of 100,000
 * characters was laid out to the workbook's 32,767 (a 144-page PDF, 420–460 MB in the attack round)
 * and 5,000 line breaks in one text made 1,059 pages. The workbook, CSV and Parquet keep every text.
 */
import { EXCEL_CELL_MAX_CHARS } from '../cell-text';
import type PDFDocument from 'pdfkit';
import { CLUSTERS, printable } from './glyphs';

/** The document being drawn (page.ts names the same type; apart here so neither module imports the other). */
type Doc = InstanceType<typeof PDFDocument>;

/**
 * A run (a word, or the whitespace between two) up to this many characters long, or up to this many
 * lines wide, is left to pdfkit: it breaks a word at a hyphen or a slash where it has one (an address
 * in a narrow column), and what that costs grows with the run's length times its lines, so both stay
 * small. Every run of the demo's PDFs is left to it: their bytes stay as they were.
 */
const PDFKIT_RUN_CHARS = 100;
const PDFKIT_RUN_LINES = 4;

/** Words, and the horizontal whitespace between them; line breaks stay where they are. */
const WORDS = /\S+/g;
const SPACE_RUNS = /[^\S\n\r\v\f\u2028\u2029]+/g;
const WHITESPACE = /^\s/;

/** The most characters of one text the PDF shows (docs/formats.md, PDF): the rest is left to the tables. */
export const PDF_TEXT_MAX_CHARS = 1_000;
/** The most lines one text takes in the PDF over its width, its line breaks and wrapping counted. */
export const PDF_TEXT_MAX_LINES = 20;

/**
 * `text` for `doc.text` and `doc.heightOfString` over `width` in the font and size set on `doc`:
 * no more of it read than the workbook keeps of a cell, a character the fonts lack as a placeholder
 * (glyphs.ts), a long whitespace run wider than a few lines made one space, shortened to what the
 * PDF shows of a text (shortened), and a long word cut into pieces of a line, one per line.
 */
export function wrappableText(doc: Doc, text: string, width: number): string {
  const read = text.length > EXCEL_CELL_MAX_CHARS ? text.slice(0, EXCEL_CELL_MAX_CHARS - (isHighSurrogate(text, EXCEL_CELL_MAX_CHARS - 1) ? 1 : 0)) : text;
  const whole = printable(read).replace(SPACE_RUNS, (run) => (isWide(doc, run, width) ? ' ' : run));
  return shortened(doc, whole, width, text, read.length < text.length).replace(WORDS, (word) => {
    if (word.length <= PDFKIT_RUN_CHARS) return word;
    const { pieces, total } = linePieces(doc, word, width);
    return total > PDFKIT_RUN_LINES * width ? pieces.join('\n') : word;
  });
}

/** Whether `text` has the first half of a surrogate pair at `index`: cutting after it would leave half a character. */
function isHighSurrogate(text: string, index: number): boolean {
  const code = text.charCodeAt(index);
  return code >= 0xd800 && code <= 0xdbff;
}

/** Whether pdfkit would be slow to lay out `run`: longer than it is left and wider than a few lines. */
function isWide(doc: Doc, run: string, width: number): boolean {
  return run.length > PDFKIT_RUN_CHARS && linePieces(doc, run, width).total > PDFKIT_RUN_LINES * width;
}

/**
 * `text` (what wrappableText made of `original`; `readPart`: of its beginning) as the PDF shows it:
 * whole when it keeps within PDF_TEXT_MAX_CHARS and about PDF_TEXT_MAX_LINES lines over `width`, else
 * cut there with a marker counting `original` and naming where it is whole: `… [shortened for the
 * PDF: 100,000 characters in full in the CSV]`. The lines are counted as pdfkit wraps (a word that
 * does not fit goes to the next line), measured a character at a time, so a text is walked no
 * further than it is shown.
 */
function shortened(doc: Doc, text: string, width: number, original: string, readPart: boolean): string {
  const cut = shownLength(doc, text, width) ?? (readPart ? text.length : undefined);
  if (cut === undefined) return text;
  const lines = lineCount(original);
  const count = `${original.length.toLocaleString('en-US')} characters${lines > PDF_TEXT_MAX_LINES ? `, ${lines.toLocaleString('en-US')} lines` : ''}`;
  const where = original.length > EXCEL_CELL_MAX_CHARS ? 'the CSV' : 'the workbook and the CSV';
  return `${text.slice(0, cut).trimEnd()}… [shortened for the PDF: ${count} in full in ${where}]`;
}

/** Line breaks as pdfkit and the workbook break lines; `\r\n` is one. */
const LINE_BREAKS = /\r\n|[\n\r\v\f\u2028\u2029]/g;
const LINE_BREAK = /^[\n\r\v\f\u2028\u2029]/;
const TOKENS = new RegExp(`${LINE_BREAKS.source}|\\S+|[^\\S\\n\\r\\v\\f\\u2028\\u2029]+`, 'g');

/** The lines of `text` as its line breaks make them (the marker's count). */
function lineCount(text: string): number {
  let lines = 1;
  for (const _ of text.matchAll(LINE_BREAKS)) lines++;
  return lines;
}

/** Where `text` has to be cut to keep to the PDF's limits, or undefined when it keeps to them whole. */
function shownLength(doc: Doc, text: string, width: number): number | undefined {
  const widthOf = clusterWidths(doc);
  let lines = 1;
  let x = 0;
  let at = 0;
  for (const [token] of text.matchAll(TOKENS)) {
    const word = !WHITESPACE.test(token);
    const breaks = LINE_BREAK.test(token);
    // A line break, or a word that does not fit after what the line holds, starts the next line.
    if (breaks || (word && x > 0 && !fits(token, width - x, widthOf))) {
      if (++lines > PDF_TEXT_MAX_LINES) return at;
      x = 0;
    }
    if (breaks) {
      at += token.length;
      continue;
    }
    for (const [cluster] of token.matchAll(CLUSTERS)) {
      if (at + cluster.length > PDF_TEXT_MAX_CHARS) return at;
      const w = widthOf(cluster);
      // A word longer than a line goes on over the next (whitespace hangs past the line's end, as in pdfkit).
      if (word && x > 0 && x + w > width) {
        if (++lines > PDF_TEXT_MAX_LINES) return at;
        x = 0;
      }
      x += w;
      at += cluster.length;
    }
  }
  return undefined;
}

/** Whether `word` is no wider than `room`, measured no further than that. */
function fits(word: string, room: number, widthOf: (cluster: string) => number): boolean {
  let used = 0;
  for (const [cluster] of word.matchAll(CLUSTERS)) if ((used += widthOf(cluster)) > room) return false;
  return true;
}

/** Each cluster's width in the font and size set on `doc`, measured once: a text repeats a few clusters. */
function clusterWidths(doc: Doc): (cluster: string) => number {
  const widths = new Map<string, number>();
  return (cluster) => {
    let w = widths.get(cluster);
    if (w === undefined) widths.set(cluster, (w = doc.widthOfString(cluster)));
    return w;
  };
}

/**
 * A run in pieces no wider than a line, cut between clusters (a letter keeps its accents), and its
 * width. pdfkit measures a piece with the line break after it, or the space that follows the last
 * one, and the font draws a line break as a wide blank glyph: a piece leaves room for that. Widths
 * are summed per cluster, each measured once: measuring the whole run costs more than everything
 * else here. Kerning can make a piece a little wider; then pdfkit breaks that one piece itself, at
 * the cost of one line.
 */
function linePieces(doc: Doc, run: string, width: number): { pieces: string[]; total: number } {
  const room = width - Math.max(doc.widthOfString('\n'), doc.widthOfString(' '));
  const widthOf = clusterWidths(doc);
  const pieces: string[] = [];
  let piece = '';
  let used = 0;
  let total = 0;
  for (const [cluster] of run.matchAll(CLUSTERS)) {
    const w = widthOf(cluster);
    if (piece !== '' && used + w > room) {
      pieces.push(piece);
      piece = '';
      used = 0;
    }
    piece += cluster;
    used += w;
    total += w;
  }
  pieces.push(piece);
  return { pieces, total };
}

/**
 * The width of `text` on one line, as far as the PDF shows it (PDF_TEXT_MAX_CHARS): measuring all of
 * a text of 100,000 characters takes longer than laying out the rest of the document.
 */
export function oneLineWidth(doc: Doc, text: string): number {
  return doc.widthOfString(printable(text.slice(0, PDF_TEXT_MAX_CHARS)));
}

/**
 * Options for a text drawn on at most `lines` lines of `width`, the last cut with an ellipsis: pdfkit
 * wraps a text given a width even with `lineBreak: false`, and cuts it only when it also has a
 * height. Half a line more than the lines keeps rounding from cutting a line early.
 */
export function cutToLines(doc: Doc, width: number, lines = 1): { width: number; height: number; lineBreak: false; ellipsis: true } {
  return { width, height: (lines + 0.5) * doc.currentLineHeight(true), lineBreak: false, ellipsis: true };
}
