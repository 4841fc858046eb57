import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { niceStep } from '../../../../shared/render/pdf/chart';
import { renderReportPdf, type PdfReport } from '../../../../shared/render/pdf/document';
import type { ChartSheetContent } from '../../../../shared/render/xlsx/chart-sheet';
import type { SummarySection } from '../../../../shared/table/table';
import { pdfPages } from '../../../support/read-pdf';
import { readerFormat } from '../../../../shared/core/format';

const AT = new Date('2026-11-23T06:00:00Z');

const trends: ChartSheetContent = {
  heading: 'Trends',
  sentence: 'Trends over the last 3 runs.',
  blocks: [
    {
      title: 'Open risks',
      categoryLabel: 'Run',
      columns: [{ label: 'Open', format: 'integer' }, { label: 'Overdue', format: 'integer' }],
      rows: [
        { category: '2026-11-09', values: [12, null] },
        { category: '2026-11-16', values: [14, 3] },
        { category: '2026-11-23', values: [1200, 4] },
      ],
      chart: { kind: 'line', series: [0, 1] },
    },
    {
      title: 'Predictability by PI',
      categoryLabel: 'Run',
      columns: [{ label: 'Payments ART', format: 'percent' }],
      rows: [{ category: '2026-11-23', values: [57.5] }],
      chart: { kind: 'column', series: [0], lines: [{ label: '80 % (band)', value: 80 }, { label: '100 % (band)', value: 100 }] },
      note: 'Dashed lines: the 80–100 % band, the same for every run.',
    },
  ],
};

const long: SummarySection = {
  heading: 'A long list',
  lines: Array.from({ length: 80 }, (_, i) => ({ label: `Line ${i + 1}`, value: i + 1, type: 'integer' as const })),
};

function report(overrides: Partial<PdfReport> = {}): PdfReport {
  return {
    title: 'Łódź weekly',
    header: 'Łódź weekly – 2026-11-23',
    summary: {
      title: 'Łódź weekly',
      sections: [
        {
          heading: 'Risks',
          role: 'headline',
          lines: [
            { label: 'Open risks', value: 2148, type: 'integer', delta: '−3 since 16 Nov' },
            { label: 'Predictability', value: 53.125, type: 'percent', delta: '−1.0 pp since 16 Nov' },
          ],
        },
        {
          heading: 'Needs attention',
          role: 'attention',
          lines: [],
          grid: {
            columns: [{ label: 'What' }, { label: 'Item', type: 'link' }, { label: 'Why' }],
            rows: [
              { values: ['Risk', { text: 'OPS-13 Supplier', url: "#'Risks'!A12", web: 'https://tracker.example.com/browse/OPS-13' }, 'Critical · overdue 37 days'] },
              { values: ['Risk', { text: 'OPS-14 Only in the workbook', url: "#'Risks'!A13" }, 'Critical'] },
            ],
          },
        },
        {
          heading: 'Risks by level',
          lines: [],
          grid: {
            columns: [{ label: 'Level' }, { label: 'Open', type: 'integer' }, { label: 'Share', type: 'percent', bar: true }],
            rows: [{ values: ['Critical', 9, 45], fills: ['#C00000', '#C00000', null] }, { values: ['Low', 3, 15], fills: ['not a colour'] }],
          },
        },
        long,
        { heading: 'About this report', role: 'about', lines: [{ label: 'Run id', value: 'run-1' }] },
      ],
    },
    chartSheets: [trends],
    createdAt: AT,
    format: readerFormat('en-GB', 'Europe/Berlin'),
    creator: 'planning-report-exporter',
    ...overrides,
  };
}

describe('renderReportPdf', () => {
  let dir: string;
  let pages: string[];
  let bytes: Uint8Array;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'pdf-render-'));
    bytes = await renderReportPdf(report());
    await writeFile(join(dir, 'r.pdf'), bytes);
    pages = await pdfPages(join(dir, 'r.pdf'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('writes the same bytes for the same content and time, other bytes at another time', async () => {
    expect(Buffer.from(await renderReportPdf(report())).equals(Buffer.from(bytes))).toBe(true);
    expect(Buffer.from(await renderReportPdf(report({ createdAt: new Date('2026-11-30T06:00:00Z') }))).equals(Buffer.from(bytes))).toBe(false);
    const text = Buffer.from(bytes).toString('latin1');
    expect(text).toContain('(D:20261123060000Z)');
    expect(text).toMatch(/\/ID \[<[0-9a-f]{32}> <[0-9a-f]{32}>\]/);
  });

  it('prints text no standard PDF font has (Ł, the minus sign) and formats figures as the workbook does', () => {
    expect(pages[0]).toMatch(/^ *Łódź weekly *$/m);
    expect(pages[0]).toMatch(/Open risks +2,148 +−3 since 16 Nov/);
    expect(pages[0]).toMatch(/Predictability +53\.1 % +−1\.0 pp since 16 Nov/);
  });

  it('writes figures in the report\'s locale (de-DE: 2.148, 53,1 %)', async () => {
    const german = await renderReportPdf(report({ format: readerFormat('de-DE', 'Europe/Berlin') }));
    await writeFile(join(dir, 'de.pdf'), german);
    const [first] = await pdfPages(join(dir, 'de.pdf'));
    expect(first).toMatch(/Open risks +2\.148 /);
    expect(first).toMatch(/Predictability +53,1 % /);
  });

  it('links an item to the web, never to a cell of the workbook', () => {
    const text = Buffer.from(bytes).toString('latin1');
    expect(text).toContain('/URI (https://tracker.example.com/browse/OPS-13)');
    expect(text).not.toContain("Risks'!A1");
    expect(pages[0]).toContain('OPS-14 Only in the workbook');
  });

  it('breaks a section longer than a page between lines, and numbers the pages', () => {
    const start = pages.findIndex((p) => p.includes('A long list'));
    expect(pages[start]).toMatch(/Line 1 +1\n/);
    const end = pages.findIndex((p) => /Line 80 +80/.test(p));
    expect(end).toBe(start + 1);
    pages.forEach((page, i) => {
      expect(page).toContain('Łódź weekly – 2026-11-23');
      expect(page).toContain(`Page ${i + 1} of ${pages.length}`);
    });
  });

  it('repeats a table’s header on the pages a long table goes on to', async () => {
    const grid: SummarySection = {
      heading: 'Needs attention',
      role: 'attention',
      lines: [],
      grid: { columns: [{ label: 'What' }, { label: 'Item', type: 'link' }, { label: 'Why' }], rows: Array.from({ length: 70 }, (_, i) => ({ values: ['Risk', `R-${i + 1}`, 'overdue'] })) },
    };
    const long = await renderReportPdf(report({ summary: { title: 'Long', sections: [grid] }, chartSheets: [] }));
    await writeFile(join(dir, 'long.pdf'), long);
    const [one, two, ...more] = await pdfPages(join(dir, 'long.pdf'));
    expect(more).toEqual([]);
    expect(one).toMatch(/What +Item +Why/);
    expect(two).toMatch(/What +Item +Why/);
    expect(two).toMatch(/Risk +R-70 +overdue/);
    expect(two).not.toContain('Needs attention');
  });

  it('moves a section that does not fit in what is left of the page to the next page, whole', async () => {
    const section = (heading: string, n: number): SummarySection => ({
      heading,
      lines: Array.from({ length: n }, (_, i) => ({ label: `${heading} ${i + 1}`, value: i + 1, type: 'integer' as const })),
    });
    const moved = await renderReportPdf(report({ summary: { title: 'Moves', sections: [section('First', 40), section('Second', 20)] }, chartSheets: [] }));
    await writeFile(join(dir, 'moved.pdf'), moved);
    const [one, two, ...more] = await pdfPages(join(dir, 'moved.pdf'));
    expect(more).toEqual([]);
    expect(one).toMatch(/First 40 +40/);
    expect(one).not.toContain('Second');
    expect(two).toMatch(/^ *Second *$/m);
    expect(two).toMatch(/Second 20 +20/);
  });

  it('leaves no page with only a few lines: a small last Summary table shares its page with the Trends', async () => {
    const lines = (heading: string, n: number): SummarySection => ({
      heading,
      lines: Array.from({ length: n }, (_, i) => ({ label: `${heading} ${i + 1}`, value: i + 1, type: 'integer' as const })),
    });
    const small: SummarySection = {
      heading: 'Board items',
      lines: [],
      grid: { columns: [{ label: 'Board' }, { label: 'Features', type: 'integer' }], rows: ['A', 'B', 'C', 'D'].map((b) => ({ values: [`Board ${b}`, 150] })) },
    };
    const shared = await renderReportPdf(report({ summary: { title: 'Pages', sections: [lines('First', 44), small] } }));
    await writeFile(join(dir, 'shared.pdf'), shared);
    const written = await pdfPages(join(dir, 'shared.pdf'));
    // Each page's text without its running header and page number.
    const content = written.map((p) => p.split('\n').filter((l) => l.trim() !== '').slice(1, -1));
    expect(written).toHaveLength(2);
    for (const page of content) expect(page.length).toBeGreaterThan(8);
    expect(written[1]).toMatch(/Board D +150/);
    expect(written[1]).toMatch(/^ *Trends *$/m);
    expect(written[1]).toMatch(/2026-11-23 +1,200 +4/);
  });

  it('never leaves About this run\'s heading at the foot of a page nor its last line alone on the next, wherever the page breaks', async () => {
    const about: SummarySection = {
      heading: 'About this run',
      role: 'about',
      lines: Array.from({ length: 6 }, (_, i) => ({ label: `About ${i + 1}`, value: `value ${i + 1}` })),
    };
    const filler = (n: number): SummarySection => ({ heading: 'Filler', lines: Array.from({ length: n }, (_, i) => ({ label: `Line ${i + 1}`, value: i + 1, type: 'integer' as const })) });
    // From a block that fits on page 1 to one that starts page 2: the break falls at every line of it once.
    const fillers = Array.from({ length: 9 }, (_, i) => 41 + i);
    const printed = await Promise.all(
      fillers.map(async (n) => {
        const path = join(dir, `about-${n}.pdf`);
        await writeFile(path, await renderReportPdf(report({ summary: { title: 'About', sections: [filler(n), about] }, chartSheets: [] })));
        // Per page, the About rows it holds: "H" its heading, then its lines' numbers.
        return (await pdfPages(path)).map((page) => (page.match(/About this run|About \d/g) ?? []).map((m) => (m === 'About this run' ? 'H' : m.slice(-1))).join(''));
      }),
    );
    const split = printed.filter((pages) => pages.filter((p) => p !== '').length > 1);
    // The sweep crosses the break (the block is split at least once), and each part holds two lines or more.
    expect(split.length).toBeGreaterThan(0);
    for (const [i, pages] of printed.entries()) {
      expect(pages.join(''), `filler of ${fillers[i]}`).toBe('H123456');
      for (const page of pages.filter((p) => p !== '')) expect(page.replace('H', '').length, `filler of ${fillers[i]}: ${pages.join(' | ')}`).toBeGreaterThanOrEqual(2);
    }
  });

  it('starts the Trends on a page of their own after a page more than half full, each block with its chart (axis, legend, runs) and its table', () => {
    const first = pages.findIndex((p) => /^ *Trends *$/m.test(p));
    expect(first).toBe(pages.length - 1);
    const page = pages[first]!;
    expect(page).toContain('Trends over the last 3 runs.');
    expect(page).toMatch(/Open +Overdue/);
    expect(page).toMatch(/2026-11-23 +1,200 +4/);
    expect(page).toMatch(/^ *1,250\b/m);
    // The band is drawn and said once under the table, not a column repeating 80 % and 100 % on every row.
    expect(page).toMatch(/2026-11-23 +57\.5 % *$/m);
    expect(page).toContain('Dashed lines: the 80–100 % band, the same for every run.');
    expect(page).toContain('80 % (band)');
    expect(page).toMatch(/100 %/);
  });

  it('picks round steps for the value axis', () => {
    expect([8, 10, 58, 100, 1200, 0, 0.4].map(niceStep)).toEqual([2, 2, 20, 20, 250, 1, 0.1]);
  });
});
