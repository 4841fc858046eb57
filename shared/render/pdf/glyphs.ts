/**
 * Text the PDF's fonts cannot draw. Liberation Sans (fonts.ts) covers Latin, Greek, Cyrillic and
 * Hebrew; a character of another script (Han, Arabic, Thai, …) or an emoji would print as the
 * font's empty box, and nobody would know a name was lost. Every text laid out goes through
 * `printable` (wrap-text.ts, values.ts): such a character prints as PLACEHOLDER instead, and
 * `unprintedText` counts them, where they are, before the document is drawn, for the reader's note
 * on the first page and the owners (the manifest's `summary.unprintedText`).
 */
import type { ChartSheetContent } from '../xlsx/chart-sheet';
import type { ReportSummary } from '../../table/table';
import { pdfFonts } from './fonts';
import type { PdfValueFormat } from './values';

/** What a character no font can draw prints as: in every font, and read back as itself. */
export const PLACEHOLDER = '?';

/** Characters pdfkit's layout consumes (it breaks lines at them and draws nothing): no glyph needed. */
const LAYOUT = new Set([0x09, 0x0a, 0x0d]);
/** Text the fonts draw whole (ASCII and Latin-1, checked by the test): most text takes this path without a look-up. */
const PLAIN = /^[\t\n\r\x20-\x7e\u00a0-\u00ff]*$/;
/**
 * A code point with the combining marks after it: one placeholder for a letter the fonts lack, accents
 * and all, and where wrap-text.ts may cut a word. Not Intl.Segmenter: its graphemes take time growing
 * with the square of the text's length (0.5 s for 32,000 characters).
 */
export const CLUSTERS = /\P{M}\p{M}*|\p{M}+/gu;

/** Per code point, whether both fonts draw it: a document asks for the same few hundred again and again. */
const drawable = new Map<number, boolean>();

export function canDraw(codePoint: number): boolean {
  let known = drawable.get(codePoint);
  if (known === undefined) {
    const fonts = pdfFonts();
    known = LAYOUT.has(codePoint) || (fonts.regular.hasGlyphForCodePoint(codePoint) && fonts.bold.hasGlyphForCodePoint(codePoint));
    drawable.set(codePoint, known);
  }
  return known;
}

function clusterDrawable(cluster: string): boolean {
  for (const c of cluster) if (!canDraw(c.codePointAt(0)!)) return false;
  return true;
}

/** Whether the fonts draw every character of `text`: a cached look-up per code point past Latin-1, no clusters. */
function allDrawable(text: string): boolean {
  if (PLAIN.test(text)) return true;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x100 && unit >= 0x20) continue;
    const point = text.codePointAt(i)!;
    if (point > 0xffff) i++;
    if (!canDraw(point)) return false;
  }
  return true;
}

/** `text` with each character the fonts cannot draw (with its marks) as PLACEHOLDER. */
export function printable(text: string): string {
  if (allDrawable(text)) return text;
  return text.replace(CLUSTERS, (cluster) => (clusterDrawable(cluster) ? cluster : PLACEHOLDER));
}

/** Characters of one place of the PDF printed as PLACEHOLDER. */
export interface UnprintedText {
  /** Where: `Summary › Needs attention`, `Trends › Predictability by board`, `page header`. */
  readonly where: string;
  /** How many (a letter with its marks counts once). */
  readonly characters: number;
  /** Their Unicode scripts (`Han`, `Arabic`, …, `emoji`), most characters first. */
  readonly scripts: readonly string[];
  /** Up to ten of them, each once, in the order they come. */
  readonly sample: string;
}

const SAMPLE = 10;
/** Scripts named by their Unicode names; a character of none of them is `emoji` or `other`. */
const SCRIPTS = [
  'Han', 'Hiragana', 'Katakana', 'Hangul', 'Bopomofo', 'Arabic', 'Syriac', 'Thaana', 'Devanagari', 'Bengali', 'Gurmukhi', 'Gujarati', 'Oriya',
  'Tamil', 'Telugu', 'Kannada', 'Malayalam', 'Sinhala', 'Thai', 'Lao', 'Tibetan', 'Myanmar', 'Khmer', 'Mongolian', 'Georgian', 'Armenian',
  'Ethiopic', 'Cherokee', 'Hebrew', 'Greek', 'Cyrillic', 'Latin',
].map((name) => ({ name, pattern: new RegExp(`^\\p{Script=${name}}`, 'u') }));

function scriptOf(cluster: string): string {
  const script = SCRIPTS.find((s) => s.pattern.test(cluster));
  if (script) return script.name;
  return /^\p{Extended_Pictographic}/u.test(cluster) ? 'emoji' : 'other';
}

/** Counts what one place holds that prints as PLACEHOLDER. */
class Tally {
  readonly #places = new Map<string, { characters: number; scripts: Map<string, number>; sample: string[] }>();

  add(where: string, text: string | undefined): void {
    if (text === undefined || allDrawable(text)) return;
    for (const [cluster] of text.matchAll(CLUSTERS)) {
      if (clusterDrawable(cluster)) continue;
      let place = this.#places.get(where);
      if (!place) this.#places.set(where, (place = { characters: 0, scripts: new Map(), sample: [] }));
      place.characters += 1;
      const script = scriptOf(cluster);
      place.scripts.set(script, (place.scripts.get(script) ?? 0) + 1);
      if (place.sample.length < SAMPLE && !place.sample.includes(cluster)) place.sample.push(cluster);
    }
  }

  found(): UnprintedText[] {
    return [...this.#places].map(([where, p]) => ({
      where,
      characters: p.characters,
      scripts: [...p.scripts].sort((a, b) => b[1] - a[1]).map(([name]) => name),
      sample: p.sample.join(''),
    }));
  }
}

/** What the PDF is drawn from, as document.ts's PdfReport has it. */
export interface PdfText {
  readonly header: string;
  readonly summary: ReportSummary;
  readonly chartSheets: readonly ChartSheetContent[];
}

/**
 * Every text the document prints (the page header, the Summary's sections, the Trends' blocks),
 * each counted once where it is, with the values written as the PDF writes them (`format`, before
 * its own placeholders): the characters that print as PLACEHOLDER, by place, in reading order.
 */
export function unprintedText(report: PdfText, format: PdfValueFormat): UnprintedText[] {
  const tally = new Tally();
  tally.add('page header', report.header);
  tally.add('Summary', report.summary.title);
  for (const section of report.summary.sections) {
    const where = `Summary › ${section.heading}`;
    tally.add(where, section.heading);
    for (const line of section.lines) for (const text of [line.label, format.cell(line.value, line.type), line.delta]) tally.add(where, text);
    for (const column of section.grid?.columns ?? []) tally.add(where, column.label);
    for (const row of section.grid?.rows ?? []) row.values.forEach((value, i) => tally.add(where, format.cell(value, section.grid?.columns[i]?.type)));
  }
  for (const sheet of report.chartSheets) {
    for (const text of [sheet.heading, sheet.sentence]) tally.add(sheet.heading, text);
    for (const block of sheet.blocks) {
      const where = `${sheet.heading} › ${block.title}`;
      for (const text of [block.title, block.categoryLabel, block.note, ...block.columns.map((c) => c.label), ...(block.chart?.lines ?? []).map((l) => l.label)]) tally.add(where, text);
      for (const row of block.rows) {
        tally.add(where, row.category);
        row.values.forEach((value, i) => tally.add(where, format.figure(value, block.columns[i]?.format ?? 'number')));
      }
    }
  }
  return tally.found();
}

/** `format` with what it writes made printable: a locale's digits or dates the fonts lack print as PLACEHOLDER too. */
export function printableFormat(format: PdfValueFormat): PdfValueFormat {
  return {
    cell: (value, type) => printable(format.cell(value, type)),
    figure: (value, kind) => printable(format.figure(value, kind)),
    axis: (value, percent) => printable(format.axis(value, percent)),
    t: (id, values) => printable(format.t(id, values)),
  };
}

/** The reader's note on the first page when something prints as PLACEHOLDER, or undefined. */
export function placeholderNote(found: readonly UnprintedText[], format: PdfValueFormat): string | undefined {
  if (found.length === 0) return undefined;
  const characters = found.reduce((sum, f) => sum + f.characters, 0);
  const scripts = [...new Set(found.flatMap((f) => f.scripts))];
  return format.t('pdf.placeholder', { placeholder: PLACEHOLDER, characters, scripts: scripts.join(', ') });
}
