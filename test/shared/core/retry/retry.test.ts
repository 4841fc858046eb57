import { describe, expect, it } from 'vitest';
import { retrying, type Tried } from '../../../../shared/core/retry/retry';

/** An attempt that fails `failures` times (asking to wait 100 ms each) and then answers. */
function flaky(failures: number, seen: Array<[number, boolean]>) {
  return (n: number, last: boolean): Promise<Tried<string>> => {
    seen.push([n, last]);
    if (n > failures) return Promise.resolve({ value: `answer ${n}` });
    if (last) return Promise.reject(new Error(`gave up after ${n}`));
    return Promise.resolve({ again: { delayMs: 100 * n, late: () => new Error(`late after ${n}`) } });
  };
}

describe('retrying', () => {
  it('sleeps the asked wait between attempts and returns the first answer', async () => {
    const seen: Array<[number, boolean]> = [];
    const waits: number[] = [];
    const sleep = (ms: number) => (waits.push(ms), Promise.resolve());
    const value = await retrying(flaky(2, seen), { attempts: 5, sleep, remainingMs: () => Number.POSITIVE_INFINITY });
    expect(value).toBe('answer 3');
    expect(seen).toEqual([[1, false], [2, false], [3, false]]);
    expect(waits).toEqual([100, 200]);
  });

  it('tells the final attempt it is the last, so its failure ends the call', async () => {
    const seen: Array<[number, boolean]> = [];
    const sleep = () => Promise.resolve();
    await expect(retrying(flaky(9, seen), { attempts: 3, sleep, remainingMs: () => Number.POSITIVE_INFINITY })).rejects.toThrow('gave up after 3');
    expect(seen).toEqual([[1, false], [2, false], [3, true]]);
  });

  it('starts no wait that would end at or past the deadline, and skips the beforeWait hook then', async () => {
    const waits: number[] = [];
    const sleep = (ms: number) => (waits.push(ms), Promise.resolve());
    let hooked = 0;
    const attempt = (n: number): Promise<Tried<string>> =>
      Promise.resolve({ again: { delayMs: 100 * n, late: () => new Error(`late after ${n}`), beforeWait: () => (hooked += 1) } });
    // 250 ms left: the 100 ms wait fits, the 200 ms one does not once 100 ms have passed.
    let left = 250;
    const timed = (ms: number) => ((left -= ms), sleep(ms));
    await expect(retrying(attempt, { attempts: 5, sleep: timed, remainingMs: () => left })).rejects.toThrow('late after 2');
    expect(waits).toEqual([100]);
    expect(hooked).toBe(1);
  });
});
