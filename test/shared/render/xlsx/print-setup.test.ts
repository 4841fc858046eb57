import { createWriteStream } from 'node:fs';
import ExcelJS from 'exceljs';
import { afterAll, describe, expect, it } from 'vitest';
import { openXlsxWorkbook } from '../../../../shared/render/xlsx/workbook';
import { makeTempDir } from '../../../support/temp-dir';

const temp = makeTempDir('xlsx-print-setup');
afterAll(() => temp.remove());

/**
 * Row heights of wrapped text with CJK characters, read back from the written workbook: an ideograph,
 * kana or hangul syllable is set a full em wide, twice a "0", so a line holds half as many. Before,
 * each counted one and a row of CJK text got the height of half its lines (cut off in print).
 */
describe('row heights of wrapped CJK text', () => {
  it('counts a wide character twice: the same number of characters takes more lines in CJK than in Latin', async () => {
    const path = temp.path('cjk.xlsx');
    const workbook = openXlsxWorkbook(createWriteStream(path), { createdAt: new Date('2026-11-23T06:00:00Z'), timeZone: 'UTC', locale: 'en-GB' });
    const sheet = workbook.openSheet({ name: 'owners', columns: [{ key: 'owner', type: 'text', description: '', width: 20 }] });
    // A 20-wide column holds 16 characters of "0" a line: 16 Latin letters take one line, 16 ideographs two,
    // 24 three; a name list mixing hangul, kanji and Latin three (two when each counted one).
    const rows = ['abcdefghijklmnop', '田中由紀田中由紀田中由紀田中由紀', '田中由紀'.repeat(6), '김민준 田中 由紀; Li Wei (李伟)', '𠮷野家'];
    for (const text of rows) await sheet.writeRow({ values: [text] });
    await sheet.close();
    await workbook.writeSummary({ title: 'Owners', sections: [] });
    await workbook.close();
    const read = new ExcelJS.Workbook();
    await read.xlsx.readFile(path);
    const owners = read.getWorksheet('owners')!;
    const lines = rows.map((_, i) => (owners.getRow(i + 2).height ?? 15) / 15);
    expect(lines).toEqual([1, 2, 3, 3, 1]);
    expect(owners.getCell('A3').value).toBe(rows[1]);
  });
});
