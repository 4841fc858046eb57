import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readerFormat } from '../../../../shared/core/format';
import { renderReportPdf } from '../../../../shared/render/pdf/document';
import { labelled, pdfPages } from '../../../support/read-pdf';

/** A figure that is no number (a ratio over nothing) prints as "–" where the PDF has figures, and the run goes on. */
describe('figures that are no number', () => {
  let dir: string;
  let pages: string[];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'pdf-values-'));
    const bytes = await renderReportPdf({
      title: 'Weekly',
      header: 'Weekly – 2026-11-23',
      summary: {
        title: 'Weekly',
        sections: [
          {
            heading: 'Risks',
            lines: [
              { label: 'Predictability', value: NaN, type: 'percent' },
              { label: 'Open per person', value: Infinity, type: 'number' },
            ],
          },
          {
            heading: 'By level',
            lines: [],
            grid: {
              columns: [{ label: 'Level' }, { label: 'Open', type: 'integer' }, { label: 'Share', type: 'percent', bar: true }],
              rows: [{ values: ['Critical', -Infinity, NaN] }, { values: ['Low', 3, 15] }],
            },
          },
        ],
      },
      chartSheets: [
        {
          heading: 'Trends',
          sentence: 'Trends over the last 3 runs.',
          blocks: [
            {
              title: 'Open risks',
              categoryLabel: 'Run',
              columns: [{ label: 'Open', format: 'integer' }, { label: 'Share', format: 'percent' }],
              rows: [
                { category: '2026-11-09', values: [NaN, 12] },
                { category: '2026-11-16', values: [Infinity, 14] },
                { category: '2026-11-23', values: [4, -Infinity] },
              ],
              chart: { kind: 'line', series: [0, 1] },
            },
          ],
        },
      ],
      createdAt: new Date('2026-11-23T06:00:00Z'),
      format: readerFormat('en-GB', 'Europe/Berlin'),
      creator: 'planning-report-exporter',
    });
    await writeFile(join(dir, 'r.pdf'), bytes);
    pages = await pdfPages(join(dir, 'r.pdf'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('writes "–" on the Summary, in its lines and its tables', () => {
    expect(pages[0]).toMatch(labelled('Predictability', '–'));
    expect(pages[0]).toMatch(labelled('Open per person', '–'));
    expect(pages[0]).toMatch(/Critical +– +–/);
    expect(pages[0]).toMatch(/Low +3 +15\.0 %/);
    expect(pages.join('')).not.toMatch(/NaN|∞/);
  });

  it('writes "–" in the Trends table and draws the chart with a gap there instead of failing', () => {
    const trends = pages.at(-1)!;
    expect(trends).toMatch(/2026-11-09 +– +12\.0 %/);
    expect(trends).toMatch(/2026-11-16 +– +14\.0 %/);
    expect(trends).toMatch(/2026-11-23 +4 +–/);
  });
});
