// @tier slow
import { execFileSync, spawnSync } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { makeTempDir } from '../../../support/temp-dir';
import { writeChartWorkbook } from './chart-workbook';

/**
 * The chart sheet as LibreOffice prints it: a process of its own that takes seconds of CPU, so in the slow
 * tier beside the print-setup test; what the chart parts say is checked in the fast tier (chart-sheet.test.ts).
 */

const temp = makeTempDir('xlsx-charts-print');
afterAll(() => temp.remove());

describe('a chart sheet printed', () => {
  const file = temp.path('charts.xlsx');

  const soffice = spawnSync('soffice', ['--version'], { encoding: 'utf8' }).status === 0 && spawnSync('pdftotext', ['-v']).status === 0;
  it.skipIf(!soffice)('renders in LibreOffice: the Trends page carries both charts\' titles, axes and legends', async () => {
    await writeChartWorkbook(file);
    const dir = temp.path('pdf');
    execFileSync('soffice', ['--headless', '--convert-to', 'pdf', '--outdir', dir, file], { stdio: 'ignore', timeout: 120_000 });
    const text = execFileSync('pdftotext', ['-f', '2', '-l', '2', `${dir}/charts.pdf`, '-'], { encoding: 'utf8' });
    // Text that only the charts draw: the axis labels of the percent axis and the band's legend entries.
    expect(text).toContain('Open risks');
    expect(text).toMatch(/100%/);
    expect(text).toContain('80 %');
    expect(text.match(/High or critical/g)?.length).toBeGreaterThanOrEqual(2);
  }, 150_000);
});
