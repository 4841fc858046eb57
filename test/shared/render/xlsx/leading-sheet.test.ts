import { createWriteStream } from 'node:fs';
import { finished } from 'node:stream/promises';
import ExcelJS from 'exceljs';
import { afterAll, describe, expect, it } from 'vitest';
import { ExporterError } from '../../../../shared/core/errors';
import { openXlsxWorkbook } from '../../../../shared/render/xlsx/workbook';
import type { LeadingSheet, TableDefinition } from '../../../../shared/table/table';
import { makeTempDir } from '../../../support/temp-dir';

/** The workbook's created time: fixed, so a file's bytes depend on nothing but its content. */
const CREATED_AT = new Date('2026-11-23T06:00:00Z');

const temp = makeTempDir('xlsx-leading');
afterAll(() => temp.remove());

const DATA: TableDefinition = { name: 'items', columns: [{ key: 'id', type: 'text', description: 'id' }] };
const CHANGES: LeadingSheet = {
  heading: 'Changes since 16 Nov 2026',
  sentence: '1 added, 0 removed, 1 changed.',
  columns: [
    { key: 'kind', type: 'text', description: 'kind' },
    { key: 'key', type: 'link', description: 'key' },
    { key: 'to', type: 'text', description: 'to' },
  ],
  rows: [
    { values: ['added', { text: 'PLT-9', url: 'https://tracker.example.com/browse/PLT-9' }, null], fill: { column: 0, color: '#c6efce' } },
    { values: ['changed', 'ENT-4', 'Closed'], fill: { column: 0, color: '#ffeb9c' } },
  ],
};

describe('a leading sheet (the Changes sheet): written last, listed right after the Summary', () => {
  it('is the second sheet, with its heading, sentence, header, rows, fills and links', async () => {
    const file = temp.path('leading.xlsx');
    const out = createWriteStream(file);
    const workbook = openXlsxWorkbook(out, { createdAt: CREATED_AT, timeZone: 'UTC', locale: 'en-GB', leadingSheets: ['Changes'] });
    for (const name of ['items', 'more']) {
      const sink = workbook.openSheet({ ...DATA, name });
      await sink.writeRow({ values: ['1'] });
      await sink.close();
    }
    await workbook.writeLeadingSheet('Changes', CHANGES);
    await workbook.writeSummary({ title: 'Report', sections: [] });
    await workbook.close();
    await finished(out);

    const read = new ExcelJS.Workbook();
    await read.xlsx.readFile(file);
    expect(read.worksheets.map((s) => s.name)).toEqual(['Summary', 'Changes', 'items', 'more']);
    const sheet = read.getWorksheet('Changes')!;
    expect([1, 2, 3].map((r) => sheet.getRow(r).getCell(1).text)).toEqual(['Changes since 16 Nov 2026', '1 added, 0 removed, 1 changed.', '']);
    expect((sheet.getRow(4).values as unknown[]).slice(1)).toEqual(['kind', 'key', 'to']);
    expect(sheet.getRow(5).getCell(2).value).toMatchObject({ text: 'PLT-9', hyperlink: 'https://tracker.example.com/browse/PLT-9' });
    expect(sheet.getRow(6).getCell(3).text).toBe('Closed');
    expect((sheet.getRow(5).getCell(1).fill as ExcelJS.FillPattern).fgColor?.argb).toBe('FFC6EFCE');
    expect((sheet.getRow(6).getCell(1).fill as ExcelJS.FillPattern).fgColor?.argb).toBe('FFFFEB9C');
  });

  it('must be written before the Summary, and only once', async () => {
    const workbook = openXlsxWorkbook(createWriteStream(temp.path('order.xlsx')), { createdAt: CREATED_AT, timeZone: 'UTC', locale: 'en-GB', leadingSheets: ['Changes'] });
    await expect(workbook.writeSummary({ title: 'Report', sections: [] })).rejects.toThrow(/Write the sheet "Changes" before the Summary/);
    await expect(workbook.writeLeadingSheet('Other', CHANGES)).rejects.toThrow(ExporterError);
    await workbook.writeLeadingSheet('Changes', CHANGES);
    await expect(workbook.writeLeadingSheet('Changes', CHANGES)).rejects.toThrow(/is not a leading sheet of this workbook, or it was written already/);
    await workbook.writeSummary({ title: 'Report', sections: [] });
    await workbook.close();
  });
});
