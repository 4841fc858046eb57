// @tier slow
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runDemoCommand } from '../../../../cli/demo-command';
import type ExcelJS from 'exceljs';
import { readWorkbook } from '../../../support/read-output';
import { readZipEntries } from '../zip-entries';

/**
 * The four-week demo's workbook printed the way people print it: converted to PDF by LibreOffice
 * (headless), then read back with poppler's pdftotext -bbox. LibreOffice has no Calibri here and
 * lays the sheets out with a wider font, the harder case for the Summary's 8-point floor and for
 * row heights computed from the text. Every sheet is checked, every page of it.
 */
const run = promisify(execFile);

interface Word {
  readonly text: string;
  readonly x0: number;
  readonly y0: number;
  readonly x1: number;
  readonly y1: number;
}

/** Words of every page, from pdftotext's `-bbox` XHTML. */
function pagesOf(xhtml: string): Word[][] {
  return xhtml.split('<page ').slice(1).map((page) =>
    [...page.matchAll(/<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">([^<]*)<\/word>/g)].map((m) => ({
      x0: Number(m[1]), y0: Number(m[2]), x1: Number(m[3]), y1: Number(m[4]), text: m[5]!,
    })),
  );
}

/** Font size of a word from its box: DejaVu Sans (LibreOffice's stand-in) spans 1.164 em from descender to ascender. */
const pointSize = (w: Word) => (w.y1 - w.y0) / 1.164;

/**
 * Two words whose boxes overlap by more than 30 % of their height: text printed over text. The
 * lines of one wrapped cell sit 0.9 of a box apart (12.8 pt lines, 14.3 pt boxes at full scale), so
 * a sliver of overlap is the font's own leading; a line of one cell run into the next row's text
 * overlaps it by most of its height.
 */
function overprinted(all: readonly Word[]): [Word, Word] | undefined {
  // An upright header's lines (the Summary's narrow columns) stand side by side, a sliver of leading
  // apart, like a wrapped cell's lines turned: their boxes are taller than wide.
  const words = all.filter((w) => !(w.text.length >= 3 && w.y1 - w.y0 > 1.5 * (w.x1 - w.x0)));
  for (let i = 0; i < words.length; i++) {
    for (let j = i + 1; j < words.length; j++) {
      const a = words[i]!;
      const b = words[j]!;
      const dx = Math.min(a.x1, b.x1) - Math.max(a.x0, b.x0);
      const dy = Math.min(a.y1, b.y1) - Math.max(a.y0, b.y0);
      if (dx > 0.5 && dy > 0.3 * Math.min(a.y1 - a.y0, b.y1 - b.y0)) return [a, b];
    }
  }
  return undefined;
}

/** XML's five entities, as pdftotext writes them, back to text. */
const unescape = (text: string) => text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&apos;/g, "'").replace(/&amp;/g, '&');

/**
 * Words of a text as the PDF may print them: split at white space and after a hyphen, a slash or a
 * backslash (where LibreOffice breaks a line too), a soft hyphen dropped.
 */
const wordsOf = (text: string) => text.replace(/\u00ad/g, '').split(/\s+|(?<=[-/\\])/).filter((w) => w !== '');

/** The text a cell shows: a hyperlink's or a formula's result, rich text joined, or the value. */
function shownText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value !== 'object' || value === null) return '';
  if ('richText' in value && Array.isArray(value.richText)) return value.richText.map((r: { text: string }) => r.text).join('');
  if ('text' in value) return String(value.text);
  if ('result' in value && typeof value.result === 'string') return value.result;
  return '';
}

interface WrappedCell {
  readonly sheet: string;
  readonly address: string;
  readonly words: readonly string[];
}

describe('the four-week demo workbook printed with LibreOffice', () => {
  let root: string;
  let pages: Word[][];
  /** Each sheet in the workbook's order, with its wrapped cells and its charts. */
  let sheets: { name: string; wrapped: WrappedCell[]; charts: string[] }[];

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'print-'));
    const out = new PassThrough();
    const err = new PassThrough();
    const said: string[] = [];
    err.on('data', (chunk: Buffer) => said.push(chunk.toString()));
    out.resume();
    const code = await runDemoCommand(['--weeks', '4', '--out', root], { stdout: out, stderr: err, env: {}, cwd: root }, { today: new Date('2026-11-23T06:00:00Z') });
    expect(code, said.join('')).toBe(0);
    // The last of four weekly runs: its Summary has deltas and its Trends sheet four runs of tables and charts.
    const latest = JSON.parse(await readFile(join(root, 'demo-weekly', 'latest.json'), 'utf8')) as { manifest: string };
    const runDir = join(root, latest.manifest, '..');
    const book = (await readdir(runDir)).find((f) => f.endsWith('.xlsx'))!;
    sheets = sheetsOf(await readWorkbook(join(runDir, book)), chartTitles(await readZipEntries(join(runDir, book))));
    await run('soffice', ['--headless', `-env:UserInstallation=file://${root}/lo-profile`, '--convert-to', 'pdf', '--outdir', root, join(runDir, book)], {
      timeout: 240_000,
    });
    const pdf = join(root, book.replace(/\.xlsx$/, '.pdf'));
    const { stdout } = await run('pdftotext', ['-bbox', pdf, '-'], { maxBuffer: 256 * 2 ** 20 });
    pages = pagesOf(stdout).map((words) => words.map((w) => ({ ...w, text: unescape(w.text) })));
  }, 300_000);
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  /** The pages of each sheet, by the sheet's name in the middle of each page's footer. */
  const pagesBySheet = (): Map<string, Word[][]> => {
    const bySheet = new Map<string, Word[][]>(sheets.map((sheet) => [sheet.name, []]));
    pages.forEach((words, i) => {
      const name = sheetOfPage(words);
      expect(bySheet.has(name), `page ${i + 1}'s footer names sheet "${name}"`).toBe(true);
      bySheet.get(name)!.push(words);
    });
    return bySheet;
  };

  const summaryPages = () => pagesBySheet().get('Summary') ?? [];

  it('prints the Summary portrait on more than one page with no text under 8 pt', () => {
    const summary = summaryPages();
    expect(summary.length).toBeGreaterThan(1);
    // The footer's words are 9 pt by design; the Summary's own text is what must stay readable.
    const words = summary.flatMap((page) => page.filter((w) => w.y0 < page.findLast((x) => x.text === 'Page')!.y0 - 2));
    const smallest = Math.min(...words.map(pointSize));
    expect(smallest).toBeGreaterThanOrEqual(8);
    // Portrait: the page is taller than wide (pdftotext reports page size on each <page>).
    expect(words.some((w) => w.text === 'Predictability')).toBe(true);
  });

  it('never breaks a table header word of the Summary ("Progres/s", "Commit/ted"), and prints each whole', () => {
    const printed = summaryPages().flat().map((w) => w.text);
    const headerWords = ['Progress', 'Objectives', 'Committed', 'Uncommitted', 'Predictability', 'started', '(committed)'];
    // A word cut by the column edge prints as two words, the second right under the first.
    const cut = summaryPages().flatMap((words) =>
      words.flatMap((a) => {
        const b = words.find((w) => Math.abs(w.x0 - a.x0) < 1 && w.y0 > a.y0 && w.y0 - a.y1 < 4);
        return b && !a.text.endsWith('-') && headerWords.includes(a.text + b.text) ? [`${a.text}/${b.text}`] : [];
      }),
    );
    expect(cut).toEqual([]);
    // Upright where a word is wider than its column, but whole: no hyphen stored or printed.
    expect(printed).toEqual(expect.arrayContaining(['Committed', 'Uncommitted', 'Predictability', 'progress', 'Objectives']));
    expect(printed.filter((w) => /^(Com|Predict|Uncom|pro|Objec|Featur|Possib|Unlike)-$/.test(w))).toEqual([]);
  });

  it('prints no text over other text on any page of any sheet', () => {
    expect(pages.length).toBeGreaterThan(100);
    const over = pages.flatMap((words, i) => {
      const pair = overprinted(words);
      return pair ? [`page ${i + 1}: "${pair[0].text}" over "${pair[1].text}"`] : [];
    });
    expect(over).toEqual([]);
  });

  it('prints every wrapped cell of every sheet whole: no line cut off by its row or its neighbour', () => {
    const bySheet = pagesBySheet();
    const cut: string[] = [];
    for (const sheet of sheets) {
      // Words as a bag: a wrapped cell's lines interleave with its neighbours' in reading order.
      const printed = new Map<string, number>();
      // LibreOffice prints some two-line cells ("1. …\n2. …") on one line when it fits: the list's
      // second marker then follows the first line's last word with no space ("suite2.", "sprint 22.").
      // The markers are left out of the count; the words around them are not.
      const words = (bySheet.get(sheet.name) ?? []).flat().flatMap((w) => wordsOf(w.text.replace(/\d\.$/, '')).flatMap(ideographsApart));
      for (const word of words) printed.set(word, (printed.get(word) ?? 0) + 1);
      const needed = new Map<string, WrappedCell>();
      const count = new Map<string, number>();
      for (const cell of sheet.wrapped) {
        for (const word of cell.words.filter((w) => !/^\d\.$/.test(w)).flatMap(ideographsApart)) {
          count.set(word, (count.get(word) ?? 0) + 1);
          needed.set(word, cell);
        }
      }
      for (const [word, n] of count) {
        const times = printed.get(word) ?? 0;
        if (times < n) cut.push(`${sheet.name}!${needed.get(word)!.address}: "${word}" printed ${times} of ${n} times`);
      }
    }
    expect(sheets.reduce((n, s) => n + s.wrapped.length, 0)).toBeGreaterThan(100);
    expect(cut).toEqual([]);
  });

  it('prints each chart on one page: its title and its run dates together', () => {
    const trends = sheets.filter((s) => s.charts.length > 0);
    expect(trends.length).toBeGreaterThan(0);
    const bySheet = pagesBySheet();
    const split: string[] = [];
    for (const sheet of trends) {
      const sheetPages = bySheet.get(sheet.name) ?? [];
      const tables = Math.max(...sheetPages.flat().filter((w) => w.x0 < 60).map((w) => w.x1));
      // The charts stand right of the tables: a chart's words are those beyond the tables' first column.
      const charted = sheetPages.map((words) => words.filter((w) => w.x0 > tables + 200));
      const dates = sheetPages.flat().filter((w) => isDate(w.text) && w.x0 < 60).map((w) => w.text);
      const lastRun = dates.sort((a, b) => dayOf(a).localeCompare(dayOf(b))).at(-1)!;
      charted.forEach((words, i) => {
        const titles = sheet.charts.filter((title) => lineOn(words, title));
        const axes = words.filter((w) => w.text === lastRun).length;
        if (titles.length !== axes) split.push(`${sheet.name}, page ${i + 1}: ${titles.length} chart title(s), ${axes} date axis(es)`);
      });
      expect(charted.flat().length).toBeGreaterThan(0);
      const shown = sheet.charts.filter((title) => charted.some((words) => lineOn(words, title)));
      expect(shown).toEqual(sheet.charts);
    }
    expect(split).toEqual([]);
  });
});

/** Han, kana and hangul: scripts written without spaces between words. */
const CJK = /([\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af])/u;

/**
 * A word with its CJK characters each on its own ("(李伟);" is "(", "李", "伟", ");"): these scripts
 * break a line between any two characters (Unicode's line breaking, class ID), so LibreOffice, like
 * Excel, prints "田中" as "田" at the end of one line and "中" at the start of the next when only one
 * more fits. Counted character by character, each must still print as often as the cells hold it.
 */
function ideographsApart(word: string): string[] {
  return word.split(CJK).filter((piece) => piece !== '');
}

/** A run's date as the report's locale writes it: 2026-11-23, 23/11/2026 (en-GB), 11/23/2026, 23.11.2026. */
function isDate(text: string): boolean {
  return /^(\d{4}-\d{2}-\d{2}|\d{1,2}[./]\d{1,2}[./]\d{4})$/.test(text);
}

/** A date of isDate as yyyy-mm-dd, to sort by (day first, as the demo's en-GB writes it). */
function dayOf(text: string): string {
  const m = /^(\d{1,2})[./](\d{1,2})[./](\d{4})$/.exec(text);
  return m ? `${m[3]}-${m[2]!.padStart(2, '0')}-${m[1]!.padStart(2, '0')}` : text;
}

/**
 * The sheet a page belongs to: the footer's middle part, centred between the report's name (which
 * starts at the left margin) and "Page n of m" (which ends at the right one).
 */
function sheetOfPage(words: readonly Word[]): string {
  const page = words.findLast((w, i) => w.text === 'Page' && words[i + 2]?.text === 'of')!;
  const footer = words.filter((w) => Math.abs(w.y0 - page.y0) < 2).sort((a, b) => a.x0 - b.x0);
  const left = footer[0]!.x0;
  const right = Math.max(...footer.map((w) => w.x1));
  const middle = (left + right) / 2;
  // The report's name ends in the run's date; a chart running into the footer adds words further out.
  const date = footer.findIndex((w) => isDate(w.text));
  const centred = footer.slice(date + 1).filter((w) => Math.abs((w.x0 + w.x1) / 2 - middle) < (right - left) / 5);
  return centred.map((w) => w.text).join(' ');
}

/** Whether a line of `words` reads `text` (its words in order on one baseline). */
function lineOn(words: readonly Word[], text: string): boolean {
  const wanted = wordsOf(text);
  return words.some((start, i) => {
    const line = words.slice(i).filter((w) => Math.abs(w.y0 - start.y0) < 1).flatMap((w) => wordsOf(w.text));
    return wanted.every((word, k) => line[k] === word);
  });
}

/** What the print checks need of each sheet, read from the workbook the demo wrote. */
function sheetsOf(workbook: ExcelJS.Workbook, charts: readonly string[]): { name: string; wrapped: WrappedCell[]; charts: string[] }[] {
  return workbook.worksheets.map((sheet) => {
    const wrapped: WrappedCell[] = [];
    sheet.eachRow((row) => {
      row.eachCell((cell) => {
        const text = shownText(cell.value);
        // A hidden column (an internal id) does not print; a merged range prints its first cell's text once.
        const shown = sheet.getColumn(cell.col).hidden !== true && (!cell.isMerged || cell.master === cell);
        if (cell.alignment?.wrapText && text.trim() !== '' && shown) wrapped.push({ sheet: sheet.name, address: cell.address, words: wordsOf(text) });
      });
    });
    return { name: sheet.name, wrapped, charts: sheet.name === 'Trends' ? [...charts] : [] };
  });
}

/** The title of every chart in the workbook (all of them stand on the Trends sheet). */
function chartTitles(entries: Map<string, string>): string[] {
  return [...entries]
    .filter(([name]) => /^xl\/charts\/chart\d+\.xml$/.test(name))
    .sort(([a], [b]) => Number(/\d+/.exec(a)![0]) - Number(/\d+/.exec(b)![0]))
    .map(([, xml]) => unescape(/<c:title>[\s\S]*?<a:t>([^<]*)<\/a:t>/.exec(xml)![1]!));
}
