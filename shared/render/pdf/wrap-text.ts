/**
 * Text as pdfkit can lay out in time and memory linear in its length. pdfkit's LineWrapper breaks
 * a word wider than its line by measuring the whole rest of the word again after each line it cuts
 * off, and its font keeps every string it has measured: in an export a 10,000-character title took
 * 13 s and 1.3 GB, 100,000 characters ran out of memory, and 100,000 spaces (one "word" to it) did
 * not finish. Every text laid out over a width goes through wrappableText first; ordinary text comes
 * back as it is.
 */
import { truncateForExcel } from '../cell-text';
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

/** Words and the horizontal whitespace between them; line breaks stay where they are. */
const RUNS = /\S+|[^\S\n\r\v\f\u2028\u2029]+/g;
const WHITESPACE = /^\s/;

/**
 * `text` for `doc.text` and `doc.heightOfString` over `width` in the font and size set on `doc`:
 * cut to the workbook's cell limit with its marker (a PDF holds no more of a text than the workbook
 * does), a character the fonts lack as a placeholder (glyphs.ts), a long whitespace run wider than
 * a few lines made one space, and such a word cut into pieces of a line, one per line.
 */
export function wrappableText(doc: Doc, text: string, width: number): string {
  return printable(truncateForExcel(text)).replace(RUNS, (run) => {
    if (run.length <= PDFKIT_RUN_CHARS) return run;
    const { pieces, total } = linePieces(doc, run, width);
    if (total <= PDFKIT_RUN_LINES * width) return run;
    return WHITESPACE.test(run) ? ' ' : pieces.join('\n');
  });
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
  const widths = new Map<string, number>();
  const pieces: string[] = [];
  let piece = '';
  let used = 0;
  let total = 0;
  for (const [cluster] of run.matchAll(CLUSTERS)) {
    let w = widths.get(cluster);
    if (w === undefined) widths.set(cluster, (w = doc.widthOfString(cluster)));
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
 * The width of `text` on one line, as far as wrappableText keeps it: measuring all of a text of
 * 100,000 characters takes longer than laying out the rest of the document.
 */
export function oneLineWidth(doc: Doc, text: string): number {
  return doc.widthOfString(printable(truncateForExcel(text)));
}

/**
 * Options for a text drawn on at most `lines` lines of `width`, the last cut with an ellipsis: pdfkit
 * wraps a text given a width even with `lineBreak: false`, and cuts it only when it also has a
 * height. Half a line more than the lines keeps rounding from cutting a line early.
 */
export function cutToLines(doc: Doc, width: number, lines = 1): { width: number; height: number; lineBreak: false; ellipsis: true } {
  return { width, height: (lines + 0.5) * doc.currentLineHeight(true), lineBreak: false, ellipsis: true };
}
