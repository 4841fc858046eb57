// @tier slow
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SFNClient } from '@aws-sdk/client-sfn';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localJobDependencies } from '../../support/local-job';
import { runExportJob, type ExportJobDependencies } from '../../../shared/jobs/export-job';
import { lastRunRows, routeToFanOut } from '../../../shared/jobs/fan-out-route';
import { StepFunctionsFanOutStarter } from '../../../shared/jobs/step-functions-starter';
import { startSimulator, type RunningSimulator } from '../../../simulator/index';
import { startSfnStub, type SfnStub } from '../../support/sfn-stub';

const MACHINE = 'arn:aws:states:eu-central-1:123456789012:stateMachine:PlanningReportExporter-fan-out';
const REPORT = { name: 'portfolio', datasets: { risks: {}, boardItems: {} }, formats: ['csv'] };

let sim: RunningSimulator;
let sfn: SfnStub;
let dir: string;
let deps: ExportJobDependencies;
let starter: StepFunctionsFanOutStarter;

beforeAll(async () => {
  sim = await startSimulator({ tenant: 'tiny' });
  sfn = await startSfnStub();
  dir = await mkdtemp(join(tmpdir(), 'fan-out-route-'));
  deps = localJobDependencies({ dir, sim, reports: { portfolio: REPORT }, now: () => new Date('2026-11-16T06:00:10Z') });
  starter = new StepFunctionsFanOutStarter(MACHINE, new SFNClient({ endpoint: sfn.endpoint, region: 'eu-central-1', credentials: { accessKeyId: 'a', secretAccessKey: 'b' } }));
});
afterAll(async () => {
  await Promise.all([sim.close(), sfn.close()]);
  await rm(dir, { recursive: true, force: true });
});

const scheduled = { report: 'portfolio', source: 'schedule' as const, scheduledTime: '2026-11-23T06:00:00Z' };
const context = (rows: number) => ({ ledger: deps.ledger, storage: deps.storage, now: new Date('2026-11-23T06:00:01Z'), route: { starter, rows } });

describe('which path a scheduled run takes', () => {
  it('stays single for a report that never ran, or whose last run fits one function', async () => {
    expect(await routeToFanOut(scheduled, context(10))).toBeUndefined();
    await runExportJob({ ...scheduled, scheduledTime: '2026-11-16T06:00:00Z' }, deps);
    const rows = await lastRunRows('portfolio', deps);
    expect(rows).toBeGreaterThan(10);
    expect(await routeToFanOut(scheduled, context(rows!))).toBeUndefined();
    expect(sfn.starts).toEqual([]);
  });

  it('hands a big report\'s run to the state machine once, named after the run, with the run id fixed', async () => {
    const rows = (await lastRunRows('portfolio', deps))!;
    const routed = await routeToFanOut(scheduled, context(10));
    expect(routed).toEqual({ status: 'skipped', reason: `handed to the fan-out: the last run wrote ${rows} rows, more than 10 for one function` });
    expect(sfn.starts).toEqual([{ stateMachineArn: MACHINE, name: 'portfolio-s-20261123T060000Z', input: { ...scheduled, runId: 's-20261123T060000Z' } }]);
    // A retry of the same scheduled invocation starts nothing more.
    expect((await routeToFanOut(scheduled, context(10)))?.reason).toMatch(/^already handed to the fan-out/);
    expect(sfn.starts).toHaveLength(1);
  });

  it('never fans out on-demand, inline or unscheduled runs', async () => {
    for (const request of [{ ...scheduled, source: 'api' as const }, { ...scheduled, source: 'manual' as const }, { definition: REPORT, source: 'schedule' as const }]) {
      expect(await routeToFanOut(request, context(10))).toBeUndefined();
    }
    expect(await routeToFanOut(scheduled, { ...context(10), route: undefined })).toBeUndefined();
  });
});
