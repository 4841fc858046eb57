import { describe, expect, it } from 'vitest';
import { ledgerKey } from '../../../shared/ledger/ledger';
import { ledgerRatePacer, paceRecord, type RatePacer } from '../../../shared/ledger/rate-pacer';
import { bothLedgers } from '../../support/ledger-adapters';

/**
 * The pace a fleet's runs share through the ledger, over both adapters: many pacers (one per run, as
 * each run makes its own) reserving at once on one key never get two moments closer than the rate
 * allows, whoever wins each compare-and-swap; a hold-off reaches every pacer of the key.
 */
const both = bothLedgers('rate-pacer-');
const { adapters } = both;
let n = 0;
const T0 = Date.parse('2026-11-30T07:00:00Z');
const unique = () => ledgerKey('pace', 'planning', `https://tenant-${++n}.example.com`, 'acme');
const noPause = (): Promise<void> => Promise.resolve();

/** Every moment `pacers` hand out when each is asked `each` times, all at once. */
async function reserveAll(pacers: readonly RatePacer[], each: number): Promise<number[]> {
  const runs = pacers.map(async (pacer) => {
    const moments: number[] = [];
    for (let i = 0; i < each; i++) moments.push(await pacer.reserve());
    return moments;
  });
  return (await Promise.all(runs)).flat().sort((a, b) => a - b);
}

/** The most moments any one second (from any moment on) holds. */
function busiestSecond(moments: readonly number[]): number {
  let most = 0;
  for (let i = 0, j = 0; i < moments.length; i++) {
    while (moments[i]! - moments[j]! >= 1000) j++;
    most = Math.max(most, i - j + 1);
  }
  return most;
}

describe.each(adapters)('a pace shared through the ledger (%s)', (_name, makeLedger) => {
  it('keeps the concurrent runs of one tenant together under its rate, every request given a moment', async () => {
    const ledger = makeLedger();
    const key = unique();
    const pacers = Array.from({ length: 6 }, () => ledgerRatePacer(ledger, key, { ratePerSecond: 20, now: () => T0, pause: noPause }));
    const moments = await reserveAll(pacers, 15);
    expect(moments).toHaveLength(90);
    expect(new Set(moments).size).toBe(90);
    expect(busiestSecond(moments)).toBeLessThanOrEqual(20);
    // Nobody waits longer than the queue needs: 90 requests at 20 a second fit in 4.5 s, plus at most
    // one unused moment per run of its last block (batch 2 at 20 a second).
    expect(moments[0]).toBe(T0);
    expect(moments.at(-1)! - T0).toBeLessThan((90 + 6) * 50);
  });

  it('reserves a block per ledger write, so the writes are a fraction of the requests', async () => {
    const ledger = makeLedger();
    const key = unique();
    const pacer = ledgerRatePacer(ledger, key, { ratePerSecond: 50, batch: 5, now: () => T0, pause: noPause });
    await reserveAll([pacer], 25);
    expect((await paceRecord(ledger, key).read()).version).toBe(5);
  });

  it('gives an idle tenant its moment at once, and a moment already past is not waited for', async () => {
    const ledger = makeLedger();
    const key = unique();
    let now = T0;
    const pacer = ledgerRatePacer(ledger, key, { ratePerSecond: 10, batch: 1, now: () => now, pause: noPause });
    expect(await pacer.reserve()).toBe(T0);
    now = T0 + 60_000;
    expect(await pacer.reserve()).toBe(T0 + 60_000);
  });

  it('holds every pacer of the key off after a throttle, not only the one that was told', async () => {
    const ledger = makeLedger();
    const key = unique();
    const told = ledgerRatePacer(ledger, key, { ratePerSecond: 10, batch: 1, now: () => T0, pause: noPause });
    const other = ledgerRatePacer(ledger, key, { ratePerSecond: 10, batch: 1, now: () => T0, pause: noPause });
    await told.reserve();
    await told.holdOff(T0 + 5000);
    expect(await other.reserve()).toBe(T0 + 5000);
    expect(await told.reserve()).toBe(T0 + 5100);
  });
});
