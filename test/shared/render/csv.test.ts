import { createWriteStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { PassThrough, Writable } from 'node:stream';
import type { Options } from 'csv-parse';
import { parse } from 'csv-parse/sync';
import { afterAll, describe, expect, it } from 'vitest';
import { StorageError } from '../../../shared/core/errors';
import { restoreFormula } from '../../../shared/render/cell-text';
import { openCsvSink } from '../../../shared/render/csv';
import type { TableDefinition, TableRow } from '../../../shared/table/table';
import { allTypesRow, allTypesTable } from '../../support/all-types';
import { makeTempDir } from '../../support/temp-dir';

const temp = makeTempDir('csv-render');
afterAll(() => temp.remove());

const ALL_TYPES = allTypesTable();

async function writeCsv(
  name: string,
  table: TableDefinition,
  rows: readonly TableRow[],
  options: { bom: boolean; timeZone: string; neutraliseFormulas?: boolean } = { bom: false, timeZone: 'Europe/Berlin' },
): Promise<{ bytes: Buffer; count: number }> {
  const path = temp.path(`${name}.csv`);
  const sink = openCsvSink(table, createWriteStream(path), options);
  for (const row of rows) await sink.writeRow(row);
  const count = await sink.close();
  return { bytes: await readFile(path), count };
}

function parseCsv(bytes: Buffer): string[][] {
  const options: Options = { bom: true, relax_column_count: false };
  return parse(bytes, options);
}

describe('openCsvSink', () => {
  it('writes the column keys as the header row and resolves close() with the data-row count', async () => {
    const { bytes, count } = await writeCsv('header', ALL_TYPES, [{ values: ['a'] }, { values: ['b'] }]);
    const rows = parseCsv(bytes);
    expect(rows[0]).toEqual(['title', 'count', 'score', 'progress', 'due', 'updated_at', 'url', 'blocked']);
    expect(rows).toHaveLength(3);
    expect(count).toBe(2);
  });

  it('writes the header as soon as the sink is opened', () => {
    const out = new PassThrough();
    openCsvSink(ALL_TYPES, out, { bom: false, timeZone: 'UTC' });
    expect(String(out.read())).toBe('title,count,score,progress,due,updated_at,url,blocked\r\n');
  });

  it('writes an empty table as the header line only', async () => {
    const { bytes, count } = await writeCsv('empty', ALL_TYPES, []);
    expect(bytes.toString('utf8')).toBe('title,count,score,progress,due,updated_at,url,blocked\r\n');
    expect(count).toBe(0);
  });

  it('formats every column type: plain numbers, percent as given, ISO dates, datetimes with offset, URL, true/false', async () => {
    const { bytes } = await writeCsv('types', ALL_TYPES, [
      allTypesRow(),
      {
        values: ['Risk B', -3, 1_000_000, 12.5, new Date(Date.UTC(2026, 6, 1)), new Date('2026-07-01T10:15:30Z'), null, false],
      },
    ]);
    const [, first, second] = parseCsv(bytes);
    expect(first).toEqual([
      'Risk A',
      '42',
      '0.30000000000000004',
      '45',
      '2026-11-21',
      '2026-11-21T08:00:00+01:00',
      'https://planning.example.com/items/1?a=1&b=2',
      'true',
    ]);
    expect(second).toEqual(['Risk B', '-3', '1000000', '12.5', '2026-07-01', '2026-07-01T12:15:30+02:00', '', 'false']);
  });

  it('writes null, undefined, missing trailing values, NaN and invalid dates as empty fields', async () => {
    const { bytes } = await writeCsv('empties', ALL_TYPES, [
      { values: [null, undefined, Number.NaN, Number.POSITIVE_INFINITY, new Date(Number.NaN)] },
    ]);
    expect(bytes.toString('utf8').split('\r\n')[1]).toBe(',,,,,,,');
    expect(parseCsv(bytes)[1]).toEqual(['', '', '', '', '', '', '', '']);
  });

  it('quotes fields with quotes, commas, CR or LF (RFC 4180) and round-trips them through a CSV parser', async () => {
    const tricky = [
      'say "hi"',
      'a,b',
      'line1\r\nline2',
      'lone\nLF',
      'lone\rCR',
      '"',
      ',',
      '',
      ' padded ',
      'Ünïcödé — 日本語 — عربى',
      'emoji 🚀👩‍👩‍👧 ok',
    ];
    const table: TableDefinition = { name: 't', columns: [{ key: 'v', type: 'text', description: '' }] };
    const { bytes } = await writeCsv('rfc4180', table, tricky.map((v) => ({ values: [v] })));
    const text = bytes.toString('utf8');
    expect(text).toContain('\r\n"say ""hi"""\r\n"a,b"\r\n"line1\r\nline2"\r\n');
    expect(text).toContain('\r\n padded \r\n');
    expect(parseCsv(bytes).slice(1).map((r) => r[0])).toEqual(tricky);
  });

  it('ends every record with CRLF', async () => {
    const table: TableDefinition = { name: 't', columns: [{ key: 'a', type: 'text', description: '' }, { key: 'b', type: 'integer', description: '' }] };
    const { bytes } = await writeCsv('crlf', table, [{ values: ['x', 1] }, { values: ['y', 2] }]);
    expect(bytes.toString('utf8')).toBe('a,b\r\nx,1\r\ny,2\r\n');
  });

  it('starts with a UTF-8 byte-order mark when bom is true, and without one when false', async () => {
    const table: TableDefinition = { name: 't', columns: [{ key: 'name', type: 'text', description: '' }] };
    const withBom = await writeCsv('bom-on', table, [{ values: ['Grüße'] }], { bom: true, timeZone: 'UTC' });
    const withoutBom = await writeCsv('bom-off', table, [{ values: ['Grüße'] }], { bom: false, timeZone: 'UTC' });
    expect([...withBom.bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(withBom.bytes.subarray(3).toString('utf8')).toBe('name\r\nGrüße\r\n');
    expect(withoutBom.bytes.toString('utf8')).toBe('name\r\nGrüße\r\n');
  });

  it('neutralises text a spreadsheet would evaluate, and restoreFormula recovers the original exactly', async () => {
    const dangerous = ['=1+1', "=cmd|' /C calc'!A0", '+49 30', '-5', '@SUM(A1)', '\tTAB', '\rCR', "'=already", 'safe'];
    const table: TableDefinition = { name: 't', columns: [{ key: 'v', type: 'text', description: '' }] };
    const { bytes } = await writeCsv('formula', table, dangerous.map((v) => ({ values: [v] })));
    const written = parseCsv(bytes).slice(1).map((r) => r[0]!);
    expect(written).toEqual(["'=1+1", "'=cmd|' /C calc'!A0", "'+49 30", "'-5", "'@SUM(A1)", "'\tTAB", "'\rCR", "''=already", 'safe']);
    expect(written.map(restoreFormula)).toEqual(dangerous);
  });

  it('writes text exactly as it is with neutraliseFormulas: false (for files no spreadsheet opens)', async () => {
    const dangerous = ['=1+1', "=cmd|' /C calc'!A0", '@SUM(A1)', "'=already", 'safe'];
    const table: TableDefinition = { name: 't', columns: [{ key: 'v', type: 'text', description: '' }, { key: 'u', type: 'link', description: '' }] };
    const rows = dangerous.map((v) => ({ values: [v, { text: 'x', url: v }] }));
    const { bytes } = await writeCsv('formula-raw', table, rows, { bom: false, timeZone: 'UTC', neutraliseFormulas: false });
    expect(parseCsv(bytes).slice(1)).toEqual(dangerous.map((v) => [v, v]));
  });

  it('joins a list column with "; " and neutralises the joined text', async () => {
    const table: TableDefinition = { name: 't', columns: [{ key: 'tags', type: 'list', description: '' }] };
    const { bytes } = await writeCsv('list', table, [{ values: [['Phoenix', 'Dragon, Inc.']] }, { values: [['=x', 'y']] }, { values: [null] }]);
    expect(parseCsv(bytes).slice(1)).toEqual([['Phoenix; Dragon, Inc.'], ["'=x; y"], ['']]);
  });

  it('does not neutralise negative numbers, which are numbers, not text', async () => {
    const table: TableDefinition = { name: 't', columns: [{ key: 'n', type: 'number', description: '' }] };
    const { bytes } = await writeCsv('negative', table, [{ values: [-2.5] }]);
    expect(parseCsv(bytes)[1]).toEqual(['-2.5']);
  });

  it('neutralises a link URL that a spreadsheet would evaluate', async () => {
    const table: TableDefinition = { name: 't', columns: [{ key: 'url', type: 'link', description: '' }] };
    const { bytes } = await writeCsv('link-formula', table, [{ values: [{ text: 'x', url: '=HYPERLINK("http://evil")' }] }]);
    expect(parseCsv(bytes)[1]).toEqual(['\'=HYPERLINK("http://evil")']);
  });

  it('keeps full text beyond the 32,767-character cell limit and characters XML forbids', async () => {
    const long = 'z'.repeat(40_000);
    const controls = 'bell\u0007 nul\u0000 ffff\uFFFF';
    const table: TableDefinition = { name: 't', columns: [{ key: 'v', type: 'text', description: '' }] };
    const { bytes } = await writeCsv('full-text', table, [{ values: [long] }, { values: [controls] }]);
    const rows = parseCsv(bytes);
    expect(rows[1]![0]).toBe(long);
    expect(rows[2]![0]).toBe(controls);
  });

  it('writes dates past year 9999 in extended ISO form rather than cutting them', async () => {
    const table: TableDefinition = { name: 't', columns: [{ key: 'd', type: 'date', description: '' }] };
    const { bytes } = await writeCsv('far-future', table, [{ values: [new Date(Date.UTC(10000, 0, 1))] }]);
    expect(parseCsv(bytes)[1]).toEqual(['+010000-01-01']);
  });

  it('writes a value of another type than its column as what it is, so nothing is lost', async () => {
    const { bytes } = await writeCsv('mismatch', ALL_TYPES, [
      { values: [new Date('2026-11-21T07:00:00Z'), 'n/a', '-1', 'high', 'soon', 'later', 'not a link', 'yes'] },
    ]);
    expect(parseCsv(bytes)[1]).toEqual(['2026-11-21T08:00:00+01:00', 'n/a', "'-1", 'high', 'soon', 'later', 'not a link', 'yes']);
  });

  it('returns a promise from writeRow only when the output is full, and it resolves on drain', async () => {
    const chunks: string[] = [];
    let drained = 0;
    // A slow destination with a tiny buffer: every write fills it, and is taken only on a later turn of the event loop.
    const out = new Writable({
      highWaterMark: 1024,
      write(chunk: Buffer, _encoding, callback) {
        chunks.push(chunk.toString('utf8'));
        setImmediate(callback);
      },
    });
    out.on('drain', () => (drained += 1));
    const table: TableDefinition = { name: 't', columns: [{ key: 'v', type: 'text', description: '' }] };
    const sink = openCsvSink(table, out, { bom: false, timeZone: 'UTC' });
    const row = 'r'.repeat(1000);
    let promises = 0;
    let immediate = 0;
    for (let i = 0; i < 500; i++) {
      const result = sink.writeRow({ values: [row] });
      if (result instanceof Promise) {
        promises += 1;
        expect(out.writableNeedDrain).toBe(true);
        await result;
        expect(out.writableNeedDrain).toBe(false);
      } else {
        immediate += 1;
      }
    }
    expect(await sink.close()).toBe(500);
    expect(promises).toBeGreaterThan(0);
    expect(immediate).toBeGreaterThan(0);
    expect(drained).toBeGreaterThanOrEqual(promises);
    expect(chunks.join('').split('\r\n')).toHaveLength(502);
  });

  it('rejects a pending write when the output is destroyed instead of waiting forever', async () => {
    const out = new Writable({
      highWaterMark: 16,
      write(_chunk, _encoding, _callback) {
        // never completes: the destination hangs
      },
    });
    const table: TableDefinition = { name: 't', columns: [{ key: 'v', type: 'text', description: '' }] };
    const sink = openCsvSink(table, out, { bom: false, timeZone: 'UTC' });
    let pending: Promise<void> | void = undefined;
    for (let i = 0; i < 100 && !(pending instanceof Promise); i++) pending = sink.writeRow({ values: ['x'.repeat(70_000)] });
    expect(pending).toBeInstanceOf(Promise);
    out.destroy(new Error('socket hang up'));
    await expect(pending).rejects.toThrow();
  });

  it('reports an output error from the next writeRow as a StorageError instead of crashing', async () => {
    const out = new Writable({
      write(_chunk, _encoding, callback) {
        callback(new Error('disk full'));
      },
    });
    const table: TableDefinition = { name: 't', columns: [{ key: 'v', type: 'text', description: '' }] };
    const sink = openCsvSink(table, out, { bom: false, timeZone: 'UTC' });
    // The header and the first chunk go out; the destination fails them.
    await Promise.resolve(sink.writeRow({ values: ['x'.repeat(70_000)] })).catch(() => undefined);
    await new Promise((resolve) => setImmediate(resolve));
    expect(() => sink.writeRow({ values: ['more'] })).toThrow(StorageError);
    await expect(sink.close()).rejects.toThrow(StorageError);
  });

  it('refuses rows after close', async () => {
    const table: TableDefinition = { name: 't', columns: [{ key: 'v', type: 'text', description: '' }] };
    const sink = openCsvSink(table, createWriteStream(temp.path('closed.csv')), { bom: false, timeZone: 'UTC' });
    await sink.close();
    expect(() => sink.writeRow({ values: ['late'] })).toThrow(/closed/);
  });
});
