import { createWriteStream } from 'node:fs';
import type ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openXlsxWorkbook } from '../../../../shared/render/xlsx/workbook';
import type { Column, TableDefinition } from '../../../../shared/table/table';
import { readWorkbook, sheetHeader } from '../../../support/read-output';
import { makeTempDir } from '../../../support/temp-dir';

const temp = makeTempDir('xlsx-data-sheet');
afterAll(() => temp.remove());

const text = (key: string, label: string, extra: Partial<Column> = {}): Column => ({ key, type: 'text', description: '', label, width: 14, ...extra });

/**
 * A register as wide as Risks: long text between short columns, a hidden id, and a row's fill named
 * by its place in the table. Wide enough (over 300 characters) to print across pages.
 */
const REGISTER: TableDefinition = {
  name: 'register',
  title: 'Register',
  columns: [
    text('key', 'Risk', { nowrap: true }),
    text('id', 'Risk id', { hidden: true, nowrap: true }),
    text('title', 'Title', { width: 40 }),
    text('description', 'Description', { width: 50, longText: true }),
    text('status', 'Status'),
    text('mitigation', 'Mitigation', { width: 50, longText: true }),
    text('notes_id', 'Notes id', { hidden: true, longText: true }),
    { key: 'is_open', type: 'boolean', description: '', label: 'Open', width: 8 },
    ...['owner', 'team', 'sprint', 'impact', 'probability', 'level', 'raised', 'due', 'register', 'area', 'cost', 'review'].map((k) => text(k, k.toUpperCase())),
  ],
};
const KEYS = REGISTER.columns.map((c) => c.key);
const ROW = KEYS.map((k) => (k === 'description' ? 'A paragraph of what could go wrong.\nAnd its second line.' : k === 'is_open' ? false : `${k} of R-1`));

describe('a data sheet with long text columns', () => {
  let sheet: ExcelJS.Worksheet;
  beforeAll(async () => {
    const path = temp.path('register.xlsx');
    const workbook = openXlsxWorkbook(createWriteStream(path), { createdAt: new Date('2026-11-23T06:00:00Z'), timeZone: 'UTC', locale: 'en-GB' });
    const sink = workbook.openSheet(REGISTER);
    await sink.writeRow({ values: ROW, fill: { column: KEYS.indexOf('level'), color: '#c00000' } });
    await sink.close();
    await workbook.writeSummary({ title: 'Register', sections: [] });
    await workbook.close();
    sheet = (await readWorkbook(path)).getWorksheet('Register')!;
  });

  it('places the long text after the short columns, each group in the table order; a hidden column stays where it is', () => {
    expect(sheetHeader(sheet)).toEqual([
      'Risk', 'Risk id', 'Title', 'Status', 'Notes id', 'Open', 'OWNER', 'TEAM', 'SPRINT', 'IMPACT', 'PROBABILITY', 'LEVEL', 'RAISED', 'DUE', 'REGISTER', 'AREA', 'COST', 'REVIEW',
      'Description', 'Mitigation',
    ]);
  });

  it('writes each value under its own header, its width and wrapping with it, and the fill on the column the row names', () => {
    const header = sheetHeader(sheet);
    const row = sheet.getRow(2);
    for (const [i, key] of KEYS.entries()) expect(row.getCell(header.indexOf(REGISTER.columns[i]!.label!) + 1).value, key).toBe(ROW[i]);
    const description = header.indexOf('Description') + 1;
    expect(sheet.getColumn(description).width).toBe(50);
    expect(row.getCell(description).alignment?.wrapText).toBe(true);
    // Two lines of description: the row is as tall as its longest cell wherever that cell stands.
    expect(row.height).toBe(30);
    expect(sheet.getColumn(header.indexOf('Risk id') + 1).hidden).toBe(true);
    // A yes/no as wide as FALSCH needs: LibreOffice printed a narrower one's FALSE as 0.
    expect(sheet.getColumn(header.indexOf('Open') + 1).width).toBe(10);
    // LibreOffice's own yes/no format: without it LibreOffice printed a TRUE cell as 1 beside FALSE.
    expect(row.getCell(header.indexOf('Open') + 1).numFmt).toBe('"TRUE";"TRUE";"FALSE"');
    const level = row.getCell(header.indexOf('LEVEL') + 1);
    expect(level.fill).toMatchObject({ type: 'pattern', fgColor: { argb: 'FFC00000' } });
    const filled = header.filter((_, i) => JSON.stringify(row.getCell(i + 1).fill ?? {}).includes('C00000'));
    expect(filled).toEqual(['LEVEL']);
  });

  it('still repeats the key through the title on every printed page, with the panes frozen after them', () => {
    expect(sheet.pageSetup.printTitlesColumn).toBe('A:C');
    expect(sheet.pageSetup.printTitlesRow).toBe('1:1');
    expect(sheet.views[0]).toMatchObject({ state: 'frozen', xSplit: 3, ySplit: 1 });
    expect(sheet.autoFilter).toBe('A1:T2');
  });
});
