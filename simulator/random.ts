/**
 * Small deterministic pseudo-random toolkit for the simulator (no dependency).
 *
 * Every generated record draws from an {@link Rng} seeded by {@link hashSeed} of the tenant seed and
 * the record's position, so any single record (for example board item 73,512 of board 2) can be
 * generated on its own, in any order, and always comes out byte-identical.
 */

/** mulberry32: a tiny, fast 32-bit PRNG. Returns floats in [0, 1). */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function mix(h: number, word: number): number {
  let x = Math.imul(h ^ word, 0x01000193);
  x ^= x >>> 13;
  x = Math.imul(x, 0x5bd1e995);
  return x ^ (x >>> 15);
}

/** Mixes integers into one 32-bit seed (order-sensitive). */
export function hashSeed(...parts: number[]): number {
  let h = 0x811c9dc5;
  for (const part of parts) {
    // Both 32-bit halves, so that values beyond 32 bits still contribute.
    h = mix(h, part >>> 0);
    h = mix(h, Math.floor(part / 4294967296) >>> 0);
  }
  return h >>> 0;
}

/** A seeded random source with the few helpers the generators need. */
export class Rng {
  private readonly nextFloat: () => number;

  constructor(seed: number) {
    this.nextFloat = mulberry32(seed);
  }

  /** Creates an Rng for one record: `Rng.for(seed, 3, 17)`. */
  static for(...parts: number[]): Rng {
    return new Rng(hashSeed(...parts));
  }

  /** Float in [0, 1). */
  next(): number {
    return this.nextFloat();
  }

  /** Integer in [min, max] (both inclusive). */
  int(min: number, max: number): number {
    return min + Math.floor(this.nextFloat() * (max - min + 1));
  }

  /** True with probability p. */
  chance(p: number): boolean {
    return this.nextFloat() < p;
  }

  /** One element of a non-empty array. */
  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('Rng.pick on an empty array');
    return items[Math.floor(this.nextFloat() * items.length)] as T;
  }

  /** `count` distinct elements (or all of them when fewer), in random order. */
  sample<T>(items: readonly T[], count: number): T[] {
    const copy = items.slice();
    const n = Math.min(count, copy.length);
    for (let i = 0; i < n; i++) {
      const j = i + Math.floor(this.nextFloat() * (copy.length - i));
      const tmp = copy[i] as T;
      copy[i] = copy[j] as T;
      copy[j] = tmp;
    }
    return copy.slice(0, n);
  }

  /** Lower-case hexadecimal string of the given length. */
  hex(length: number): string {
    let out = '';
    while (out.length < length) out += Math.floor(this.nextFloat() * 4294967296).toString(16).padStart(8, '0');
    return out.slice(0, length);
  }
}
