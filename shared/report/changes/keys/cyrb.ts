/**
 * cyrb53's two 32-bit lanes of `text` (its UTF-16 units), mixed from the given seeds, written to
 * `out` so a caller hashing millions of keys allocates nothing per call. The fingerprint (specs.ts)
 * and the key map's 64-bit key hash (spilled-key-prints.ts) are this with different seeds.
 */
export function cyrbLanes(text: string, seed1: number, seed2: number, out: Uint32Array): void {
  let h1 = seed1;
  let h2 = seed2;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  out[0] = h1;
  out[1] = h2;
}
