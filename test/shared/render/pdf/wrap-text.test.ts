import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXCEL_CELL_MAX_CHARS } from '../../../../shared/render/cell-text';
import { PDF_TEXT_MAX_CHARS } from '../../../../shared/render/pdf/wrap-text';
import { renderReportPdf, type PdfReport } from '../../../../shared/render/pdf/document';
import { reportWithTextEverywhere as everywhere } from '../../../support/pdf-text-report';
import { pdfInfo, pdfPages } from '../../../support/read-pdf';

/**
 * Text no person writes but a planning tool hands over: one word of 100,000 characters, 100,000
 * spaces before a dot, letters under eight accents each, 5,000 line breaks. Before, pdfkit broke such
 * a word by measuring the rest of it again after every line (13 s and 1.3 GB for 10,000 characters,
 * out of memory for 100,000), and later laid out all 32,767 characters the workbook keeps, in every
 * cell (a 144-page PDF of a risk register whose titles were all such words); 5,000 line breaks made
 * 1,059 pages. Now the PDF shows at most 1,000 characters and about 20 lines of a text, with a
 * marker saying how long it is and where it is whole.
 */

const WORD = 'x'.repeat(100_000);
const SPACES = `${' '.repeat(100_000)}.`;
const ACCENTED = 'a\u0301\u0302\u0303\u0304\u0306\u0307\u0308\u030a';
const MARKS = ACCENTED.repeat(2_000);
const MARKER = '[shortened for the PDF: 100,000 characters in full in the CSV]';
const LINES = 'line\n'.repeat(5_000);

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

  it('shows 1,000 characters of a 100,000-character word, with a marker saying where it is whole, broken over lines', async () => {
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
    // 14 places of at most 1,000 characters, and the page header's three lines on each page: before, 32,767 a place.
    const xs = oneLine(pages).replace(/[^x]/g, '').length;
    expect(xs).toBeLessThanOrEqual(14 * PDF_TEXT_MAX_CHARS + pages.length * 400);
    const info = await pdfInfo(path);
    // Each of the 14 places on a few lines, not 32,767 characters each over 144 pages.
    expect(Number(info['Pages'])).toBeLessThanOrEqual(6);
    // The document's title (metadata, not laid out) keeps what the workbook keeps.
    expect(info['Title']).toHaveLength(EXCEL_CELL_MAX_CHARS);
    expect(info['Title']!.endsWith('… [truncated: 100,000 characters in full, see the CSV]')).toBe(true);
  });

  it('makes a run of spaces wider than a few lines one space, and shortens 100,000 of them with the PDF’s marker', async () => {
    const cut = await pdfPages(await written('spaces', everywhere(SPACES)));
    expect(cut[0]).toMatch(/^… \[shortened for the PDF: 100,014 characters in full in the CSV\]$/m);
    expect(cut[0]).toMatch(/^… \[shortened for the PDF: 100,001 characters in full in the CSV\]$/m);
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
    const marker = title.findIndex((l) => l.includes('[shortened'));
    // Cut at 1,000 characters, a letter with its accents: 111 letters over the 20 lines' limit.
    expect(marker).toBeGreaterThan(1);
    expect(title.slice(0, marker).every((l) => l.startsWith(ACCENTED))).toBe(true);
    expect(title.slice(0, marker).join('')).toBe(`${ACCENTED.repeat(111)}…`);
    expect(title.slice(marker).join(' ').replace(/\s+/g, ' ')).toMatch(/^\[shortened for the PDF: 18,000 characters in full in the workbook and the CSV\] /);
  });

  it('shows 20 lines of a text of 5,000 line breaks and says how many it has: a few pages, not a thousand', async () => {
    const path = await written('lines', everywhere(LINES));
    const pages = await pdfPages(path);
    const lines = pages[0]!.split('\n').map((l) => l.trim());
    // The title is the first block of lines after the page header's (cut to three lines).
    const start = lines.indexOf('') + 1;
    expect(lines.slice(start, start + 21)).toEqual([
      ...Array.from({ length: 19 }, () => 'line'),
      'line… [shortened for the PDF: 25,000 characters, 5,001 lines in full',
      'in the workbook and the CSV]',
    ]);
    expect(Number((await pdfInfo(path))['Pages'])).toBeLessThanOrEqual(8);
  });
});
