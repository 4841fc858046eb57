import { afterAll, describe, expect, it } from 'vitest';
import { RunInProgressError } from '../../../../shared/core/errors';
import { silentLog } from '../../../../shared/core/logger';
import { LocalLedger } from '../../../../shared/ledger/local-ledger';
import { DEFAULT_LEASE_MS, LEASE_RENEW_MS } from '../../../../shared/report/run/run-entry';
import { RunLease } from '../../../../shared/report/run/run-lease';
import { makeTempDir } from '../../../support/temp-dir';

/**
 * The window between a killed attempt's last renewal and its lease's lapse: a retry that comes in it
 * (Lambda's first async retry comes about a minute after the failure) waits for the lapse and takes
 * the run over; a retry while the holder still renews stops as "in progress".
 */
const temp = makeTempDir('run-lease');
afterAll(() => temp.remove());
const T0 = new Date('2026-11-23T06:00:00Z');

describe('a retry that finds the run leased', () => {
  it('waits for the lease of a holder that stopped renewing to lapse, then takes the run over', async () => {
    const ledger = new LocalLedger(temp.path('silent'));
    const first = await RunLease.acquire({ ledger, clock: () => T0, log: silentLog, leaseMs: DEFAULT_LEASE_MS }, { report: 'weekly', runId: 'r1' });
    expect(first.kind).toBe('acquired');
    // The holder is killed: no renewal after T0. Its retry comes 59 s later.
    let now = new Date(T0.getTime() + 59_000);
    const waited: number[] = [];
    const wait = (ms: number) => {
      waited.push(ms);
      now = new Date(now.getTime() + ms);
      return Promise.resolve();
    };
    const retry = await RunLease.acquire({ ledger, clock: () => now, log: silentLog, leaseMs: DEFAULT_LEASE_MS, leaseWait: wait }, { report: 'weekly', runId: 'r1' });
    expect(waited).toEqual([1_001]);
    expect(retry).toMatchObject({ kind: 'acquired', takenOver: true });
    if (retry.kind === 'acquired') expect(retry.lease.generation).toBe(2);
  });

  it('stops as "in progress" while the holder still renews', async () => {
    const ledger = new LocalLedger(temp.path('live'));
    await RunLease.acquire({ ledger, clock: () => T0, log: silentLog, leaseMs: DEFAULT_LEASE_MS }, { report: 'weekly', runId: 'r1' });
    const soon = new Date(T0.getTime() + LEASE_RENEW_MS + 1_000);
    const wait = () => Promise.reject(new Error('a live holder is not waited for'));
    await expect(RunLease.acquire({ ledger, clock: () => soon, log: silentLog, leaseMs: DEFAULT_LEASE_MS, leaseWait: wait }, { report: 'weekly', runId: 'r1' })).rejects.toBeInstanceOf(RunInProgressError);
  });
});
