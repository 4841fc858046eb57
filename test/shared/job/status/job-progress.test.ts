import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { silentLog } from '../../../../shared/core/logger';
import { finalProgress, trackJobProgress } from '../../../../shared/job/status/job-progress';
import { JobStatusStore } from '../../../../shared/job/status/job-status';
import { LocalLedger } from '../../../../shared/ledger/local-ledger';

describe('job progress', () => {
  let root: string;
  let jobs: JobStatusStore;
  let clock: number;
  beforeEach(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'job-progress-'));
    jobs = new JobStatusStore(new LocalLedger(root));
    clock = Date.parse('2026-11-23T06:00:00Z');
    await jobs.put({ id: 'export-0001', report: 'acme', status: 'running', createdAt: '2026-11-23T06:00:00Z', updatedAt: '2026-11-23T06:00:00Z' });
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('records datasets done and rows so far as the export streams, at most once a second, and settles before the end', async () => {
    const progress = trackJobProgress('export-0001', { jobs, datasetsTotal: 2, clock: () => new Date(clock), log: silentLog });
    progress.onProgress({ type: 'dataset', dataset: 'risks' });
    progress.onProgress({ type: 'rows', table: 'risks', rows: 2000 }); // same instant: throttled
    clock += 1000;
    progress.onProgress({ type: 'rows', table: 'risks', rows: 4000 });
    await progress.settle();
    expect((await jobs.get('export-0001'))?.progress).toEqual({ datasetsDone: 0, datasetsTotal: 2, rows: 4000 });

    const next = trackJobProgress('export-0001', { jobs, datasetsTotal: 2, clock: () => new Date(clock), log: silentLog });
    next.onProgress({ type: 'dataset', dataset: 'risks' });
    next.onProgress({ type: 'table-done', table: 'risks', rows: 4321 });
    next.onProgress({ type: 'dataset', dataset: 'okrs' }); // a new dataset is always written
    await next.settle();
    next.onProgress({ type: 'dataset', dataset: 'late' }); // after settle: nothing more is written
    await next.settle();
    const job = await jobs.get('export-0001');
    expect(job?.progress).toEqual({ datasetsDone: 1, datasetsTotal: 2, rows: 4321 });
    expect(job?.status).toBe('running');
  });

  it('never fails the export when a progress write fails', async () => {
    const warnings: string[] = [];
    const broken = { update: () => Promise.reject(new Error('S3 is down')) } as unknown as JobStatusStore;
    const progress = trackJobProgress('export-0001', {
      jobs: broken, datasetsTotal: 1, clock: () => new Date(clock), log: { ...silentLog, warn: (m: string) => void warnings.push(m) },
    });
    progress.onProgress({ type: 'dataset', dataset: 'risks' });
    await expect(progress.settle()).resolves.toBeUndefined();
    expect(warnings).toEqual(['could not record export progress']);
  });

  it('final progress counts every row of every table', () => {
    expect(finalProgress({ risks: 3, okrs: 4 }, 2)).toEqual({ datasetsDone: 2, datasetsTotal: 2, rows: 7 });
  });
});
