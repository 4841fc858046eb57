// @tier slow
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixedClock } from '../../../shared/core/clock';
import type { StoredDefinition } from '../../../shared/definitions/stored-definition';
import type { FanOutStarter } from '../../../shared/job/stages/route';
import { runFannedOutJob } from '../../../shared/fan-out/steps';
import { exportJobRequestSchema, type ExportJobRequest } from '../../../shared/job/request';
import { listReports } from '../../../shared/ops/report-list';
import { runJob, type JobContext } from '../../../shared/job/run-job';
import { ledgerKey } from '../../../shared/ledger/ledger';
import { resolveExportSettings } from '../../../shared/report/definition/export-settings';
import { manifestSchema } from '../../../shared/report/manifest/manifest';
import { LocalDirectoryStorage } from '../../../shared/storage/local-storage';
import { startSimulator, type RunningSimulator } from '../../../simulator/index';
import { localJobDependencies } from '../../support/local-job';
import { storedReports } from '../../support/door-settings';

/**
 * A run that will not fit one function (here: a deadline already past when it starts, as the
 * function's remaining time would be for a report too big for it) is handed to the fan-out the same
 * week, under the same run id, and published there; nobody is told of a failure, and the manifest
 * and the run list say which path wrote it and why.
 */
const REPORT = { name: 'portfolio', title: 'Portfolio', datasets: { risks: {}, boardItems: {} }, formats: ['csv'] };
const AT = new Date('2026-11-23T06:00:20Z');
const SCHEDULED = { report: 'portfolio', source: 'schedule' as const, scheduledTime: '2026-11-23T06:00:00Z' };

/** A state machine that records its starts (once per name, as Step Functions does). */
function recordingStarter(): FanOutStarter & { readonly inputs: ExportJobRequest[] } {
  const names = new Set<string>();
  const inputs: ExportJobRequest[] = [];
  return {
    inputs,
    start: (name, input) => {
      if (names.has(name)) return Promise.resolve(false);
      names.add(name);
      inputs.push(exportJobRequestSchema.parse(input));
      return Promise.resolve(true);
    },
  };
}

let sim: RunningSimulator;
const dirs: string[] = [];
beforeAll(async () => {
  sim = await startSimulator({ tenant: 'tiny' });
});
afterAll(async () => {
  await sim.close();
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

/** The function's dependencies: its deadline `deadlineMs` after AT (negative: already past). */
async function functionDeps(dir: string, starter: FanOutStarter, deadlineMs: number): Promise<JobContext> {
  const failed: unknown[] = [];
  const base = localJobDependencies({
    dir,
    sim,
    reports: { portfolio: REPORT },
    clock: fixedClock(AT),
    context: { settings: resolveExportSettings({ deadline: AT.getTime() + deadlineMs }) },
  });
  return {
    ...base,
    events: { publish: (type: string, detail: unknown) => Promise.resolve(void (type === 'ReportFailed' && failed.push(detail))) },
    fanOut: { starter, rows: 1e9 },
    onFailure: (error) => failed.push(error),
  };
}

describe('a run that will not fit one function', () => {
  it('goes to the fan-out the same week, is published there, and says so in its manifest and the run list', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'hand-over-'));
    dirs.push(dir);
    const starter = recordingStarter();
    const single = await functionDeps(dir, starter, -1);
    const outcome = await runJob(SCHEDULED, single);
    expect(outcome.status).toBe('skipped');
    expect('reason' in outcome && outcome.reason).toMatch(/^handed to the fan-out: run s-20261123T060000Z met the function's deadline on the single path \(/);
    expect(starter.inputs).toEqual([
      { ...SCHEDULED, runId: 's-20261123T060000Z', via: 'fan-out', routeReason: expect.stringMatching(/^run s-20261123T060000Z met the function's deadline/) },
    ]);
    // The report is noted as outgrown: its next runs start on the fan-out.
    expect((await single.ledger.get(ledgerKey('route', 'portfolio')))?.value).toMatchObject({ runId: 's-20261123T060000Z' });
    // A retry of the same invocation starts nothing more.
    expect(await runJob(SCHEDULED, single)).toMatchObject({ status: 'skipped', reason: expect.stringMatching(/^already handed to the fan-out/) });
    expect(starter.inputs).toHaveLength(1);

    // The state machine's steps, with the time a step has (no deadline past).
    const steps = await functionDeps(dir, starter, 15 * 60_000);
    const assembled = await runFannedOutJob(starter.inputs[0]!, steps, { boardsPerWorker: 2 });
    expect(assembled.status).toBe('succeeded');
    if (assembled.status !== 'succeeded') return;
    const manifest = manifestSchema.parse(JSON.parse(await readFile(join(dir, assembled.manifestKey), 'utf8')));
    expect(manifest.runId).toBe('s-20261123T060000Z');
    expect(manifest.path).toEqual({ via: 'fan-out', reason: starter.inputs[0]!.routeReason });
    expect(manifest.summary.rows['board-items']).toBeGreaterThan(0);

    const store = storedReports(new LocalDirectoryStorage(join(dir, 'definitions')));
    await store.put({ definition: REPORT as StoredDefinition['definition'], schedule: null });
    const [entry] = await listReports({ store, now: AT, ledger: steps.ledger, storage: steps.storage });
    expect(entry?.lastRun?.result).toMatch(/^succeeded; written by the fan-out \(run s-20261123T060000Z met the function's deadline on the single path/);
  });

  it('hands an on-demand export over too: its status stays running until the fan-out finishes it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'hand-over-api-'));
    dirs.push(dir);
    const starter = recordingStarter();
    const single = await functionDeps(dir, starter, -1);
    const jobs = single.jobs;
    const created = AT.toISOString();
    await jobs.put({ id: 'export-0001', report: 'portfolio', status: 'queued', createdAt: created, updatedAt: created });
    const request = { report: 'portfolio', source: 'api' as const, exportId: 'export-0001' };
    expect((await runJob(request, single)).status).toBe('skipped');
    expect(await jobs.get('export-0001')).toMatchObject({ status: 'running', runId: 'export-0001' });

    const steps = await functionDeps(dir, starter, 15 * 60_000);
    const assembled = await runFannedOutJob(starter.inputs[0]!, steps, { boardsPerWorker: 2 });
    expect(assembled.status).toBe('succeeded');
    expect(await jobs.get('export-0001')).toMatchObject({ status: 'succeeded', runId: 'export-0001' });
  });

  it('fails as before where the stack has no fan-out, and an inline definition is never handed over', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'hand-over-none-'));
    dirs.push(dir);
    const starter = recordingStarter();
    const without = { ...(await functionDeps(dir, starter, -1)), fanOut: undefined };
    await expect(runJob(SCHEDULED, without)).rejects.toThrow(/deadline/);
    const inline = await functionDeps(dir, starter, -1);
    const policy = { enabled: true, prefix: 'adhoc-', emailDomains: [] };
    await expect(runJob({ definition: REPORT, source: 'manual' as const }, { ...inline, inline: policy })).rejects.toThrow(/ran out of time/);
    expect(starter.inputs).toEqual([]);
  });
});
