import { describe, expect, it } from 'vitest';
import { KeyPrints } from '../../../../shared/report/changes/key-prints';
import { mulberry32 } from '../../../../simulator/random';

describe('the comparison key map', () => {
  it('answers like a Map through 300,000 random sets, lookups and deletions, growth and reused slots included', () => {
    const random = mulberry32(22);
    const map = new Map<string, number>();
    const prints = new KeyPrints();
    // Keys as the board-items table makes them (board, unit separator, item id), some non-ASCII.
    const keyOf = (n: number) => (n % 7 === 0 ? `Zürich·${n}` : `10${n % 50}\u001f${n}`);
    for (let op = 0; op < 300_000; op++) {
      const key = keyOf(Math.floor(random() * 60_000));
      const roll = random();
      if (roll < 0.5) {
        const print = Math.floor(random() * 2 ** 53);
        map.set(key, print);
        prints.set(key, print);
      } else if (roll < 0.75) {
        expect(prints.delete(key)).toBe(map.delete(key));
      } else {
        const known = map.get(key);
        expect(prints.compare(key, known ?? 0)).toBe(known === undefined ? 'absent' : 'same');
        if (known !== undefined) expect(prints.compare(key, known + 1)).toBe('changed');
        expect(prints.has(key)).toBe(map.has(key));
      }
    }
    expect(prints.size).toBe(map.size);
    for (const [key, print] of map) expect(prints.compare(key, print)).toBe('same');
    for (let n = 60_000; n < 61_000; n++) expect(prints.has(keyOf(n))).toBe(false);
  });

  it.each([
    ['sized for them', 2_000_000],
    ['growing from nothing', 0],
  ])('keeps every one of 2,000,000 keys apart (%s), and empties when each is deleted', (_, expected) => {
    const prints = new KeyPrints(expected);
    // Fingerprints as cyrb53 makes them: 53 bits.
    const printOf = (i: number) => i * 4_503_599_627 + 7;
    for (let i = 0; i < 2_000_000; i++) prints.set(`1003\u001f${i}`, printOf(i));
    expect(prints.size).toBe(2_000_000);
    let wrong = 0;
    for (let i = 0; i < 2_000_000; i++) if (prints.compare(`1003\u001f${i}`, printOf(i)) !== 'same' || !prints.delete(`1003\u001f${i}`)) wrong++;
    expect(wrong).toBe(0);
    expect(prints.size).toBe(0);
    expect(prints.compare('1003\u001f0', printOf(0))).toBe('absent');
  });
});
