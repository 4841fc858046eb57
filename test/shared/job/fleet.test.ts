import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalLedger } from '../../../shared/ledger/local-ledger';
import { asyncInvocations, runFleet } from '../../support/fleet';

/**
 * A small fleet at one instant (8 reports of 2 tenants, each mailing 2 readers) through a concurrency
 * cap of 3, tenants limited to 20 requests a second and SES to 14 messages: the crowded minute is
 * late, never lost; nobody is mailed twice; no owner hears of a throttle.
 */
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'fleet-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('a fleet scheduled at one instant', () => {
  it('delivers every report exactly once to every reader, through the cap, the tenant rates and the send rate', async () => {
    const figures = await runFleet({
      reports: 8,
      tenants: 2,
      readers: 2,
      concurrency: 3,
      tenantRate: 20,
      sendRate: 14,
      dir: join(dir, 'runs'),
      ledger: new LocalLedger(join(dir, 'runs', '.ledger')),
    });
    expect(figures).toMatchObject({ reports: 8, deliveredOnce: 8, lost: 0, doubled: 0, readersMailedOnce: 16, ownerNotices: 0, failedEvents: 0 });
    // Paced, the tenants and SES rarely refuse: at most 5 % of what was asked.
    expect(figures.planning429).toBeLessThanOrEqual(figures.planningRequests * 0.05);
    expect(figures.throttles).toBeLessThanOrEqual(figures.sends * 0.05);
  });

  it('queues what the cap cannot take and retries a function error twice, as Lambda\'s asynchronous invocation does', async () => {
    const ran: number[] = [];
    let inFlight = 0;
    let most = 0;
    const failsOnce = new Set([2, 5]);
    const stats = await asyncInvocations([...Array(10).keys()], 3, async (k) => {
      inFlight += 1;
      most = Math.max(most, inFlight);
      await Promise.resolve();
      inFlight -= 1;
      if (failsOnce.delete(k)) throw new Error(`event ${k} failed once`);
      ran.push(k);
    });
    expect(most).toBe(3);
    expect([...ran].sort((a, b) => a - b)).toEqual([...Array(10).keys()]);
    expect(stats).toEqual({ retried: 2, failed: 0 });
  });
});
