// @tier slow
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runDemoCommand } from '../../../../cli/demo-command';

/**
 * The demo workbook printed the way people print it: converted to PDF by LibreOffice (headless),
 * then read back with poppler's pdftotext -bbox. LibreOffice has no Calibri here and lays the
 * sheets out with a wider font, the harder case for the Summary's 8-point floor.
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
 * Two words whose boxes overlap by more than `minDy` points of height: text printed over text. At
 * full scale the lines of one wrapped cell sit 12.8 pt apart with 14.3 pt boxes, so there a sliver
 * of overlap is the font's own leading, not another row's text.
 */
function overprinted(words: readonly Word[], minDy = 1): [Word, Word] | undefined {
  for (let i = 0; i < words.length; i++) {
    for (let j = i + 1; j < words.length; j++) {
      const a = words[i]!;
      const b = words[j]!;
      const dx = Math.min(a.x1, b.x1) - Math.max(a.x0, b.x0);
      const dy = Math.min(a.y1, b.y1) - Math.max(a.y0, b.y0);
      if (dx > 0.5 && dy > minDy) return [a, b];
    }
  }
  return undefined;
}

describe('the demo workbook printed with LibreOffice', () => {
  let root: string;
  let pages: Word[][];

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'print-'));
    const out = new PassThrough();
    const err = new PassThrough();
    const said: string[] = [];
    err.on('data', (chunk: Buffer) => said.push(chunk.toString()));
    out.resume();
    const code = await runDemoCommand(['--weeks', '2', '--out', root], { stdout: out, stderr: err, env: {}, cwd: root }, { today: new Date('2026-11-23T06:00:00Z') });
    expect(code, said.join('')).toBe(0);
    // The second of two weekly runs: its Summary has deltas and its Trends sheet has tables and charts.
    const latest = JSON.parse(await readFile(join(root, 'demo-weekly', 'latest.json'), 'utf8')) as { manifest: string };
    const runDir = join(root, latest.manifest, '..');
    const book = (await readdir(runDir)).find((f) => f.endsWith('.xlsx'))!;
    await run('soffice', ['--headless', `-env:UserInstallation=file://${root}/lo-profile`, '--convert-to', 'pdf', '--outdir', root, join(runDir, book)], {
      timeout: 240_000,
    });
    const pdf = join(root, book.replace(/\.xlsx$/, '.pdf'));
    const { stdout } = await run('pdftotext', ['-bbox', pdf, '-'], { maxBuffer: 256 * 2 ** 20 });
    pages = pagesOf(stdout);
  }, 300_000);
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  /** The Summary is the first sheet: its pages run until the Trends (or Changes) sheet's heading. */
  const summaryPages = () => pages.slice(0, pages.findIndex((words) => words[0]?.text === 'Trends' || words[0]?.text === 'Changes'));
  /** Every page of the Risks sheet starts with its repeated header row ("Register …"). */
  const riskPages = () => pages.filter((words) => words[0]?.text === 'Register');

  it('prints the Summary portrait on more than one page with no text under 8 pt', () => {
    const summary = summaryPages();
    expect(summary.length).toBeGreaterThan(1);
    const words = summary.flat().filter((w) => !/^Page$|^of$|^\d+$/.test(w.text));
    const smallest = Math.min(...words.map(pointSize));
    expect(smallest).toBeGreaterThanOrEqual(8);
    // Portrait: the page is taller than wide (pdftotext reports page size on each <page>).
    expect(words.some((w) => w.text === 'Predictability')).toBe(true);
  });

  it('breaks a table header word of the Summary only at a hyphen, never mid-word ("Progres/s", "Commit/ted")', () => {
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
    // The hyphenated halves are there: "Com-" over "mitted", "Predict-" over "ability".
    expect(printed).toEqual(expect.arrayContaining(['Com-', 'mitted', 'Predict-', 'ability', 'Pro-', 'gress']));
  });

  it('prints the Trends sheet\'s table headers without text over text', () => {
    const trends = pages.filter((words) => words[0]?.text === 'Trends');
    expect(trends.length).toBeGreaterThan(0);
    for (const words of trends) expect(overprinted(words, 4), JSON.stringify(overprinted(words, 4))).toBeUndefined();
  });

  it('prints the Risks sheet with no text over other text', () => {
    const risks = riskPages();
    expect(risks.length).toBeGreaterThan(1);
    for (const words of risks) expect(overprinted(words)).toBeUndefined();
  });
});
