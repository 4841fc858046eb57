/**
 * The comparison's key map, kept in a scratch file rather than in memory. In typed arrays it took 16
 * bytes a baseline row (32 MB at 2 million), the one part of an export's memory that grew with the
 * baseline; here memory holds a bounded working set (at most 2 MiB of bucket buffers while building,
 * about 1.5 MiB while sealing) plus one bit per baseline row (its `seen` mark).
 *
 * Each baseline row gets its ordinal (0, 1, 2, … in snapshot order). Building appends a 16-byte record
 * (h1, h2, fingerprint, ordinal) to one of P bucket files chosen by the top bits of h1. Sealing reads
 * the buckets in order, sorts each by h1 and writes the table file: a linear-probing table whose
 * entries are in h1 order, each at `max(start(h1), previous slot + 1)` with `start` monotone in h1, so
 * a probe never wraps and stops at the first empty slot or the first larger h1. A lookup is one
 * positional read of a block of slots (a second only when a probe run crosses the block's end); a
 * table of up to IN_MEMORY_TABLE_BYTES is read back into memory instead, where lookups are cheaper.
 *
 * Ordinals are why the seen marks are one bit a row: a row of this run that finds its entry marks the
 * entry's ordinal, and the second pass over the baseline (compare.ts) counts ordinals as it reads, so
 * a row is "removed" when its ordinal is unmarked, without a lookup or a disk read.
 *
 * Keys are kept as a 64-bit hash, not as text. Two keys of one table with the same hash would be
 * read as one row (one addition and one removal not reported): among 2 million keys that happens
 * with a probability of about 1 in 10 million per run. Fingerprints are compared on their low 32
 * bits: a change hides behind an equal half with a probability of 1 in 4 billion per changed row.
 * Either can only hide a change, never invent one.
 *
 * Synchronous file calls: each is short and local, and a promise per row would cost more than the read.
 */
import type { Clock } from '../../../core/clock';
import { closeSync, fstatSync, mkdtempSync, openSync, readSync, rmSync, unlinkSync, writeSync, type PathLike } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cyrbLanes } from './cyrb';
import { SCRATCH_PREFIX, scratch, ScratchFileError, sweepStaleScratch } from './scratch';

export { SCRATCH_PREFIX, STALE_SCRATCH_MS, ScratchFileError } from './scratch';

/** Writes the 64-bit hash of `key` to `out` as two 32-bit halves (h1, h2). */
export type KeyHash = (key: string, out: Uint32Array) => void;

export interface SpilledKeyPrintsOptions {
  /** The baseline's rows (its manifest says): sizes the buckets. More are taken, in larger buckets. */
  readonly expectedRows?: number;
  /** Tests only: a hash that crowds keys together. */
  readonly hash?: KeyHash;
  /**
   * Judges scratch directories stale by their modification times: the run's clock (its start), which
   * in production is the system's time give or take the run's length, far inside STALE_SCRATCH_MS.
   */
  readonly clock: Clock;
  /** A table file up to this size is read back into memory (default IN_MEMORY_TABLE_BYTES); tests set 0. */
  readonly inMemoryTableBytes?: number;
}

/**
 * A lookup in the file is a positional read, ~3 µs (measured: 2,000,000 lookups in 6.7 s on the bench
 * machine), ten times a lookup in memory. A table up to 16 MiB (about 780,000 baseline rows, more than
 * the single path exports: FAN_OUT_ROWS) is read back into memory once built: the rows it costs are
 * bounded, and only the reports too large for that pay the reads.
 */
export const IN_MEMORY_TABLE_BYTES = 16 * 2 ** 20;

const cyrbKeyHash: KeyHash = (key, out) => cyrbLanes(key, 0x9e3779b9, 0x85ebca6b, out);

const MIN_CAPACITY = 1024;
/** Entries at most this share of the table's slots: probe runs stay short. */
const MAX_LOAD = 0.75;
/** A record and a slot alike: h1, h2, fingerprint (low 32 bits), ordinal. */
const WORDS = 4;
const SLOT_BYTES = WORDS * 4;
/** Records a bucket is meant to hold, so sealing reads at most ~1 MiB at a time. */
const BUCKET_RECORDS = 65_536;
const MAX_BUCKETS = 1024;
/** All bucket buffers together; each is flushed to its file when full. */
const BUFFER_BUDGET = 2 * 1024 * 1024;
const MAX_BUFFER_BYTES = 64 * 1024;
/** Slots the table file is written in, one window at a time. */
const WINDOW_SLOTS = 4096;
/** Slots a lookup reads at once: 256 bytes, long enough for nearly every probe run. */
const BLOCK_SLOTS = 16;
const TWO_32 = 4294967296;

export class SpilledKeyPrints {
  readonly #directory: string;
  readonly #hash: KeyHash;
  readonly #lanes = new Uint32Array(2);
  readonly #buckets: number;
  readonly #bufferRecords: number;
  #buffers: Uint32Array;
  /** Records waiting in each bucket's buffer, and records already in its file. */
  readonly #buffered: Uint32Array;
  readonly #flushed: Float64Array;
  #rows = 0;
  #sealed = false;
  #capacity = MIN_CAPACITY;
  #table = -1;
  /** The table, when it was small enough to be read back into memory (then there is no file). */
  #memory: Uint32Array | undefined;
  readonly #inMemoryTableBytes: number;
  #seen = new Uint8Array(0);
  #seenCount = 0;
  readonly #block = new Uint32Array(BLOCK_SLOTS * WORDS);
  #peakBytes = 0;
  #closed = false;

  private constructor(directory: string, expectedRows: number, hash: KeyHash, inMemoryTableBytes: number) {
    this.#directory = directory;
    this.#inMemoryTableBytes = inMemoryTableBytes;
    this.#hash = hash;
    this.#buckets = bucketsFor(expectedRows);
    this.#bufferRecords = Math.min(MAX_BUFFER_BYTES, BUFFER_BUDGET / this.#buckets) / SLOT_BYTES;
    this.#buffers = new Uint32Array(this.#buckets * this.#bufferRecords * WORDS);
    this.#buffered = new Uint32Array(this.#buckets);
    this.#flushed = new Float64Array(this.#buckets);
    this.#holding(this.#buffers.byteLength);
  }

  /** A map in a fresh scratch directory under the system's temporary one (Lambda's /tmp). */
  static open(options: SpilledKeyPrintsOptions): SpilledKeyPrints {
    sweepStaleScratch(tmpdir(), options.clock().getTime());
    const directory = scratch('made', () => mkdtempSync(join(tmpdir(), SCRATCH_PREFIX)));
    return new SpilledKeyPrints(directory, options.expectedRows ?? 0, options.hash ?? cyrbKeyHash, options.inMemoryTableBytes ?? IN_MEMORY_TABLE_BYTES);
  }

  /** Baseline rows set so far. */
  get rows(): number {
    return this.#rows;
  }

  /** Baseline rows whose entry no row of this run has taken (a repeated key's earlier rows count as taken). */
  get size(): number {
    return this.#rows - this.#seenCount;
  }

  /**
   * The most bytes of typed arrays the map has held at once (buffers, a bucket being sorted, the
   * window being written, the seen marks): what its memory is, measured rather than assumed.
   */
  get memoryBytes(): number {
    return this.#peakBytes;
  }

  /** The next baseline row (its ordinal is the count of rows set before it). Only before `seal`. */
  set(key: string, print: number): void {
    if (this.#sealed) throw new Error('the key map is sealed');
    this.#hashKey(key);
    const bucket = Math.floor(this.#lanes[0]! / (TWO_32 / this.#buckets));
    const at = (bucket * this.#bufferRecords + this.#buffered[bucket]!) * WORDS;
    this.#buffers[at] = this.#lanes[0]!;
    this.#buffers[at + 1] = this.#lanes[1]!;
    this.#buffers[at + 2] = print >>> 0;
    this.#buffers[at + 3] = this.#rows++;
    if (++this.#buffered[bucket]! === this.#bufferRecords) this.#flush(bucket);
  }

  /** Ends building: writes the table file. Once, after the last `set` and before any `take`. */
  seal(): void {
    if (this.#sealed) throw new Error('the key map is sealed');
    for (let bucket = 0; bucket < this.#buckets; bucket++) this.#flush(bucket);
    this.#buffers = new Uint32Array(0);
    this.#sealed = true;
    this.#capacity = Math.max(MIN_CAPACITY, Math.ceil(this.#rows / MAX_LOAD));
    this.#seen = new Uint8Array(Math.ceil(this.#rows / 8));
    const tablePath = join(this.#directory, 'table');
    this.#table = scratch('made', () => openSync(tablePath, 'w+'));
    const writer = new TableWriter(this.#table);
    for (let bucket = 0; bucket < this.#buckets; bucket++) this.#sealBucket(bucket, writer);
    writer.end();
    this.#holding(this.#seen.byteLength + this.#block.byteLength);
    this.#readBackIfSmall(tablePath);
  }

  /** Is the table in memory rather than in its file? (IN_MEMORY_TABLE_BYTES says when.) */
  get inMemory(): boolean {
    return this.#memory !== undefined;
  }

  /**
   * A row of this run: whether its key was in the baseline, with an equal fingerprint (low 32 bits).
   * The entry is marked seen, so a key taken again is 'absent' (added), as a second row of it is.
   */
  take(key: string, print: number): 'absent' | 'same' | 'changed' {
    if (!this.#sealed) throw new Error('the key map is not sealed');
    this.#hashKey(key);
    const h1 = this.#lanes[0]!;
    const h2 = this.#lanes[1]!;
    // A table in memory is probed where it lies; one in its file a block read at a time.
    const memory = this.#memory;
    const source = memory ?? this.#block;
    for (let slot = this.#start(h1); ; slot += BLOCK_SLOTS) {
      const base = memory ? slot * WORDS : 0;
      const slots = memory ? Math.max(0, Math.min(BLOCK_SLOTS, memory.length / WORDS - slot)) : this.#readBlock(slot);
      for (let i = base; i < base + slots * WORDS; i += WORDS) {
        const slotH1 = source[i]!;
        const slotH2 = source[i + 1]!;
        if (slotH1 > h1 || (slotH1 === 0 && slotH2 === 0)) return 'absent';
        if (slotH1 === h1 && slotH2 === h2) return this.#found(source[i + 3]!, source[i + 2] === print >>> 0);
      }
      if (slots < BLOCK_SLOTS) return 'absent';
    }
  }

  /** Whether the baseline row of this ordinal was taken by a row of this run (or repeats a later row's key). */
  isSeen(ordinal: number): boolean {
    return (this.#seen[ordinal >>> 3]! & (1 << (ordinal & 7))) !== 0;
  }

  /** Removes the scratch directory. Safe to call more than once, and before `seal`. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    try {
      if (this.#table >= 0) closeSync(this.#table);
    } finally {
      rmSync(this.#directory, { recursive: true, force: true });
    }
  }

  #hashKey(key: string): void {
    this.#hash(key, this.#lanes);
    // (0, 0) marks an empty slot: a real (0, 0) or (0, 1) becomes (0, 2), as in the in-memory map before.
    if (this.#lanes[0] === 0 && this.#lanes[1]! <= 1) this.#lanes[1] = 2;
  }

  /** The first slot of `h1`'s probe run: a multiply-shift, monotone in h1, so the table stays sorted. */
  #start(h1: number): number {
    return Math.floor((h1 * this.#capacity) / TWO_32);
  }

  #readBackIfSmall(tablePath: string): void {
    const size = scratch('read', () => fstatSync(this.#table).size);
    if (size > this.#inMemoryTableBytes) return;
    this.#memory = readAll(tablePath, size / SLOT_BYTES);
    scratch('removed', () => closeSync(this.#table));
    this.#table = -1;
    scratch('removed', () => unlinkSync(tablePath));
    this.#holding(this.#memory.byteLength + this.#seen.byteLength + this.#block.byteLength);
  }

  /** Reads the file's block of slots from `slot` into #block; how many whole slots it holds (fewer at the file's end). */
  #readBlock(slot: number): number {
    const bytes = new Uint8Array(this.#block.buffer);
    return Math.floor(scratch('read', () => readSync(this.#table, bytes, 0, bytes.byteLength, slot * SLOT_BYTES)) / SLOT_BYTES);
  }

  #found(ordinal: number, same: boolean): 'absent' | 'same' | 'changed' {
    if (this.isSeen(ordinal)) return 'absent';
    this.#mark(ordinal);
    return same ? 'same' : 'changed';
  }

  #mark(ordinal: number): void {
    this.#seen[ordinal >>> 3]! |= 1 << (ordinal & 7);
    this.#seenCount++;
  }

  #bucketPath(bucket: number): string {
    return join(this.#directory, `bucket-${bucket}`);
  }

  #flush(bucket: number): void {
    const records = this.#buffered[bucket]!;
    if (records === 0) return;
    const from = bucket * this.#bufferRecords * SLOT_BYTES;
    const bytes = new Uint8Array(this.#buffers.buffer, from, records * SLOT_BYTES);
    appendAll(this.#bucketPath(bucket), bytes);
    this.#flushed[bucket]! += records;
    this.#buffered[bucket] = 0;
  }

  /** One bucket's entries into the table, in h1 order; a key repeated in the baseline becomes one entry. */
  #sealBucket(bucket: number, writer: TableWriter): void {
    const count = this.#flushed[bucket]!;
    if (count === 0) return;
    const path = this.#bucketPath(bucket);
    const records = readAll(path, count);
    scratch('removed', () => unlinkSync(path));
    const order = sortByH1(records, count);
    this.#holding(records.byteLength + order.byteLength * 2 + writer.bytes + this.#seen.byteLength);
    for (let i = 0; i < count; ) {
      let end = i + 1;
      while (end < count && records[order[end]! * WORDS] === records[order[i]! * WORDS]) end++;
      if (end === i + 1) writer.place(this.#start(records[order[i]! * WORDS]!), records, order[i]! * WORDS);
      else this.#placeEqualH1(records, order.subarray(i, end), writer);
      i = end;
    }
  }

  /**
   * Records sharing an h1 (rare), in ordinal order. Records that share h2 too are one key repeated in
   * the baseline: as when a Map's entry is set twice, the entry keeps the last fingerprint, and the
   * first row's ordinal (the second pass reports that row, once, if the key is gone); the later rows
   * are marked seen so they are never reported.
   */
  #placeEqualH1(records: Uint32Array, run: Uint32Array, writer: TableWriter): void {
    const kept: number[] = [];
    for (const index of run) {
      const at = index * WORDS;
      const same = kept.find((k) => records[k + 1] === records[at + 1]);
      if (same === undefined) {
        kept.push(at);
        continue;
      }
      records[same + 2] = records[at + 2]!;
      this.#mark(records[at + 3]!);
    }
    for (const at of kept) writer.place(this.#start(records[at]!), records, at);
  }

  #holding(bytes: number): void {
    this.#peakBytes = Math.max(this.#peakBytes, bytes);
  }
}

/** P, a power of two: enough buckets that each holds about BUCKET_RECORDS records. */
function bucketsFor(expectedRows: number): number {
  let buckets = 1;
  while (buckets < MAX_BUCKETS && buckets * BUCKET_RECORDS < expectedRows) buckets *= 2;
  return buckets;
}

/**
 * Writes the table's slots in order, a window of WINDOW_SLOTS at a time. Empty slots between
 * windows are never written: the file is sparse there, and reads back as zeros (empty).
 */
class TableWriter {
  readonly #window = new Uint32Array(WINDOW_SLOTS * WORDS);
  #first = 0;
  /** Slots of the window in use, up to its last placed entry. */
  #used = 0;
  #last = -1;

  constructor(private readonly fd: number) {}

  get bytes(): number {
    return this.#window.byteLength;
  }

  /** The next entry in h1 order, at its start slot or just after the previous entry. */
  place(start: number, records: Uint32Array, at: number): void {
    const slot = Math.max(start, this.#last + 1);
    if (slot >= this.#first + WINDOW_SLOTS) {
      this.#write();
      this.#first = slot;
    }
    const to = (slot - this.#first) * WORDS;
    this.#window.set(records.subarray(at, at + WORDS), to);
    this.#used = slot - this.#first + 1;
    this.#last = slot;
  }

  end(): void {
    this.#write();
  }

  #write(): void {
    if (this.#used === 0) return;
    const bytes = new Uint8Array(this.#window.buffer, 0, this.#used * SLOT_BYTES);
    writeAll(this.fd, bytes, this.#first * SLOT_BYTES);
    this.#window.fill(0, 0, this.#used * WORDS);
    this.#used = 0;
  }
}

/**
 * The records' indices in h1 order, ties in input (ordinal) order: a stable LSD radix sort, a byte
 * at a time, linear in the bucket's size whatever it is.
 */
export function sortByH1(records: Uint32Array, count: number): Uint32Array {
  let from = new Uint32Array(count);
  let to = new Uint32Array(count);
  for (let i = 0; i < count; i++) from[i] = i;
  const counts = new Uint32Array(257);
  for (let shift = 0; shift < 32; shift += 8) {
    counts.fill(0);
    for (let i = 0; i < count; i++) counts[((records[from[i]! * WORDS]! >>> shift) & 255) + 1]!++;
    for (let b = 1; b < 257; b++) counts[b]! += counts[b - 1]!;
    for (let i = 0; i < count; i++) to[counts[(records[from[i]! * WORDS]! >>> shift) & 255]!++] = from[i]!;
    [from, to] = [to, from];
  }
  return from;
}

function appendAll(path: PathLike, bytes: Uint8Array): void {
  const fd = scratch('made', () => openSync(path, 'a'));
  try {
    writeAll(fd, bytes, null);
  } finally {
    closeSync(fd);
  }
}

function writeAll(fd: number, bytes: Uint8Array, position: number | null): void {
  for (let done = 0; done < bytes.byteLength; ) {
    const at = position === null ? null : position + done;
    done += scratch('written', () => writeSync(fd, bytes, done, bytes.byteLength - done, at));
  }
}

function readAll(path: PathLike, records: number): Uint32Array {
  const out = new Uint32Array(records * WORDS);
  const bytes = new Uint8Array(out.buffer);
  const fd = scratch('read', () => openSync(path, 'r'));
  try {
    for (let done = 0; done < bytes.byteLength; ) {
      const read = scratch('read', () => readSync(fd, bytes, done, bytes.byteLength - done, done));
      if (read === 0) throw new ScratchFileError(`the comparison's scratch file ended early (${path.toString()})`);
      done += read;
    }
  } finally {
    closeSync(fd);
  }
  return out;
}
