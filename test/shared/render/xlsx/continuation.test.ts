import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openXlsxWorkbook } from '../../../../shared/render/xlsx/workbook';
import type { TableDefinition } from '../../../../shared/table/table';
import { readWorkbook, sheetHeader } from '../../../support/read-output';

/** The workbook's created time: fixed, so a file's bytes depend on nothing but its content. */
const CREATED_AT = new Date('2026-11-23T06:00:00Z');

/** Past Excel's rows a sheet, a table goes on in "<sheet> (2)" (the limit lowered so the test is small). */
describe('a table longer than a sheet', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'xlsx-continue-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('continues on "Board items (2)", "(3)" with the header repeated, every row once, in order', async () => {
    const file = join(dir, 'long.xlsx');
    const out = createWriteStream(file);
    const workbook = openXlsxWorkbook(out, { createdAt: CREATED_AT, timeZone: 'UTC', locale: 'en-GB', maxRowsPerSheet: 5, footer: 'Long – 2026-11-23' });
    const table: TableDefinition = {
      name: 'board-items',
      title: 'Board items',
      columns: [
        { key: 'id', type: 'text', description: 'Id', label: 'Item id', hidden: true, nowrap: true },
        { key: 'n', type: 'integer', description: 'Number', label: 'Number' },
      ],
    };
    const sink = workbook.openSheet(table);
    for (let i = 1; i <= 12; i++) await sink.writeRow({ values: [`id-${i}`, i] });
    expect(await sink.close()).toBe(12);
    await workbook.writeSummary({ title: 'Long', sections: [] });
    await workbook.close();

    const read = await readWorkbook(file);
    expect(read.worksheets.map((s) => s.name)).toEqual(['Summary', 'Board items', 'Board items (2)', 'Board items (3)']);
    const numbers: number[] = [];
    for (const sheet of read.worksheets.slice(1)) {
      expect(sheetHeader(sheet)).toEqual(['Item id', 'Number']);
      expect(sheet.getColumn(1).hidden).toBe(true);
      expect(sheet.pageSetup.printTitlesRow).toBe('1:1');
      expect(sheet.headerFooter.oddFooter).toContain('Long – 2026-11-23');
      for (let r = 2; r <= sheet.rowCount; r++) numbers.push(sheet.getRow(r).getCell(2).value as number);
    }
    expect(read.worksheets.slice(1).map((s) => s.rowCount - 1)).toEqual([5, 5, 2]);
    expect(numbers).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
  });
});
