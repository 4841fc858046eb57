// @tier slow
import { createWriteStream } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { Writable } from 'node:stream';
import ExcelJS from 'exceljs';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { MAX_SHEET_HYPERLINKS } from '../../../../shared/render/xlsx/cells';
import { openXlsxWorkbook } from '../../../../shared/render/xlsx/workbook';
import type { TableDefinition, TableRow } from '../../../../shared/table/table';
import { LARGE_ROWS } from '../../../support/test-tiers';
import { makeTempDir } from '../../../support/temp-dir';

/** The workbook's created time: fixed, so a file's bytes depend on nothing but its content. */
const CREATED_AT = new Date('2026-11-23T06:00:00Z');

const temp = makeTempDir('xlsx-large');
afterAll(() => temp.remove());

const ITEMS: TableDefinition = {
  name: 'board-items',
  columns: [
    { key: 'id', type: 'integer', description: '' },
    { key: 'title', type: 'text', description: '' },
    { key: 'due', type: 'date', description: '' },
    { key: 'progress', type: 'percent', description: '' },
    { key: 'url', type: 'link', description: '' },
  ],
};

function item(i: number): TableRow {
  return {
    values: [
      i,
      `Item ${i}: "quoted" & <tagged>\nsecond line`,
      new Date(Date.UTC(2026, 0, 1) + (i % 1000) * 86_400_000),
      i % 101,
      { text: `ITEM-${i}`, url: `https://planning.example.com/items/${i}` },
    ],
    outlineLevel: i % 3 === 0 ? 0 : 1,
    fill: i % 7 === 0 ? { column: 1, color: '#c6efce' } : undefined,
  };
}

const ROWS = LARGE_ROWS;

describe('openXlsxWorkbook at scale', () => {
  // A hang guard, not a speed target (those are in npm run bench): reading 100,000 rows back with
  // exceljs takes a minute on a loaded 2-core machine.
  it(`streams ${ROWS.toLocaleString('en-US')} rows into a workbook that reads back complete and exact`, async () => {
    const path = temp.path('large.xlsx');
    const workbook = openXlsxWorkbook(createWriteStream(path), { createdAt: CREATED_AT, timeZone: 'UTC', locale: 'en-GB' });
    const sheet = workbook.openSheet(ITEMS, { outlineLevels: 1 });
    // Memory at this size is measured by npm run bench (peak RSS of a render in its own process), not
    // here: the process's buffers also hold other tests' garbage until a collection happens to run.
    for (let i = 0; i < ROWS; i++) await sheet.writeRow(item(i));
    expect(await sheet.close()).toBe(ROWS);
    await workbook.writeSummary({ title: 'Large', sections: [{ heading: 'Rows', lines: [{ label: 'items', value: ROWS }] }] });
    await workbook.close();

    const book = new ExcelJS.Workbook();
    await book.xlsx.readFile(path);
    const read = book.getWorksheet('board-items')!;
    expect(book.worksheets.map((s) => s.name)).toEqual(['Summary', 'board-items']);
    expect(read.actualRowCount).toBe(ROWS + 1);
    for (const i of [0, 1, 7, 12_345, MAX_SHEET_HYPERLINKS - 1, MAX_SHEET_HYPERLINKS, 65_535, 65_536, ROWS - 1]) {
      const row = read.getRow(i + 2);
      const expected = item(i).values;
      expect(row.getCell(1).value).toBe(i);
      expect(row.getCell(2).value).toBe(expected[1]);
      expect(row.getCell(3).value).toEqual(expected[2]);
      expect(row.getCell(4).value).toBeCloseTo((i % 101) / 100, 12);
      // Past a sheet's MAX_SHEET_HYPERLINKS a link is a HYPERLINK formula showing the same text.
      const url = `https://planning.example.com/items/${i}`;
      expect(row.getCell(5).value).toEqual(
        i < MAX_SHEET_HYPERLINKS ? { text: `ITEM-${i}`, hyperlink: url } : { formula: `HYPERLINK("${url}","ITEM-${i}")`, result: `ITEM-${i}` },
      );
      expect(row.outlineLevel).toBe(i % 3 === 0 ? 0 : 1);
      expect(row.getCell(2).fill).toMatchObject(i % 7 === 0 ? { fgColor: { argb: 'FFC6EFCE' } } : { pattern: 'none' });
    }
    expect(read.autoFilter).toBe(`A1:E${ROWS + 1}`);
  }, 300_000);

  it('stops the producer while the destination takes nothing, and finishes the file once it does', async () => {
    const chunks: Buffer[] = [];
    const held: (() => void)[] = [];
    let open = false;
    // A destination that accepts nothing until `open`: a stalled upload.
    const out = new Writable({
      highWaterMark: 64 * 1024,
      write(chunk: Buffer, _encoding, callback) {
        chunks.push(chunk);
        if (open) callback();
        else held.push(() => callback());
      },
    });
    // The producer is blocked once it waits for the destination's 'drain', which a destination that
    // holds every callback never emits: seen when the renderer subscribes one listener to 'drain'
    // and 'close' (its wait for the destination), not by a timer.
    let producerWaits!: () => void;
    const waitingForDrain = new Promise<'blocked'>((resolve) => (producerWaits = () => resolve('blocked')));
    type Listener = (...args: never[]) => void;
    const subscribe = out.on.bind(out) as (event: string | symbol, listener: Listener) => Writable;
    out.on = ((event: string | symbol, listener: Listener) => {
      if (event === 'close' && out.listeners('drain').includes(listener)) producerWaits();
      return subscribe(event, listener);
    }) as typeof out.on;
    const workbook = openXlsxWorkbook(out, { createdAt: CREATED_AT, timeZone: 'UTC', locale: 'en-GB' });
    const sheet = workbook.openSheet(ITEMS);
    const bigText = 'x'.repeat(1000);
    const row = (i: number): TableRow => ({ values: [i, `${i} ${bigText}`] });

    let blockedAt = -1;
    let pending: Promise<void> | undefined;
    for (let i = 0; i < 200_000 && blockedAt < 0; i++) {
      const result = sheet.writeRow(row(i));
      if (result instanceof Promise) {
        const outcome = await Promise.race([result.then(() => 'written' as const), waitingForDrain]);
        if (outcome === 'blocked') {
          blockedAt = i + 1;
          pending = result;
        }
      }
    }
    expect(held.length, 'the destination took nothing while blocked').toBeGreaterThan(0);
    // Blocked after at most ~16 MB of sheet XML (~1 KB a row) instead of buffering all 200 MB.
    expect(blockedAt).toBeGreaterThan(0);
    expect(blockedAt).toBeLessThan(16_000);

    open = true;
    for (const release of held.splice(0)) release();
    await pending;
    for (let i = blockedAt; i < blockedAt + 100; i++) await sheet.writeRow(row(i));
    expect(await sheet.close()).toBe(blockedAt + 100);
    await workbook.writeSummary({ title: 'Stalled', sections: [] });
    await workbook.close();

    const path = temp.path('stalled.xlsx');
    await writeFile(path, Buffer.concat(chunks));
    const book = new ExcelJS.Workbook();
    await book.xlsx.readFile(path);
    const read = book.getWorksheet('board-items')!;
    expect(read.actualRowCount).toBe(blockedAt + 101);
    expect(read.getCell(`B${blockedAt + 101}`).value).toBe(`${blockedAt + 99} ${bigText}`);
  });

  it('passes the sheet XML to the zip through fewer than 64 reused 64 KiB buffers', async () => {
    // Without links the sheet is the only part that grows; a destination that takes everything at
    // once, so only the renderer's own pacing and exceljs/archiver's buffers are measured.
    const out = new Writable({
      write(_chunk: Buffer, _encoding, callback) {
        callback();
      },
    });
    const allocations = vi.spyOn(Buffer, 'allocUnsafeSlow');
    try {
      const workbook = openXlsxWorkbook(out, { createdAt: CREATED_AT, timeZone: 'UTC', locale: 'en-GB' });
      const sheet = workbook.openSheet(ITEMS);
      const text = 'planning & <reporting> "text" '.repeat(40);
      // ~14 MB of sheet XML: 210 buffers of 64 KiB if each were new, over three times the bound (it was
      // 40,000 rows, 55 MB, four times the time for the same verdict).
      const rows = 10_000;
      for (let i = 0; i < rows; i++) await sheet.writeRow({ values: [i, `${i} ${text}`, null, i % 101, null] });
      expect(await sheet.close()).toBe(rows);
      await workbook.writeSummary({ title: 'Bounded', sections: [] });
      await workbook.close();
      // Before: the PassThrough in front of deflate (readable-stream 2, no
      // writableLength) went unmeasured, ~0.35 KB a row piled up, and every 64 KiB buffer was a new
      // allocation that often ended as old-generation garbage (up to ~64 MB before a full GC). Counting
      // the allocations shows the reuse without depending on when the garbage collector runs.
      const sheetBuffers = allocations.mock.calls.filter(([size]) => size === 65_536).length;
      expect(sheetBuffers).toBeGreaterThan(0);
      expect(sheetBuffers).toBeLessThan(64);
    } finally {
      allocations.mockRestore();
    }
  });
});
