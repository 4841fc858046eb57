import { createWriteStream } from 'node:fs';
import { finished } from 'node:stream/promises';
import type { ChartSheetContent } from '../../../../shared/render/xlsx/chart-sheet';
import { openXlsxWorkbook } from '../../../../shared/render/xlsx/workbook';

/**
 * One workbook with a chart sheet, for the chart tests that read its XML (chart-sheet.test.ts) and the one
 * that prints it with LibreOffice (chart-sheet-print.slow.test.ts).
 */

/** The workbook's created time: fixed, so a file's bytes depend on nothing but its content. */
const CREATED_AT = new Date('2026-11-23T06:00:00Z');

const CONTENT: ChartSheetContent = {
  heading: 'Trends',
  sentence: 'Trends over the last 3 runs.',
  blocks: [
    {
      title: 'Open risks',
      categoryLabel: 'Run',
      columns: [{ label: 'Open', format: 'integer' }, { label: 'High or critical', format: 'integer' }],
      rows: [
        { category: '2026-11-02', values: [12, 4] },
        { category: '2026-11-09', values: [10, null] },
        { category: '2026-11-16', values: [9, 2] },
      ],
      chart: { kind: 'line', series: [0, 1] },
    },
    {
      title: "Predictability by PI (board's 'PI 1')",
      categoryLabel: 'Run',
      columns: [{ label: 'PI 1', format: 'percent' }],
      rows: [
        { category: '2026-11-02', values: [72.5] },
        { category: '2026-11-09', values: [85] },
      ],
      chart: { kind: 'column', series: [0], lines: [{ label: '80 %', value: 80 }, { label: '100 %', value: 100 }] },
      note: 'Dashed lines: the 80–100 % band, the same for every run.',
    },
    { title: 'No chart', categoryLabel: 'Run', columns: [{ label: 'Added', format: 'integer' }], rows: [{ category: '2026-11-09', values: [3] }] },
  ],
};

export async function writeChartWorkbook(file: string): Promise<void> {
  const out = createWriteStream(file);
  const workbook = openXlsxWorkbook(out, { createdAt: CREATED_AT, timeZone: 'UTC', locale: 'en-GB', leadingSheets: ['Trends'] });
  const sink = workbook.openSheet({ name: 'items', columns: [{ key: 'id', type: 'link', description: 'id' }] });
  await sink.writeRow({ values: [{ text: 'A-1', url: 'https://tracker.example.com/A-1' }] });
  await sink.close();
  await workbook.writeChartSheet('Trends', CONTENT);
  await workbook.writeSummary({ title: 'Report', sections: [] });
  await workbook.close();
  await finished(out);
}
