import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXCEL_CELL_MAX_CHARS } from '../../../../shared/render/cell-text';
import { renderReportPdf, type PdfReport } from '../../../../shared/render/pdf/document';
import { reportWithTextEverywhere as everywhere } from '../../../support/pdf-text-report';
import { pdfInfo, pdfPages } from '../../../support/read-pdf';

/**
 * Text no person writes but a planning tool hands over: one word of 100,000 characters, 100,000
 * spaces before a dot, letters under eight accents each. Before, pdfkit broke such a word by
 * measuring the rest of it again after every line (13 s and 1.3 GB for 10,000 characters, out of
 * memory for 100,000); now each renders and reads back cut as the workbook cuts a cell.
 */

const WORD = 'x'.repeat(100_000);
const SPACES = `${' '.repeat(100_000)}.`;
const ACCENTED = 'a\u0301\u0302\u0303\u0304\u0306\u0307\u0308\u030a';
const MARKS = ACCENTED.repeat(2_000);
const MARKER = `[truncated: ${(100_000).toLocaleString('en-US')} characters in full, see the CSV]`;

describe('text no reader writes, in every place of the PDF', () => {
  let dir: string;
  const written = async (name: string, report: PdfReport) => {
    const path = join(dir, `${name}.pdf`);
    await writeFile(path, await renderReportPdf(report));
    return path;
  };
  const oneLine = (pages: readonly string[]) => pages.join('').replace(/\s+/g, ' ');

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'pdf-wrap-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('cuts a 100,000-character word to the workbook’s cell limit, with its marker, and breaks it over lines', async () => {
    const path = await written('word', everywhere(WORD));
    const pages = await pdfPages(path);
    const lines = pages[0]!.split('\n').filter((l) => l.trim() !== '');
    // The page header keeps to the three lines above the content, cut with an ellipsis; the title (16 pt) starts below it.
    expect(lines.slice(0, 4)).toEqual([
      expect.stringMatching(/^x{100,}$/),
      expect.stringMatching(/^x{100,}$/),
      expect.stringMatching(/^x{100,}…$/),
      expect.stringMatching(/^x{40,80}$/),
    ]);
    expect(lines.every((l) => l.trim().length <= 160)).toBe(true);
    expect(oneLine(pages)).toContain(`x… ${MARKER}`);
    const info = await pdfInfo(path);
    expect(info['Title']).toHaveLength(EXCEL_CELL_MAX_CHARS);
    expect(info['Title']!.endsWith(MARKER)).toBe(true);
  });

  it('makes a run of spaces wider than a few lines one space, and cuts 100,000 of them as the workbook does', async () => {
    const cut = await pdfPages(await written('spaces', everywhere(SPACES)));
    expect(cut[0]).toMatch(/^… \[truncated: 100,014 characters in full, see the CSV\]$/m);
    expect(cut[0]).toMatch(/^… \[truncated: 100,001 characters in full, see the CSV\]$/m);
    const whole = await pdfPages(await written('fewer-spaces', everywhere(`${' '.repeat(20_000)}.`)));
    expect(whole[0]).toMatch(/^\. – 2026-11-23$/m);
    expect(whole[0]).toMatch(/^\.$/m);
  });

  it('breaks 2,000 letters under eight accents each between letters, never between a letter and its accents', async () => {
    const pages = await pdfPages(await written('marks', everywhere(MARKS)));
    // The title is the first block of lines after the page header's.
    const lines = pages[0]!.split('\n');
    const start = lines.findIndex((l, i) => i > lines.indexOf('') && l !== '');
    const title = lines.slice(start, lines.indexOf('', start));
    expect(title.length).toBeGreaterThan(30);
    expect(title.every((l) => l.startsWith(ACCENTED))).toBe(true);
    expect(title.join('')).toBe(MARKS);
  });
});
