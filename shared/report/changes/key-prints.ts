/**
 * The comparison's key map: the baseline's row keys with their fingerprints, in typed arrays rather
 * than a Map of strings. A Map held each key as a string plus an entry and a boxed 53-bit number
 * (~100 bytes a row, 200 MB at 2 million rows); this holds 17 bytes a slot at most half full,
 * allocated once per doubling, and no object per row, so the garbage collector never walks it.
 *
 * Keys are kept as a 64-bit hash, not as text. Two keys of one table with the same hash would be
 * read as one row (one addition and one removal not reported): among 2 million keys that happens
 * with a probability of about 1 in 10 million per run, below the fingerprint's own chance of hiding
 * a change, and it can only hide a change, never invent one.
 */
const EMPTY = 0;
const FULL = 1;
const DELETED = 2;
const MIN_CAPACITY = 1024;

export class KeyPrints {
  #capacity = MIN_CAPACITY;
  #hashes = new Uint32Array(MIN_CAPACITY * 2);
  #prints = new Float64Array(MIN_CAPACITY);
  #state = new Uint8Array(MIN_CAPACITY);
  #size = 0;
  /** Slots FULL or DELETED: what the probe sequences run over. */
  #used = 0;
  // The last key hashed, split in two 32-bit halves (hashKey writes them; no allocation per call).
  #h1 = 0;
  #h2 = 0;

  get size(): number {
    return this.#size;
  }

  set(key: string, print: number): void {
    if ((this.#used + 1) * 2 > this.#capacity) this.#grow();
    this.#hash(key);
    let slot = this.#find();
    if (slot >= 0) {
      this.#prints[slot] = print;
      return;
    }
    slot = this.#free();
    if (this.#state[slot] === EMPTY) this.#used++;
    this.#put(slot, this.#h1, this.#h2, print);
    this.#size++;
  }

  get(key: string): number | undefined {
    this.#hash(key);
    const slot = this.#find();
    return slot < 0 ? undefined : this.#prints[slot];
  }

  has(key: string): boolean {
    this.#hash(key);
    return this.#find() >= 0;
  }

  delete(key: string): boolean {
    this.#hash(key);
    const slot = this.#find();
    if (slot < 0) return false;
    this.#state[slot] = DELETED;
    this.#size--;
    return true;
  }

  /** Two independent 32-bit hashes of the key's UTF-16 units (cyrb53's mixing, other seeds). */
  #hash(key: string): void {
    let h1 = 0x9e3779b9;
    let h2 = 0x85ebca6b;
    for (let i = 0; i < key.length; i++) {
      const ch = key.charCodeAt(i);
      h1 = Math.imul(h1 ^ ch, 2654435761);
      h2 = Math.imul(h2 ^ ch, 1597334677);
    }
    h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
    h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
    this.#h1 = h1 >>> 0;
    this.#h2 = h2 >>> 0;
  }

  /** The slot holding the last hashed key, or -1. Linear probing from the first hash. */
  #find(): number {
    const mask = this.#capacity - 1;
    for (let slot = this.#h1 & mask; ; slot = (slot + 1) & mask) {
      const state = this.#state[slot];
      if (state === EMPTY) return -1;
      if (state === FULL && this.#hashes[slot * 2] === this.#h1 && this.#hashes[slot * 2 + 1] === this.#h2) return slot;
    }
  }

  /** The first EMPTY or DELETED slot on the last hashed key's probe sequence. */
  #free(): number {
    const mask = this.#capacity - 1;
    let slot = this.#h1 & mask;
    while (this.#state[slot] === FULL) slot = (slot + 1) & mask;
    return slot;
  }

  #put(slot: number, h1: number, h2: number, print: number): void {
    this.#hashes[slot * 2] = h1;
    this.#hashes[slot * 2 + 1] = h2;
    this.#prints[slot] = print;
    this.#state[slot] = FULL;
  }

  /** Doubles the table (or rebuilds it in place of its tombstones) and puts every live entry back. */
  #grow(): void {
    const hashes = this.#hashes;
    const prints = this.#prints;
    const state = this.#state;
    const old = this.#capacity;
    this.#capacity = this.#size * 4 > old ? old * 2 : old;
    this.#hashes = new Uint32Array(this.#capacity * 2);
    this.#prints = new Float64Array(this.#capacity);
    this.#state = new Uint8Array(this.#capacity);
    this.#used = this.#size;
    const mask = this.#capacity - 1;
    for (let from = 0; from < old; from++) {
      if (state[from] !== FULL) continue;
      const h1 = hashes[from * 2]!;
      let slot = h1 & mask;
      while (this.#state[slot] === FULL) slot = (slot + 1) & mask;
      this.#put(slot, h1, hashes[from * 2 + 1]!, prints[from]!);
    }
  }
}
