import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { openSnapshotWriter, readSnapshot, SNAPSHOT_FORMAT, type SnapshotHeader } from '../../../../shared/report/changes/snapshot';

const HEADER: SnapshotHeader = {
  format: SNAPSHOT_FORMAT, version: 1, table: 'risks', columns: ['key'], fields: [], scope: { units: [], settings: {} },
};

async function* streamed(chunks: readonly Uint8Array[]): AsyncGenerator<Uint8Array> {
  yield* chunks;
}

async function snapshotOf(keys: readonly string[]): Promise<Uint8Array[]> {
  const out = new PassThrough();
  const chunks: Uint8Array[] = [];
  out.on('data', (chunk: Uint8Array) => chunks.push(chunk));
  const writer = openSnapshotWriter(out, HEADER);
  for (const key of keys) await writer.write({ key, display: key, title: null, scope: null, values: [] }).pending;
  await writer.close();
  return chunks;
}

describe('reading a snapshot', () => {
  it("gives want and onRow each row's ordinal, counting rows not wanted and keys parsed in full (escapes)", async () => {
    // Keys with a quote or a backslash skip the quick path: they are parsed in full, and counted the same.
    const keys = ['a', 'say "b"', 'c', 'd\\e', 'f', 'g'];
    const wanted: [string, number][] = [];
    const rows: [string, number][] = [];
    await readSnapshot(streamed(await snapshotOf(keys)), () => undefined, {
      want: (key, ordinal) => {
        wanted.push([key, ordinal]);
        return ordinal % 2 === 0;
      },
      onRow: (row, ordinal) => rows.push([row.key, ordinal]),
    });
    expect(wanted).toEqual([['a', 0], ['c', 2], ['f', 4], ['g', 5]]);
    expect(rows).toEqual([['a', 0], ['say "b"', 1], ['c', 2], ['d\\e', 3], ['f', 4]]);
  });
});
