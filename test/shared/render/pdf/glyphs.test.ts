import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readerFormat } from '../../../../shared/core/format';
import { renderReportPdf, unprintedInPdf, type PdfReport } from '../../../../shared/render/pdf/document';
import { canDraw, printable } from '../../../../shared/render/pdf/glyphs';
import { pdfPages } from '../../../support/read-pdf';

/** Text in scripts the bundled fonts lack prints as "?" and is counted, never as silent boxes. */
const report: PdfReport = {
  title: 'Weekly',
  header: 'Weekly – 23/11/2026',
  summary: {
    title: 'Weekly',
    sections: [
      {
        heading: 'Needs attention',
        role: 'attention',
        lines: [],
        grid: {
          columns: [{ label: 'What' }, { label: 'Item' }, { label: 'Why' }],
          rows: [
            { values: ['Risk', 'OPS-1 Lieferant 田中', 'Critical · owner 田中 由紀'] },
            { values: ['Risk', 'OPS-2 مرحبا بالعالم', 'Critical · owner שלום'] },
          ],
        },
      },
      { heading: 'Risks', role: 'headline', lines: [{ label: 'Owner', value: 'Zoë 👍' }] },
      { heading: 'About this run', role: 'about', lines: [{ label: 'Run id', value: 'run-1' }] },
      { heading: 'Rows', role: 'about', lines: [{ label: 'Risks', value: 2, type: 'integer' }] },
    ],
  },
  chartSheets: [
    {
      heading: 'Trends',
      sentence: 'Trends over the last 2 runs.',
      blocks: [{ title: 'OKR progress', categoryLabel: 'Run', columns: [{ label: '品質', format: 'percent' }], rows: [{ category: '16/11/2026', values: [50] }] }],
    },
  ],
  createdAt: new Date('2026-11-23T06:00:00Z'),
  format: readerFormat('en-GB', 'UTC'),
  creator: 'planning-report-exporter',
};

describe('text the PDF\'s fonts cannot draw', () => {
  let dir: string;
  let text: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'pdf-glyphs-'));
    await writeFile(join(dir, 'r.pdf'), await renderReportPdf(report));
    text = (await pdfPages(join(dir, 'r.pdf'))).join('\n');
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('prints as "?" (one per character), keeps what the fonts have (Hebrew, accents), and says so in About this run', () => {
    expect(text).toContain('OPS-1 Lieferant ??');
    expect(text).toContain('owner ?? ??');
    expect(text).toContain('OPS-2 ????? ???????');
    expect(text).toContain('Zoë ?');
    expect(text).toMatch(/^ *Run +\?\? *$/m);
    // Liberation Sans draws Hebrew (fontkit lays a right-to-left word out right to left).
    expect(text).toMatch(/שלום/);
    expect(text).not.toMatch(/[\u3400-\u9fff\u0600-\u06ff\u{1F300}-\u{1FAFF}]/u);
    const note = '"?" stands for a character this PDF\'s font cannot print (21 in all: Arabic, Han, emoji); the workbook and the CSV files hold the text in full.';
    expect(text).toContain(note);
    // The report opens with its figures; how the file was made is said at the end, with the run's other facts.
    expect(text).toMatch(/^ *Weekly *\n+ *Needs attention *$/m);
    expect(text).toMatch(/About this run *\n+ *Run id +run-1 *\n+ *"\?" stands for/);
    expect(text.indexOf(note)).toBeLessThan(text.indexOf('Rows'));
  });

  it('counts them by place, with their scripts and a sample, as the manifest lists them', () => {
    expect(unprintedInPdf(report)).toEqual([
      { where: 'Summary › Needs attention', characters: 18, scripts: ['Arabic', 'Han'], sample: '田中由紀مرحبال' },
      { where: 'Summary › Risks', characters: 1, scripts: ['emoji'], sample: '👍' },
      { where: 'Trends › OKR progress', characters: 2, scripts: ['Han'], sample: '品質' },
    ]);
  });

  it('looks a character up once and takes ASCII and Latin-1 without one', () => {
    for (let c = 0x20; c <= 0xff; c++) if (c < 0x7f || c >= 0xa0) expect(canDraw(c), c.toString(16)).toBe(true);
    expect(printable('Łódź − “quotes” – Ελλάδα Москва')).toBe('Łódź − “quotes” – Ελλάδα Москва');
    // A letter with the marks after it is one placeholder (क्ष: क with its virama, then ष); an accent the fonts have stays.
    expect(printable('क्ष e\u0301')).toBe('?? e\u0301');
  });
});
