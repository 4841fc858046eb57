import { describe, expect, it } from 'vitest';
import { LedgerRunLinkLedger, MemoryVersionedStore, RevocationCache, type VersionedStore } from '../../../shared/jobs/run-link-ledger';

const now = new Date('2026-11-23T06:00:00Z');
const HOUR = 3_600_000;

/** The contract of the run-link ledger on one versioned store. */
function contract(name: string, store: () => Promise<VersionedStore> | VersionedStore) {
  describe(`run-link ledger on ${name}`, () => {
    it('lets exactly `limit` of 20 concurrent starts of one link through, per window', async () => {
      const ledger = new LedgerRunLinkLedger(await store());
      const results = await Promise.all(Array.from({ length: 20 }, () => ledger.takeStart('link-a', now, { limit: 6, windowMs: HOUR })));
      expect(results.filter(Boolean)).toHaveLength(6);
      expect(await ledger.takeStart('link-b', now, { limit: 6, windowMs: HOUR })).toBe(true);
      expect(await ledger.takeStart('link-a', new Date(now.getTime() + HOUR), { limit: 6, windowMs: HOUR })).toBe(true);
    });

    it('moves a report\'s slot for exactly one of 10 concurrent swaps from the same state', async () => {
      const ledger = new LedgerRunLinkLedger(await store());
      const wins = await Promise.all(Array.from({ length: 10 }, (_, i) => ledger.swapRun('acme', undefined, `export-${i}`)));
      expect(wins.filter(Boolean)).toHaveLength(1);
      const holder = await ledger.currentRun('acme');
      expect(holder).toBe(`export-${wins.indexOf(true)}`);
      expect(await ledger.swapRun('acme', 'export-other', 'export-x')).toBe(false);
      expect(await ledger.swapRun('acme', holder, 'export-next')).toBe(true);
      expect(await ledger.currentRun('acme')).toBe('export-next');
      expect(await ledger.currentRun('other')).toBeUndefined();
    });

    it('revokes for good, idempotently, per link', async () => {
      const ledger = new LedgerRunLinkLedger(await store());
      expect(await ledger.isRevoked('link-a')).toBe(false);
      await ledger.revoke('link-a', now);
      await ledger.revoke('link-a', new Date(now.getTime() + HOUR));
      expect(await ledger.isRevoked('link-a')).toBe(true);
      expect(await ledger.isRevoked('link-b')).toBe(false);
    });
  });
}

contract('the in-memory store', () => new MemoryVersionedStore());

describe('revocation cache', () => {
  it('asks the ledger once a minute per link', async () => {
    const store = new MemoryVersionedStore();
    const ledger = new LedgerRunLinkLedger(store);
    let clock = now.getTime();
    const cache = new RevocationCache(ledger, () => new Date(clock));
    expect(await cache.isRevoked('link-a')).toBe(false);
    await ledger.revoke('link-a', now);
    const reads = store.reads;
    expect(await cache.isRevoked('link-a')).toBe(false);
    expect(store.reads).toBe(reads);
    clock += 60_000;
    expect(await cache.isRevoked('link-a')).toBe(true);
    expect(store.reads).toBe(reads + 1);
  });
});
