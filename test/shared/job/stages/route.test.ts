// @tier slow
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SFNClient } from '@aws-sdk/client-sfn';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localJobDependencies } from '../../../support/local-job';
import { runJob, type JobContext } from '../../../../shared/job/run-job';
import { jobRunId } from '../../../../shared/job/stages/resolve';
import { RANDOM_RUN_IDS } from '../../../../shared/report/run/context';
import { fixedClock } from '../../../../shared/core/clock';
import { routeToFanOut } from '../../../../shared/job/stages/route';
import { lastRunRows, OUTGROWN_DAYS } from '../../../../shared/report/run/run-route';
import { silentLog } from '../../../../shared/core/logger';
import { DEFAULT_LEASE_MS } from '../../../../shared/report/run/run-entry';
import { RunLease } from '../../../../shared/report/run/run-lease';
import { StepFunctionsFanOutStarter } from '../../../../shared/fan-out/step-functions-starter';
import { startSimulator, type RunningSimulator } from '../../../../simulator/index';
import { startSfnStub, type SfnStub } from '../../../support/sfn-stub';

const MACHINE = 'arn:aws:states:eu-central-1:123456789012:stateMachine:PlanningReportExporter-fan-out';
const REPORT = { name: 'portfolio', datasets: { risks: {}, boardItems: {} }, formats: ['csv'] };

let sim: RunningSimulator;
let sfn: SfnStub;
let dir: string;
let deps: JobContext;
let starter: StepFunctionsFanOutStarter;

beforeAll(async () => {
  sim = await startSimulator({ tenant: 'tiny' });
  sfn = await startSfnStub();
  dir = await mkdtemp(join(tmpdir(), 'fan-out-route-'));
  deps = localJobDependencies({ dir, sim, reports: { portfolio: REPORT }, clock: () => new Date('2026-11-16T06:00:10Z') });
  starter = new StepFunctionsFanOutStarter(MACHINE, new SFNClient({ endpoint: sfn.endpoint, region: 'eu-central-1', credentials: { accessKeyId: 'a', secretAccessKey: 'b' } }));
});
afterAll(async () => {
  await Promise.all([sim.close(), sfn.close()]);
  await rm(dir, { recursive: true, force: true });
});

const scheduled = { report: 'portfolio', source: 'schedule' as const, scheduledTime: '2026-11-23T06:00:00Z' };
/** The run context of an invocation at `now`, and a route that fans out above `rows`. */
const contextAt = (now: Date) => ({ ...deps, clock: fixedClock(now) });
const route = (rows: number) => ({ starter, rows });
const at1 = new Date('2026-11-23T06:00:01Z');

describe('which path a scheduled run takes', () => {
  it('stays single for a report that never ran, or whose last run fits one function', async () => {
    expect(await routeToFanOut(scheduled, contextAt(at1), route(10))).toBeUndefined();
    await runJob({ ...scheduled, scheduledTime: '2026-11-16T06:00:00Z' }, deps);
    const rows = await lastRunRows('portfolio', deps);
    expect(rows).toBeGreaterThan(10);
    expect(await routeToFanOut(scheduled, contextAt(at1), route(rows!))).toBeUndefined();
    expect(sfn.starts).toEqual([]);
  });

  it('hands a big report\'s run to the state machine once, named after the run, with the run id fixed', async () => {
    const rows = (await lastRunRows('portfolio', deps))!;
    const routed = await routeToFanOut(scheduled, contextAt(at1), route(10));
    expect(routed).toEqual({ status: 'skipped', reason: `handed to the fan-out: the last run wrote ${rows} rows, more than 10 for one function` });
    expect(sfn.starts).toEqual([
      {
        stateMachineArn: MACHINE,
        name: 'portfolio-s-20261123T060000Z',
        input: { ...scheduled, runId: 's-20261123T060000Z', via: 'fan-out', routeReason: `the last run wrote ${rows} rows, more than 10 for one function` },
      },
    ]);
    // A retry of the same scheduled invocation starts nothing more.
    expect((await routeToFanOut(scheduled, contextAt(at1), route(10)))?.reason).toMatch(/^already handed to the fan-out/);
    expect(sfn.starts).toHaveLength(1);
  });

  it('never fans out on-demand, inline or unscheduled runs', async () => {
    for (const request of [{ ...scheduled, source: 'api' as const }, { ...scheduled, source: 'manual' as const }, { definition: REPORT, source: 'schedule' as const }]) {
      expect(await routeToFanOut(request, contextAt(at1), route(10))).toBeUndefined();
    }
    expect(await routeToFanOut(scheduled, contextAt(at1), undefined)).toBeUndefined();
  });
});

describe('a report that outgrew one function without ever publishing a big run', () => {
  const at = (iso: string, ms = 0) => new Date(new Date(iso).getTime() + ms);
  /** Rows far above anything the tiny tenant writes: only a dead attempt can send these runs out. */
  const routeAt = (request: typeof scheduled, now: Date) => routeToFanOut(request, contextAt(now), route(1e9));
  /** An attempt of the run that takes its lease at `startedAt` and is then killed: it never releases it. */
  const killedAttempt = async (request: typeof scheduled, startedAt: Date) => {
    const runId = jobRunId(request, startedAt, RANDOM_RUN_IDS);
    const leased = await RunLease.acquire({ ledger: deps.ledger, clock: () => startedAt, log: silentLog, leaseMs: DEFAULT_LEASE_MS }, { report: 'portfolio', runId });
    expect(leased.kind).toBe('acquired');
    return runId;
  };

  it("fans out the retry of a run whose attempt died holding its lease, then the report's runs for a while", async () => {
    const week1 = { ...scheduled, scheduledTime: '2026-11-30T06:00:00Z' };
    const started = at('2026-11-30T06:00:01Z');
    const runId = await killedAttempt(week1, started);
    expect(runId).toBe('s-20261130T060000Z');
    // While its holder still renews (10 s after the last renewal) the attempt may be running: the single path decides.
    expect(await routeAt(week1, at(started.toISOString(), 10_000))).toBeUndefined();

    const retried = await routeAt(week1, at(started.toISOString(), 15 * 60_000));
    expect(retried?.reason).toMatch(/^handed to the fan-out: an earlier attempt of this run stopped without finishing \(out of time or memory; its lease lapsed at 2026-11-30T06:01:01\.000Z\)$/);
    expect(sfn.starts.at(-1)).toEqual({ stateMachineArn: MACHINE, name: `portfolio-${runId}`, input: { ...week1, runId, via: 'fan-out', routeReason: expect.any(String) } });

    const week2 = { ...scheduled, scheduledTime: '2026-12-07T06:00:00Z' };
    const next = await routeAt(week2, at('2026-12-07T06:00:01Z'));
    expect(next?.reason).toBe(`handed to the fan-out: run ${runId} of this report did not fit one function (2026-11-30T06:01:01.000Z); its runs fan out until 2027-01-04T06:15:01.000Z`);
    expect(sfn.starts.at(-1)?.name).toBe('portfolio-s-20261207T060000Z');

    // After OUTGROWN_DAYS the single path is tried again.
    const later = { ...scheduled, scheduledTime: '2027-01-11T06:00:00Z' };
    expect(await routeAt(later, at('2026-11-30T06:15:01Z', OUTGROWN_DAYS * 86_400_000 + 1))).toBeUndefined();
  });

  it('keeps the single path for a run whose attempt failed in the ordinary way (it gave its lease up)', async () => {
    const request = { ...scheduled, scheduledTime: '2027-02-01T06:00:00Z' };
    const startedAt = at('2027-02-01T06:00:01Z');
    const leased = await RunLease.acquire({ ledger: deps.ledger, clock: () => startedAt, log: silentLog, leaseMs: DEFAULT_LEASE_MS }, { report: 'portfolio', runId: 's-20270201T060000Z' });
    if (leased.kind !== 'acquired') throw new Error('expected the lease');
    expect(await leased.lease.release([], [])).toBe(true);
    const starts = sfn.starts.length;
    expect(await routeAt(request, at('2027-02-01T07:00:00Z'))).toBeUndefined();
    expect(sfn.starts).toHaveLength(starts);
  });
  it('waits for a silent lease to lapse: a retry 59 s after the last renewal fans out, never skipped as "in progress"', async () => {
    const request = { ...scheduled, scheduledTime: '2027-03-01T06:00:00Z' };
    const started = at('2027-03-01T06:00:01Z');
    const runId = await killedAttempt(request, started);
    // The invocation's clock, moved by the route's wait as real time would move it.
    let now = at(started.toISOString(), 59_000);
    const waited: number[] = [];
    const wait = (ms: number) => {
      waited.push(ms);
      now = new Date(now.getTime() + ms);
      return Promise.resolve();
    };
    const routed = await routeToFanOut(request, { ...deps, clock: () => now, leaseWait: wait }, route(1e9));
    expect(waited).toEqual([1_001]);
    expect(routed?.reason).toMatch(/^handed to the fan-out: an earlier attempt of this run stopped without finishing \(out of time or memory; its lease lapsed at 2027-03-01T06:01:01\.000Z\)$/);
    expect(sfn.starts.at(-1)?.name).toBe(`portfolio-${runId}`);
  });
});
