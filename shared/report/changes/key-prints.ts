/**
 * The comparison's key map: the baseline's row keys with their fingerprints, in typed arrays rather
 * than a Map of strings. A Map held each key as a string plus an entry and a boxed 53-bit number
 * (~100 bytes a row, 200 MB at 2 million rows); this holds 12 bytes a slot at most three quarters
 * full (16 bytes a row, 32 MB at 2 million), sized once from the baseline's row count, and no object
 * per row, so the garbage collector never walks it.
 *
 * Keys are kept as a 64-bit hash, not as text. Two keys of one table with the same hash would be
 * read as one row (one addition and one removal not reported): among 2 million keys that happens
 * with a probability of about 1 in 10 million per run. Fingerprints are compared on their low 32
 * bits: a change hides behind an equal half with a probability of 1 in 4 billion per changed row.
 * Either can only hide a change, never invent one.
 */
import { cyrbLanes } from './cyrb';

const MIN_CAPACITY = 1024;
/** Live and deleted slots at most this share of the table: linear probing stays short. */
const MAX_LOAD = 0.75;
// A slot's key hash (h1, h2): (0, 0) is an empty slot, (0, 1) a deleted one; a real hash that is
// either becomes (0, 2).
const DELETED_H2 = 1;

export class KeyPrints {
  #capacity: number;
  #hashes: Uint32Array;
  #prints: Uint32Array;
  #size = 0;
  /** Slots live or deleted: what the probe sequences run over. */
  #used = 0;
  // The last key hashed, in two 32-bit halves (no allocation per call).
  #h1 = 0;
  #h2 = 0;
  readonly #lanes = new Uint32Array(2);

  /** `expected`: how many keys will be set (the baseline's rows); more are taken, at the cost of a regrowth. */
  constructor(expected = 0) {
    this.#capacity = Math.max(MIN_CAPACITY, Math.ceil(expected / MAX_LOAD) + 1);
    this.#hashes = new Uint32Array(this.#capacity * 2);
    this.#prints = new Uint32Array(this.#capacity);
  }

  get size(): number {
    return this.#size;
  }

  set(key: string, print: number): void {
    if (this.#used + 1 > this.#capacity * MAX_LOAD) this.#grow();
    this.#hash(key);
    const slot = this.#find();
    if (slot >= 0) {
      this.#prints[slot] = print >>> 0;
      return;
    }
    const free = this.#free();
    if (this.#hashes[free * 2 + 1] !== DELETED_H2 || this.#hashes[free * 2] !== 0) this.#used++;
    this.#put(free, this.#h1, this.#h2, print);
    this.#size++;
  }

  /** Whether `key` was set, and with a fingerprint equal to `print` (compared on its low 32 bits). */
  compare(key: string, print: number): 'absent' | 'same' | 'changed' {
    this.#hash(key);
    const slot = this.#find();
    if (slot < 0) return 'absent';
    return this.#prints[slot] === print >>> 0 ? 'same' : 'changed';
  }

  has(key: string): boolean {
    this.#hash(key);
    return this.#find() >= 0;
  }

  delete(key: string): boolean {
    this.#hash(key);
    const slot = this.#find();
    if (slot < 0) return false;
    this.#hashes[slot * 2] = 0;
    this.#hashes[slot * 2 + 1] = DELETED_H2;
    this.#size--;
    return true;
  }

  /** Two independent 32-bit hashes of the key (cyrb53's lanes, other seeds than the fingerprint's). */
  #hash(key: string): void {
    cyrbLanes(key, 0x9e3779b9, 0x85ebca6b, this.#lanes);
    const h1 = this.#lanes[0]!;
    const h2 = this.#lanes[1]!;
    this.#h1 = h1;
    this.#h2 = h1 === 0 && h2 <= DELETED_H2 ? 2 : h2;
  }

  /** The first slot of `h1`'s probe sequence (a multiply-shift: any capacity, no modulo). */
  #start(h1: number): number {
    return Math.floor((h1 * this.#capacity) / 4294967296);
  }

  /** The slot holding the last hashed key, or -1. Linear probing. */
  #find(): number {
    const hashes = this.#hashes;
    for (let slot = this.#start(this.#h1); ; slot = slot + 1 === this.#capacity ? 0 : slot + 1) {
      const h1 = hashes[slot * 2]!;
      const h2 = hashes[slot * 2 + 1]!;
      if (h1 === 0 && h2 === 0) return -1;
      if (h1 === this.#h1 && h2 === this.#h2) return slot;
    }
  }

  /** The first empty or deleted slot on the last hashed key's probe sequence. */
  #free(): number {
    const hashes = this.#hashes;
    let slot = this.#start(this.#h1);
    while (!(hashes[slot * 2] === 0 && hashes[slot * 2 + 1]! <= DELETED_H2)) slot = slot + 1 === this.#capacity ? 0 : slot + 1;
    return slot;
  }

  #put(slot: number, h1: number, h2: number, print: number): void {
    this.#hashes[slot * 2] = h1;
    this.#hashes[slot * 2 + 1] = h2;
    this.#prints[slot] = print >>> 0;
  }

  /** Doubles the table (or rebuilds it without its deleted slots) and puts every live entry back. */
  #grow(): void {
    const hashes = this.#hashes;
    const prints = this.#prints;
    const old = this.#capacity;
    this.#capacity = this.#size * 2 > old * MAX_LOAD ? old * 2 : old;
    this.#hashes = new Uint32Array(this.#capacity * 2);
    this.#prints = new Uint32Array(this.#capacity);
    this.#used = this.#size;
    for (let from = 0; from < old; from++) {
      const h1 = hashes[from * 2]!;
      const h2 = hashes[from * 2 + 1]!;
      if (h1 === 0 && h2 <= DELETED_H2) continue;
      let slot = this.#start(h1);
      while (this.#hashes[slot * 2] !== 0 || this.#hashes[slot * 2 + 1] !== 0) slot = slot + 1 === this.#capacity ? 0 : slot + 1;
      this.#put(slot, h1, h2, prints[from]!);
    }
  }
}
