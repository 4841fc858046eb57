import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalLedger } from '../../../shared/ledger/local-ledger';
import { LocalDirectoryStorage } from '../../../shared/storage/local-storage';
import { runFleet, type FleetFigures, type FleetOptions } from '../../support/fleet';

/**
 * A small fleet at one instant (8 reports of 2 tenants, each mailing 2 readers and posting to one chat
 * channel) through a concurrency cap of 3, tenants limited to 20 requests a second and SES to 14
 * messages: the crowded minute is late, never lost; nobody is mailed twice, no channel posted to twice;
 * no owner hears of a throttle; through the scheduled-runs queue (the stack's way) and through Lambda's
 * asynchronous invocation; and a mixed one, with a medium tenant's report and a large tenant's that
 * hands over to the fan-out (its steps run by the local driver). The stand-in of Lambda (async-invocations.test.ts) backs off from
 * 100 ms here instead of 1 s, so the test waits less; the order of things is the same.
 */
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'fleet-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A small fleet in its own folder: 2 tenants, 2 readers a report, 3 at once, the bench's rates. */
function smallFleet(folder: string, options: Partial<FleetOptions> & Pick<FleetOptions, 'reports' | 'engine'>): Promise<FleetFigures> {
  return runFleet({
    tenants: 2,
    readers: 2,
    concurrency: 3,
    tenantRate: 20,
    sendRate: 14,
    storage: new LocalDirectoryStorage(join(dir, folder)),
    ledger: new LocalLedger(join(dir, folder, '.ledger')),
    ...options,
  });
}

describe('a fleet scheduled at one instant', () => {
  it('delivers every report exactly once through the scheduled-runs queue: at most its maximum at once, a freed slot taking the next run', async () => {
    const figures = await smallFleet('queue', {
      reports: 8,
      engine: 'queue',
    });
    expect(figures).toMatchObject({ reports: 8, deliveredOnce: 8, lost: 0, doubled: 0, readersMailedOnce: 16, ownerNotices: 0, failedEvents: 0, expiredEvents: 0 });
    expect(figures).toMatchObject({ chatOnce: 8, chatLost: 0, chatDoubled: 0 });
    // The queue holds what it cannot run yet: nothing is throttled, and no run failed a receive.
    expect(figures).toMatchObject({ lambdaThrottles: 0, retried: 0, failures: [] });
    expect(figures.planning429).toBeLessThanOrEqual(figures.planningRequests * 0.05);
    expect(figures.throttles).toBeLessThanOrEqual(figures.sends * 0.05);
  });

  it('delivers a medium report and a report that hands over to the fan-out exactly once too, the fan-out started once and its delivery counted with the others', async () => {
    const figures = await smallFleet('mixed', {
      reports: 6,
      mediumReports: 1,
      fanOut: true,
      // Smaller than the bench's, to stay fast: the medium tenant's boards hold more items than the tiny one's; the large one has 6 boards of the tiny size (3 workers of 2).
      shapes: { medium: { itemsPerBoard: 30 }, large: { boards: 6 } },
      engine: 'queue',
    });
    expect(figures).toMatchObject({ reports: 6, deliveredOnce: 6, lost: 0, doubled: 0, readersMailedOnce: 12, ownerNotices: 0, failedEvents: 0, failures: [] });
    expect(figures).toMatchObject({ chatOnce: 6, chatLost: 0, chatDoubled: 0 });
    // The large tenant's report went through the fan-out (once), and the last delivery waited for it.
    expect(figures.fanOuts).toBe(1);
    expect(figures.fanOutMs).toBeGreaterThan(0);
    expect(figures.lowerBoundMs).toBeGreaterThanOrEqual(figures.fanOutMs);
    expect(figures.planning429).toBeLessThanOrEqual(figures.planningRequests * 0.05);
  });

  it('delivers every report exactly once to every reader through asynchronous invocation too, through the cap, the tenant rates and the send rate', async () => {
    const figures = await smallFleet('runs', {
      reports: 8,
      engine: 'async',
      invocation: { firstBackoffMs: 100, maxBackoffMs: 1_000 },
    });
    expect(figures).toMatchObject({ reports: 8, deliveredOnce: 8, lost: 0, doubled: 0, readersMailedOnce: 16, ownerNotices: 0, failedEvents: 0, expiredEvents: 0 });
    expect(figures).toMatchObject({ chatOnce: 8, chatLost: 0, chatDoubled: 0 });
    // Eight events on three slots: the five beyond the cap were throttled at least once each.
    expect(figures.lambdaThrottles).toBeGreaterThanOrEqual(5);
    // Paced, the tenants and SES rarely refuse: at most 5 % of what was asked.
    expect(figures.planning429).toBeLessThanOrEqual(figures.planningRequests * 0.05);
    expect(figures.throttles).toBeLessThanOrEqual(figures.sends * 0.05);
  });
});
