// @tier slow
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fixedClock } from '../../../../../shared/core/clock';
import { SpilledKeyPrints } from '../../../../../shared/report/changes/keys/spilled-key-prints';
import { makeTempDir, type TempDir } from '../../../../support/temp-dir';

/**
 * A million rows, a disk read each: seconds of work, so the slow tier. A million is enough to cross
 * each bound this proves (a table past IN_MEMORY_TABLE_BYTES, several buckets, a working set a quarter of
 * the 16 MB an in-memory map would hold); it was two million, twice the time for the same facts.
 */
describe('the spilled comparison key map at a million rows', () => {
  let temp: TempDir;
  let tmpdirBefore: string | undefined;
  let map: SpilledKeyPrints | undefined;
  const open = (options: Parameters<typeof SpilledKeyPrints.open>[0]) => (map = SpilledKeyPrints.open(options));

  beforeEach(() => {
    temp = makeTempDir('spilled-key-prints-scale');
    tmpdirBefore = process.env.TMPDIR;
    process.env.TMPDIR = temp.root;
  });
  afterEach(() => {
    map?.close();
    if (tmpdirBefore === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = tmpdirBefore;
    temp.remove();
  });

  it('keeps every one of 1,000,000 keys apart, holding a bounded working set plus one bit a row', () => {
    const rows = 1_000_000;
    const map = open({ expectedRows: rows, clock: fixedClock(new Date('2026-11-23T06:00:00Z')) });
    // Fingerprints as cyrb53 makes them: 53 bits.
    const printOf = (i: number) => i * 4_503_599_627 + 7;
    for (let i = 0; i < rows; i++) map.set(`1003\u001f${i}`, printOf(i));
    map.seal();
    // About 21 MB of table: past what is read back into memory (16 MB), so every lookup below reads the file.
    expect(map.inMemory).toBe(false);
    expect(map.size).toBe(rows);
    let wrong = 0;
    for (let i = 0; i < rows; i++) if (map.take(`1003\u001f${i}`, i % 2 === 0 ? printOf(i) : printOf(i) + 1) !== (i % 2 === 0 ? 'same' : 'changed')) wrong++;
    expect(wrong).toBe(0);
    expect(map.size).toBe(0);
    expect(map.take('1003\u001f0', printOf(0))).toBe('absent');
    // The in-memory map this replaces held 16 bytes a row (16 MB here); the bound does not grow with rows.
    const workingSet = map.memoryBytes - rows / 8;
    expect(workingSet).toBeGreaterThan(0);
    expect(workingSet).toBeLessThan(4 * 2 ** 20);
  });
});
