import { describe, expect, it } from 'vitest';
import { interleaved, spread, spreadText } from '../../../bench/lib/interleave';
import { seconds } from '../../../bench/lib/common';

describe('interleaved benchmark runs', () => {
  it('alternates the order of the variants round by round (A B, B A, A B), and keeps each variant\'s results apart', async () => {
    const calls: string[] = [];
    const variant = (label: string) => ({ label, run: (round: number) => { calls.push(`${label}${round}`); return Promise.resolve(`${label}:${round}`); } });
    const results = await interleaved([variant('A'), variant('B'), variant('C')], 3);
    expect(calls).toEqual(['A0', 'B0', 'C0', 'C1', 'B1', 'A1', 'A2', 'B2', 'C2']);
    expect(results.get('A')).toEqual(['A:0', 'A:1', 'A:2']);
    expect(results.get('C')).toEqual(['C:0', 'C:1', 'C:2']);
  });

  it('gives each variant the same count of first places, so going first costs them alike', async () => {
    const firsts: string[] = [];
    let previous = -1;
    const variant = (label: string) => ({ label, run: (round: number) => { if (round !== previous) firsts.push(label); previous = round; return Promise.resolve(0); } });
    await interleaved([variant('A'), variant('B')], 4);
    expect(firsts).toEqual(['A', 'B', 'A', 'B']);
  });

  it('summarises a sample by its median and range', () => {
    expect(spread([4.6, 4.3, 4.47])).toEqual({ median: 4.47, min: 4.3, max: 4.6, n: 3 });
    expect(spread([1, 2, 3, 10])).toMatchObject({ median: 2.5, min: 1, max: 10 });
    expect(spread([]).n).toBe(0);
    expect(spreadText([4470, 4300, 4610], seconds)).toBe('4.47 s (median of 3, 4.30–4.61 s)');
    expect(spreadText([4470], seconds)).toBe('4.47 s');
  });
});
