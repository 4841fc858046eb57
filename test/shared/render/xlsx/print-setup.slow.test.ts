// @tier slow
import { execFile } from 'node:child_process';
import { readdir, mkdtemp, rm } from 'node:fs/promises';
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

/** Two words whose boxes overlap by more than a sliver: text printed over text. */
function overprinted(words: readonly Word[]): [Word, Word] | undefined {
  for (let i = 0; i < words.length; i++) {
    for (let j = i + 1; j < words.length; j++) {
      const a = words[i]!;
      const b = words[j]!;
      const dx = Math.min(a.x1, b.x1) - Math.max(a.x0, b.x0);
      const dy = Math.min(a.y1, b.y1) - Math.max(a.y0, b.y0);
      if (dx > 0.5 && dy > 1) return [a, b];
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
    const code = await runDemoCommand(['--out', root], { stdout: out, stderr: err, env: {}, cwd: root }, { today: new Date('2026-11-23T06:00:00Z') });
    expect(code, said.join('')).toBe(0);
    const runs = join(root, 'demo-weekly');
    const day = (await readdir(runs)).find((d) => d.startsWith('dt='))!;
    const runDir = join(runs, day, (await readdir(join(runs, day)))[0]!);
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

  /** The Summary is the first sheet: its pages run until the Changes sheet's heading. */
  const summaryPages = () => pages.slice(0, pages.findIndex((words) => words[0]?.text === 'Changes'));
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

  it('prints the Risks sheet with no text over other text', () => {
    const risks = riskPages();
    expect(risks.length).toBeGreaterThan(1);
    for (const words of risks) expect(overprinted(words)).toBeUndefined();
  });
});
