import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { LocalLedger } from '../../../shared/ledger/local-ledger';
import { ledgerRatePacer } from '../../../shared/ledger/rate-pacer';
import { PlanningApiClient, toArray } from '../../../shared/planning-api';
import type { RequestPace } from '../../../shared/planning-api/transport/pace';
import { resolveExportSettings } from '../../../shared/report/definition/export-settings';
import { tenantPace } from '../../../shared/report/run/plan-run';
import { startSimulator, type RunningSimulator } from '../../../simulator/index';
import { planningClient } from '../../support/planning-client';

/**
 * Several runs of one tenant at once, each with its own client, against the simulator: the pace they
 * share through the ledger gives each attempt a moment, the moments of all runs together stay under
 * the tenant's rate, and a 429 one run meets holds the others off too. The clock stands still and the
 * sleeps are recorded, so what is asserted is the schedule the clients kept, not how fast this machine is.
 */
const T0 = Date.parse('2026-11-30T07:00:00Z');
const RATE = 20;
let sim: RunningSimulator;
let dir: string;
beforeAll(async () => {
  sim = await startSimulator({ tenant: 'tiny', seed: 3, vocabulary: 'contract' });
  dir = await mkdtemp(join(tmpdir(), 'tenant-pace-'));
});
afterAll(async () => {
  await sim.close();
  await rm(dir, { recursive: true, force: true });
});
beforeEach(() => {
  sim.clearRequests();
  sim.setFaults({});
});

interface Run {
  readonly client: PlanningApiClient;
  /** The moment each attempt was given, and each wait the client slept. */
  readonly moments: number[];
  readonly sleeps: number[];
}

function runsSharing(ledgerDir: string, count: number): Run[] {
  const ledger = new LocalLedger(ledgerDir);
  const key = 'pace/planning/tenant';
  return Array.from({ length: count }, () => {
    const moments: number[] = [];
    const sleeps: number[] = [];
    const pacer = ledgerRatePacer(ledger, key, { ratePerSecond: RATE, now: () => T0, pause: () => Promise.resolve() });
    const pace: RequestPace = {
      reserve: async () => {
        const moment = await pacer.reserve();
        moments.push(moment);
        return moment;
      },
      holdOff: (until) => pacer.holdOff(until),
    };
    const client = planningClient({
      credentials: sim.credentials(),
      clock: () => new Date(T0),
      pace,
      retry: { baseDelayMs: 1 },
      sleep: (ms) => {
        sleeps.push(ms);
        return Promise.resolve();
      },
    });
    return { client, moments, sleeps };
  });
}

/** Each run reads every register's risks, as a risk report does. */
async function readRisks(run: Run): Promise<void> {
  for (const register of await toArray(run.client.listRiskRegisters())) await toArray(run.client.listRisks(register.id));
}

describe('the tenant pace of the planning client', () => {
  it('gives every request of the concurrent runs a moment, and the moments together stay under the tenant rate', async () => {
    const runs = runsSharing(join(dir, 'together'), 5);
    await Promise.all(runs.map(readRisks));
    const moments = runs.flatMap((r) => r.moments).sort((a, b) => a - b);
    expect(moments).toHaveLength(sim.requests.length);
    expect(sim.requests.every((r) => r.status === 200)).toBe(true);
    for (let i = RATE; i < moments.length; i++) expect(moments[i]! - moments[i - RATE]!).toBeGreaterThanOrEqual(1000);
    // Each client waited exactly until its moment (the clock stands at T0).
    for (const run of runs) expect(run.sleeps).toEqual(run.moments.map((m) => m - T0).filter((ms) => ms > 0));
  });

  it('holds every run of the tenant off until the Retry-After of a 429 one of them met', async () => {
    const [first, second] = runsSharing(join(dir, 'held'), 2) as [Run, Run];
    sim.injectFault({ status: 429, retryAfter: '3' });
    await toArray(first.client.listRiskRegisters());
    await toArray(second.client.listRiskRegisters());
    expect(sim.requests.map((r) => r.status)).toEqual([429, 200, 200]);
    expect(first.moments[1]).toBeGreaterThanOrEqual(T0 + 3000);
    expect(second.moments[0]).toBeGreaterThanOrEqual(T0 + 3000);
  });

  it('is the run\'s when the settings give a tenant rate and the run has a ledger, and absent otherwise', () => {
    const ledger = new LocalLedger(join(dir, 'settings'));
    const clock = () => new Date(T0);
    const credentials = sim.credentials();
    expect(tenantPace(credentials, resolveExportSettings({ ratePerSecond: RATE }), { clock, ledger })).toBeDefined();
    expect(tenantPace(credentials, resolveExportSettings({}), { clock, ledger })).toBeUndefined();
    expect(tenantPace(credentials, resolveExportSettings({ ratePerSecond: RATE }), { clock })).toBeUndefined();
  });
});
