import { afterAll, describe, expect, it } from 'vitest';
import { LocalLedger } from '../../../../shared/ledger/local-ledger';
import { SuppressionList } from '../../../../shared/messages/recipients/suppressions';
import { HELD_MS, ownersNoticeClaim } from '../../../../shared/messages/recipients/suppression-notice-claim';
import { makeTempDir } from '../../../support/temp-dir';

/**
 * The suppression list as one ledger entry per report and address: what earlier releases left (one
 * entry per report) still counts and is lifted from, a lift can be limited to a reason (the reader's
 * link lifts an unsubscribe only), and the owners' notice of a burst is claimed by one at a time.
 */
const temp = makeTempDir('suppressions');
afterAll(() => temp.remove());
const T0 = new Date('2026-11-23T06:00:00Z');

describe('the suppression list', () => {
  it('reads the per-report entry of earlier releases, keeps it, and lifts from it', async () => {
    const ledger = new LocalLedger(temp.path('legacy'));
    await ledger.put('suppress/weekly', { addresses: { 'old@example.test': { since: T0.toISOString(), reason: 'bounced' } } }, 0);
    const list = new SuppressionList(ledger);
    expect(await list.of('weekly', ['Old@Example.test', 'new@example.test'])).toEqual({ 'old@example.test': { since: T0.toISOString(), reason: 'bounced' } });
    expect(await list.suppress('weekly', 'old@example.test', 'unsubscribed', T0)).toBe(false);
    expect(await list.lift('weekly', 'old@example.test', T0, 'unsubscribed')).toBe('kept');
    expect(await list.lift('weekly', 'old@example.test', T0)).toBe('lifted');
    expect(await list.of('weekly', ['old@example.test'])).toEqual({});
    expect((await ledger.get('suppress/weekly'))?.value).toEqual({ addresses: {} });
    // Suppressed again after the lift: an entry of its own.
    expect(await list.suppress('weekly', 'old@example.test', 'complained', T0)).toBe(true);
    expect(await list.untold('weekly', ['old@example.test'])).toEqual({ 'old@example.test': { since: T0.toISOString(), reason: 'complained' } });
    await list.told('weekly', ['old@example.test'], T0);
    expect(await list.untold('weekly', ['old@example.test'])).toEqual({});
  });

  it('lets one invocation at a time hold the owners notice claim, and takes over one left behind', async () => {
    const ledger = new LocalLedger(temp.path('claim'));
    const claim = ownersNoticeClaim(ledger, 'weekly');
    const first = await claim.take(T0);
    expect(first).toBeDefined();
    expect(await claim.take(new Date(T0.getTime() + HELD_MS - 1))).toBeUndefined();
    await first!.release(T0);
    const second = await claim.take(T0);
    expect(second).toBeDefined();
    // Its holder died: after HELD_MS another takes it, and the dead holder's release changes nothing.
    const third = await claim.take(new Date(T0.getTime() + HELD_MS));
    expect(third).toBeDefined();
    await second!.release(T0);
    expect(await claim.take(new Date(T0.getTime() + HELD_MS + 1))).toBeUndefined();
  });
});
