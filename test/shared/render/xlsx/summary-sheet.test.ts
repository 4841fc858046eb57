import { createWriteStream } from 'node:fs';
import { finished } from 'node:stream/promises';
import ExcelJS from 'exceljs';
import { afterAll, describe, expect, it } from 'vitest';
import { openXlsxWorkbook } from '../../../../shared/render/xlsx/workbook';
import type { ReportSummary } from '../../../../shared/table/table';
import { makeTempDir } from '../../../support/temp-dir';

const CREATED_AT = new Date('2026-11-23T06:00:00Z');
const temp = makeTempDir('xlsx-summary');
afterAll(() => temp.remove());

const SUMMARY: ReportSummary = {
  title: 'ART weekly',
  sections: [
    {
      heading: 'Predictability by board',
      role: 'headline',
      lines: [],
      grid: {
        columns: [{ label: 'Board' }, { label: 'Planned BV', type: 'number' }, { label: 'Actual BV', type: 'number' }, { label: 'Predictability', type: 'percent' }],
        rows: [{ values: ['Payments ART', 42, 28, 66.7] }],
      },
    },
    { heading: 'About this run', role: 'about', lines: [{ label: 'Generated at', value: CREATED_AT, type: 'datetime' }] },
  ],
};

async function summarySheet(summary: ReportSummary): Promise<ExcelJS.Worksheet> {
  const file = temp.path('summary.xlsx');
  const out = createWriteStream(file);
  const workbook = openXlsxWorkbook(out, { createdAt: CREATED_AT, timeZone: 'UTC', locale: 'en-GB' });
  await workbook.writeSummary(summary);
  await workbook.close();
  await finished(out);
  const read = new ExcelJS.Workbook();
  await read.xlsx.readFile(file);
  return read.getWorksheet(1)!;
}

describe('the Summary sheet', () => {
  it("sets upright only a narrow header with a word wider than its column; the others stand across, wrapped at their spaces", async () => {
    const sheet = await summarySheet(SUMMARY);
    const header = sheet.getRow(5);
    const cells = [1, 3, 4, 5].map((c) => ({ text: header.getCell(c).text, rotation: header.getCell(c).alignment?.textRotation ?? 0 }));
    expect(cells).toEqual([
      { text: 'Board', rotation: 0 },
      { text: 'Planned BV', rotation: 0 },
      { text: 'Actual BV', rotation: 0 },
      { text: 'Predictability', rotation: 90 },
    ]);
    expect(header.getCell(3).alignment?.wrapText).toBe(true);
  });

  it("says the run's date and time under the title", async () => {
    const sheet = await summarySheet(SUMMARY);
    expect(sheet.getRow(1).getCell(1).text).toBe('ART weekly');
    expect(sheet.getRow(2).getCell(1).text).toBe('Generated at');
    expect(sheet.getRow(2).getCell(3).value).toEqual(CREATED_AT);
  });
});
