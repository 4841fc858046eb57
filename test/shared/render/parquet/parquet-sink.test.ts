import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StorageError } from '../../../../shared/core/errors';
import { openParquetSink } from '../../../../shared/render/parquet/parquet-sink';
import type { TableDefinition } from '../../../../shared/table/table';

const TABLE: TableDefinition = {
  name: 'sample',
  columns: [
    { key: 'title', type: 'text', description: '' },
    { key: 'n', type: 'integer', description: '' },
    { key: 'x', type: 'number', description: '' },
    { key: 'pct', type: 'percent', description: '' },
    { key: 'day', type: 'date', description: '' },
    { key: 'at', type: 'datetime', description: '' },
    { key: 'url', type: 'link', description: '' },
    { key: 'ok', type: 'boolean', description: '' },
    { key: 'tags', type: 'list', description: '' },
  ],
};
const EXPORTED_AT = new Date('2026-11-23T06:00:00Z');

/** Collects what the sink writes, pausing like a slow upload so backpressure is exercised. */
function slowCollector(): { out: Writable; bytes: () => Buffer } {
  const chunks: Buffer[] = [];
  const out = new Writable({
    highWaterMark: 1024,
    write(chunk: Buffer, _encoding, callback) {
      chunks.push(chunk);
      setImmediate(callback);
    },
  });
  return { out, bytes: () => Buffer.concat(chunks) };
}

describe('openParquetSink', () => {
  let dir: string;
  let db: DuckDBInstance;
  let duck: DuckDBConnection;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'parquet-sink-'));
    db = await DuckDBInstance.create(':memory:');
    duck = await db.connect();
  });
  afterAll(async () => {
    duck.closeSync();
    await rm(dir, { recursive: true, force: true });
  });

  async function write(rows: unknown[][], options: { rowGroupRows?: number } = {}) {
    const { out, bytes } = slowCollector();
    const sink = openParquetSink(TABLE, out, { runId: 'run-7', exportedAt: EXPORTED_AT, schemaVersion: '1.0', ...options });
    for (const values of rows) {
      const pending = sink.writeRow({ values: values as never });
      if (pending) await pending;
    }
    const count = await sink.close();
    const file = join(dir, `f-${Math.random().toString(36).slice(2)}.parquet`);
    await writeFile(file, bytes());
    return { count, file, nulled: sink.nulledValues() };
  }

  it('writes every column type as its typed, raw value and nulls as NULL', async () => {
    const day = new Date(Date.UTC(2026, 0, 5));
    const at = new Date('2026-03-01T12:34:56.789Z');
    const { count, file } = await write([
      ['=cmd|\' /C calc\'!A0', 42, 1.25, 45, day, at, { text: 'PLT-1', url: 'https://t.example/PLT-1' }, true, ['a; b', 'Zürich 日本語']],
      [null, null, null, null, null, null, null, null, null],
    ]);
    expect(count).toBe(2);
    const reader = await duck.runAndReadAll(`SELECT * FROM read_parquet('${file}')`);
    const types = Object.fromEntries(reader.columnNames().map((n, i) => [n, reader.columnTypes()[i]!.toString()]));
    expect(types).toEqual({
      title: 'VARCHAR', n: 'BIGINT', x: 'DOUBLE', pct: 'DOUBLE', day: 'DATE', at: 'TIMESTAMP WITH TIME ZONE', url: 'VARCHAR',
      ok: 'BOOLEAN', tags: 'VARCHAR[]', run_id: 'VARCHAR', exported_at: 'TIMESTAMP WITH TIME ZONE',
    });
    const [full, empty] = reader.getRowObjectsJS();
    expect(full).toEqual({
      title: '=cmd|\' /C calc\'!A0', n: 42n, x: 1.25, pct: 0.45, day, at, url: 'https://t.example/PLT-1', ok: true,
      tags: ['a; b', 'Zürich 日本語'], run_id: 'run-7', exported_at: EXPORTED_AT,
    });
    expect(empty).toEqual({
      title: null, n: null, x: null, pct: null, day: null, at: null, url: null, ok: null, tags: null, run_id: 'run-7', exported_at: EXPORTED_AT,
    });
  });

  it('writes a value that does not fit its column type as null and counts it', async () => {
    const { file, nulled } = await write([['t', 1.5, 'n/a', 10, '05 Mar, 26', null, null, 'yes', 'single']]);
    expect(nulled).toEqual({ n: 1, x: 1, day: 1, ok: 1 });
    const [row] = (await duck.runAndReadAll(`SELECT n, x, day, ok, tags FROM read_parquet('${file}')`)).getRowObjectsJS();
    expect(row).toEqual({ n: null, x: null, day: null, ok: null, tags: ['single'] });
  });

  it('splits rows into row groups of the configured size, streaming each as it fills', async () => {
    const rows = Array.from({ length: 2_500 }, (_, i) => [`row ${i}`, i, i / 2, i % 101, null, null, null, i % 2 === 0, [`t${i % 3}`]]);
    const { count, file } = await write(rows, { rowGroupRows: 1_000 });
    expect(count).toBe(2_500);
    const groups = (await duck.runAndReadAll(`SELECT num_rows FROM parquet_file_metadata('${file}')`)).getRowObjectsJS();
    expect(groups[0]!.num_rows).toBe(2_500n);
    const sizes = (await duck.runAndReadAll(
      `SELECT DISTINCT row_group_id, row_group_num_rows FROM parquet_metadata('${file}') ORDER BY row_group_id`,
    )).getRowObjectsJS();
    expect(sizes.map((s) => Number(s.row_group_num_rows))).toEqual([1_000, 1_000, 500]);
    const [sum] = (await duck.runAndReadAll(`SELECT sum(n) AS s, count(*) FILTER (ok) AS even FROM read_parquet('${file}')`)).getRowObjectsJS();
    expect(sum).toEqual({ s: 2_500n * 2_499n / 2n, even: 1_250n });
  });

  it('writes a readable file with the schema for a table without rows', async () => {
    const { count, file } = await write([]);
    expect(count).toBe(0);
    const reader = await duck.runAndReadAll(`SELECT * FROM read_parquet('${file}')`);
    expect(reader.currentRowCount).toBe(0);
    expect(reader.columnNames()).toContain('tags');
  });

  it('fails with a StorageError naming the table when the output fails', async () => {
    const out = new PassThrough();
    const sink = openParquetSink(TABLE, out, { runId: 'r', exportedAt: EXPORTED_AT, schemaVersion: '1.0', rowGroupRows: 1 });
    // Not events.once: it rejects on the 'error' event, which is the point of this test.
    const closed = new Promise((resolve) => out.once('close', resolve));
    out.destroy(new Error('disk full'));
    await closed;
    expect(() => sink.writeRow({ values: ['a'] })).toThrow(StorageError);
    await expect(sink.close()).rejects.toThrow(/Parquet file of "sample"/);
  });
});
