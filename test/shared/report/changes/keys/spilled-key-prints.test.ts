import { mkdirSync, readdirSync, rmSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fixedClock } from '../../../../../shared/core/clock';
import { IN_MEMORY_TABLE_BYTES, SCRATCH_PREFIX, ScratchFileError, SpilledKeyPrints, STALE_SCRATCH_MS, type KeyHash } from '../../../../../shared/report/changes/keys/spilled-key-prints';
import { mulberry32 } from '../../../../../simulator/random';
import { makeTempDir, type TempDir } from '../../../../support/temp-dir';

/**
 * What the spilled map must answer, kept with a Map: the last print of each baseline key, the first
 * row (ordinal) of each, and which keys this run took.
 */
class Model {
  readonly prints = new Map<string, number>();
  readonly firstRow = new Map<string, number>();
  readonly taken = new Set<string>();
  rows = 0;

  set(key: string, print: number): void {
    this.prints.set(key, print);
    if (!this.firstRow.has(key)) this.firstRow.set(key, this.rows);
    this.rows++;
  }

  take(key: string, print: number): 'absent' | 'same' | 'changed' {
    const known = this.prints.get(key);
    if (known === undefined || this.taken.has(key)) return 'absent';
    this.taken.add(key);
    return known % 2 ** 32 === print % 2 ** 32 ? 'same' : 'changed';
  }

  /** The baseline rows the second pass reports as removed: each untaken key's first row. */
  unseen(): number[] {
    return [...this.firstRow].filter(([key]) => !this.taken.has(key)).map(([, row]) => row).sort((a, b) => a - b);
  }
}

function unseenOrdinals(map: SpilledKeyPrints): number[] {
  const out: number[] = [];
  for (let ordinal = 0; ordinal < map.rows; ordinal++) if (!map.isSeen(ordinal)) out.push(ordinal);
  return out;
}

/** Sets `sets` random keys of `keySpace` as a baseline, then takes `takes` keys of a larger space; checks each answer. */
function compareWithModel(map: SpilledKeyPrints, keyOf: (n: number) => string, seed: number, sets: number, takes: number, keySpace: number): void {
  const random = mulberry32(seed);
  const model = new Model();
  for (let i = 0; i < sets; i++) {
    const key = keyOf(Math.floor(random() * keySpace));
    const print = Math.floor(random() * 2 ** 53);
    model.set(key, print);
    map.set(key, print);
  }
  map.seal();
  let wrong = 0;
  for (let i = 0; i < takes; i++) {
    const key = keyOf(Math.floor(random() * keySpace * 1.2));
    const known = model.prints.get(key);
    const print = known !== undefined && random() < 0.8 ? known : Math.floor(random() * 2 ** 53);
    if (map.take(key, print) !== model.take(key, print)) wrong++;
  }
  expect(wrong).toBe(0);
  expect(map.size).toBe(model.unseen().length);
  expect(unseenOrdinals(map)).toEqual(model.unseen());
}

/** The table in its file (lookups read it), and read back into memory (the default for small tables). */
const BOTH_PLACES = [0, IN_MEMORY_TABLE_BYTES] as const;

describe('the spilled comparison key map', () => {
  let temp: TempDir;
  let tmpdirBefore: string | undefined;
  const maps: SpilledKeyPrints[] = [];
  // The run's clock where a test reads no time from it: the scratch made here is never stale by it.
  const open = (options: Partial<Parameters<typeof SpilledKeyPrints.open>[0]> = {}) => {
    const map = SpilledKeyPrints.open({ clock: fixedClock(new Date('2026-11-23T06:00:00Z')), ...options });
    maps.push(map);
    return map;
  };
  const scratchDirs = () => readdirSync(temp.root).filter((name) => name.startsWith(SCRATCH_PREFIX));

  beforeEach(() => {
    // Scratch directories go under a directory of this test's own, so no other test's can be counted.
    temp = makeTempDir('spilled-key-prints');
    tmpdirBefore = process.env.TMPDIR;
    process.env.TMPDIR = temp.root;
  });
  afterEach(() => {
    for (const map of maps.splice(0)) map.close();
    if (tmpdirBefore === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = tmpdirBefore;
    temp.remove();
  });

  it('answers like a Map through 200,000 random baseline rows (keys repeated) and 150,000 lookups (keys taken twice, absent ones)', () => {
    // Keys as the board-items table makes them (board, unit separator, item id), some non-ASCII.
    const keyOf = (n: number) => (n % 7 === 0 ? `Zürich·${n}` : `10${n % 50}\u001f${n}`);
    for (const inMemoryTableBytes of BOTH_PLACES) compareWithModel(open({ expectedRows: 200_000, inMemoryTableBytes }), keyOf, 22, 200_000, 150_000, 60_000);
    expect(maps.map((m) => m.inMemory)).toEqual([false, true]);
  });

  it('answers the same with fewer rows expected than come (one large bucket) and with none at all', () => {
    const keyOf = (n: number) => `1003\u001f${n}`;
    for (const inMemoryTableBytes of BOTH_PLACES) {
      compareWithModel(open({ expectedRows: 10, inMemoryTableBytes }), keyOf, 5, 100_000, 50_000, 80_000);
      compareWithModel(open({ inMemoryTableBytes }), keyOf, 6, 0, 1_000, 10);
    }
  });

  it('answers the same when keys crowd together: long probe runs across read blocks, equal h1, h1 at both ends of the range', () => {
    // h1 from a few values near 0 and near 2^32 (the table's tail), h2 from the key: runs of equal h1
    // hundreds of slots long, and entries placed past the table's nominal end.
    const crowded: KeyHash = (key, out) => {
      const n = Number(key.slice(1));
      const lowOrHigh = n % 2 === 0 ? n % 5 : 4294967295 - (n % 5);
      out[0] = lowOrHigh;
      out[1] = n * 2654435761;
    };
    for (const inMemoryTableBytes of BOTH_PLACES) compareWithModel(open({ expectedRows: 5_000, hash: crowded, inMemoryTableBytes }), (n) => `k${n}`, 7, 5_000, 6_000, 3_000);
  });

  it('keeps a key whose hash is (0, 0) or (0, 1) apart from an empty slot', () => {
    const zero: KeyHash = (key, out) => {
      out[0] = 0;
      out[1] = key === 'a' ? 0 : key === 'b' ? 1 : 7;
    };
    const map = open({ hash: zero });
    map.set('a', 1);
    map.seal();
    // 'a' and 'b' both become (0, 2): one key to the map, as they were to the in-memory map before.
    expect(map.take('c', 1)).toBe('absent');
    expect(map.take('a', 1)).toBe('same');
    expect(map.take('b', 1)).toBe('absent');
  });

  it('removes its scratch directory on close, sealed or not, and closing twice is harmless', () => {
    const sealed = open({ expectedRows: 100 });
    for (let i = 0; i < 100_000; i++) sealed.set(`k${i}`, i);
    sealed.seal();
    const unsealed = open();
    unsealed.set('k', 1);
    expect(scratchDirs()).toHaveLength(2);
    sealed.close();
    unsealed.close();
    sealed.close();
    expect(scratchDirs()).toEqual([]);
  });

  it('fails with a ScratchFileError, not a bare file error, when its scratch file cannot be written', () => {
    const map = open({ expectedRows: 10 });
    map.set('k', 1);
    for (const dir of scratchDirs()) rmSync(join(temp.root, dir), { recursive: true });
    expect(() => map.seal()).toThrow(ScratchFileError);
    expect(() => map.seal()).toThrow(/scratch file could not be/);
  });

  it('removes the scratch directories a killed run left an hour ago or more, and no one else\'s', () => {
    const now = Date.UTC(2026, 10, 25, 12);
    const leftover = (name: string, ageMs: number) => {
      mkdirSync(join(temp.root, name, 'bucket-0'), { recursive: true });
      const at = new Date(now - ageMs);
      utimesSync(join(temp.root, name), at, at);
    };
    leftover(`${SCRATCH_PREFIX}killed`, STALE_SCRATCH_MS + 1);
    leftover(`${SCRATCH_PREFIX}running`, STALE_SCRATCH_MS - 60_000);
    leftover('someone-else', 10 * STALE_SCRATCH_MS);
    const map = open({ clock: () => new Date(now) });
    map.set('k', 1);
    const names = readdirSync(temp.root);
    expect(names).not.toContain(`${SCRATCH_PREFIX}killed`);
    expect(names).toContain(`${SCRATCH_PREFIX}running`);
    expect(names).toContain('someone-else');
    expect(scratchDirs()).toHaveLength(2);
  });
});
