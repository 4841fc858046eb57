import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { silentLog } from '../../../shared/core/logger';
import { JobStatusStore } from '../../../shared/jobs/job-status';
import type { ExportJobRequest } from '../../../shared/jobs/ports';
import { openRunLink, showRun, type RunLinkDependencies, type RunView } from '../../../shared/jobs/run-link';
import { LedgerRunLinkLedger, RevocationCache } from '../../../shared/jobs/run-link-ledger';
import type { Ledger } from '../../../shared/ledger/ledger';
import { LocalLedger } from '../../../shared/ledger/local-ledger';
import { verifyLinkToken } from '../../../shared/links/link-token';
import { createRunLinkToken } from '../../../shared/links/run-link-token';
import { LocalDirectoryStorage } from '../../../shared/storage/local-storage';
import type { Storage } from '../../../shared/storage/storage';

const KEYS = { current: { id: 'k2', secret: 'b'.repeat(48) } };
const T0 = new Date('2026-11-23T06:00:00Z');
const MINUTE = 60_000;

/** A ledger that counts reads, so a test can say what a request costs. */
function countingLedger(ledger: Ledger): Ledger & { reads: number } {
  const wrapper = {
    reads: 0,
    get: (key: string) => {
      wrapper.reads++;
      return ledger.get(key);
    },
    put: (...args: Parameters<Ledger['put']>) => ledger.put(...args),
    describe: () => ledger.describe(),
  };
  return wrapper;
}

/** Storage that counts reads (manifests). */
function counting(storage: Storage): Storage & { reads: number } {
  const wrapper = Object.create(storage) as Storage & { reads: number };
  wrapper.reads = 0;
  wrapper.getObject = (key) => {
    wrapper.reads++;
    return storage.getObject(key);
  };
  return wrapper;
}

describe('run links (start, join, reuse, limits)', () => {
  let root: string;
  let storage: Storage & { reads: number };
  let jobs: JobStatusStore;
  let store: Ledger & { reads: number };
  let ledger: LedgerRunLinkLedger;
  let launched: ExportJobRequest[];
  let clock: Date;
  let ids: number;
  let deps: RunLinkDependencies;
  const token = (report = 'acme-weekly') => createRunLinkToken({ report, expiresAt: new Date(T0.getTime() + 30 * 86400_000) }, KEYS.current, T0);

  beforeEach(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'run-link-'));
    storage = counting(new LocalDirectoryStorage(root));
    store = countingLedger(new LocalLedger(path.join(root, 'ledger')));
    jobs = new JobStatusStore(store);
    ledger = new LedgerRunLinkLedger(store);
    launched = [];
    clock = T0;
    ids = 0;
    deps = {
      definitions: { 'acme-weekly': { name: 'acme-weekly', title: 'ACME weekly' }, other: { name: 'other' } },
      jobs,
      launcher: { launch: (request) => Promise.resolve(void launched.push(request)) },
      storage,
      ledger,
      linkKeys: () => Promise.resolve(KEYS),
      log: silentLog,
      reuseMinutes: 5,
      startLimit: { limit: 6, windowMs: 60 * MINUTE },
      staleAfterMs: 20 * MINUTE,
      now: () => clock,
      newId: () => `export-${String(++ids).padStart(4, '0')}`,
    };
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  /** What the export job does: running, progress, then a manifest and `succeeded` (or `failed`). */
  async function finish(id: string, outcome: 'succeeded' | 'failed' = 'succeeded') {
    if (outcome === 'failed') {
      await jobs.update(id, { status: 'failed', error: 'PlanningApiError: 503 at https://internal.example/secret' }, clock);
      return;
    }
    const folder = `acme-weekly/dt=2026-11-23/run=${id}`;
    const manifest = {
      formatVersion: 1, report: 'acme-weekly', runId: id, generatedAt: clock.toISOString(), timeZone: 'UTC',
      source: { baseUrl: 'x', legacyBaseUrl: 'x', companyPrefix: 'x', email: 'x' }, selectors: {}, summary: {},
      files: [
        { path: 'risks.csv', format: 'csv', contentType: 'text/csv', bytes: 10, sha256: 'a'.repeat(64), rows: { risks: 3 } },
        { path: 'acme-weekly.xlsx', format: 'xlsx', contentType: 'x', bytes: 2048, sha256: 'b'.repeat(64), rows: { risks: 3 } },
      ],
    };
    await storage.putObject(`${folder}/manifest.json`, JSON.stringify(manifest), { contentType: 'application/json' });
    await jobs.update(id, { status: 'running' }, clock);
    await jobs.update(id, { status: 'succeeded', manifestKey: `${folder}/manifest.json`, progress: { datasetsDone: 1, datasetsTotal: 1, rows: 3 } }, clock);
  }
  const later = (minutes: number) => {
    clock = new Date(clock.getTime() + minutes * MINUTE);
  };
  const exportIdOf = (view: RunView) => ('exportId' in view ? view.exportId : undefined);

  it('starts an export of the token\'s report and joins it while it runs', async () => {
    const link = token();
    const first = await openRunLink(link.token, deps);
    expect(first).toMatchObject({ state: 'running', exportId: 'export-0001', title: 'ACME weekly' });
    expect(launched).toEqual([{ report: 'acme-weekly', exportId: 'export-0001', source: 'api' }]);
    expect(await jobs.get('export-0001')).toMatchObject({ status: 'queued', report: 'acme-weekly' });

    await jobs.update('export-0001', { status: 'running', progress: { datasetsDone: 1, datasetsTotal: 3, rows: 1200 } }, clock);
    later(1);
    const second = await openRunLink(token().token, deps);
    expect(second).toMatchObject({ state: 'running', exportId: 'export-0001', progress: { datasetsDone: 1, datasetsTotal: 3, rows: 1200 } });
    expect(launched).toHaveLength(1);
  });

  it('starts one export when many people open links of one report at the same moment', async () => {
    const views = await Promise.all(Array.from({ length: 8 }, () => openRunLink(token().token, deps)));
    expect(new Set(views.map(exportIdOf)).size).toBe(1);
    expect(launched).toHaveLength(1);
  });

  it('reuses an export that finished less than N minutes ago, with download links through the link route', async () => {
    const first = await openRunLink(token().token, deps);
    later(2);
    await finish(exportIdOf(first)!);
    later(4);
    const reused = await openRunLink(token().token, deps);
    expect(reused.state).toBe('done');
    if (reused.state !== 'done') return;
    expect(reused.exportId).toBe(exportIdOf(first));
    expect(reused.files.map((f) => f.name)).toEqual(['acme-weekly.xlsx', 'risks.csv']);
    const href = reused.files[0]!.href;
    expect(href).toMatch(/^\.\.\/links\/[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(verifyLinkToken(href.slice('../links/'.length), KEYS, clock)).toMatchObject({
      run: `acme-weekly/dt=2026-11-23/run=${exportIdOf(first)}`,
      file: 'acme-weekly.xlsx',
    });
    expect(launched).toHaveLength(1);

    later(2); // 6 minutes after it finished: stale for reuse, so a fresh export starts
    const fresh = await openRunLink(token().token, deps);
    expect(fresh).toMatchObject({ state: 'running', exportId: 'export-0002' });
    expect(launched).toHaveLength(2);
  });

  it('starts again after a failure, and shows the failure without internals', async () => {
    const link = token();
    const first = await openRunLink(link.token, deps);
    await finish(exportIdOf(first)!, 'failed');
    const shown = await showRun(link.token, exportIdOf(first), deps);
    expect(shown).toEqual({ state: 'failed', exportId: exportIdOf(first), title: 'ACME weekly' });
    expect(JSON.stringify(shown)).not.toContain('internal');
    expect(await openRunLink(link.token, deps)).toMatchObject({ state: 'running', exportId: 'export-0002' });
  });

  it('takes an export whose status stopped changing for longer than the stale limit for dead', async () => {
    const link = token();
    await openRunLink(link.token, deps);
    later(21);
    expect(await showRun(link.token, 'export-0001', deps)).toMatchObject({ state: 'failed' });
    expect(await openRunLink(link.token, deps)).toMatchObject({ state: 'running', exportId: 'export-0002' });
  });

  it('limits the starts per token and hour; other tokens and the next hour are not affected', async () => {
    const link = token();
    for (let i = 0; i < 6; i++) {
      const view = await openRunLink(link.token, deps);
      expect(view.state).toBe('running');
      await finish(exportIdOf(view)!, 'failed');
    }
    const limited = await openRunLink(link.token, deps);
    expect(limited).toMatchObject({ state: 'limited', retryAfterSeconds: 3600 });
    expect(launched).toHaveLength(6);
    expect((await openRunLink(token().token, deps)).state).toBe('running');
    later(60);
    await finish(`export-000${launched.length}`, 'failed');
    expect((await openRunLink(link.token, deps)).state).toBe('running');
  });

  it('refuses revoked tokens, tokens of reports no longer configured, and another report\'s export', async () => {
    const link = token();
    const view = await openRunLink(link.token, deps);
    await ledger.revoke(link.id, clock);
    expect(await openRunLink(link.token, deps)).toEqual({ state: 'refused' });
    expect(await showRun(link.token, exportIdOf(view), deps)).toEqual({ state: 'refused' });
    expect(await openRunLink(createRunLinkToken({ report: 'gone', expiresAt: new Date(T0.getTime() + 86400_000) }, KEYS.current, T0).token, deps)).toEqual({ state: 'refused' });
    expect(await showRun(token('other').token, exportIdOf(view), deps)).toEqual({ state: 'refused' });
    expect(await showRun(token().token, '../../etc/passwd', deps)).toEqual({ state: 'refused' });
    expect(await openRunLink(undefined, deps)).toEqual({ state: 'refused' });
    expect(launched).toHaveLength(1);
  });

  it('a status poll costs one ledger read (the job status) once the revocation cache is warm', async () => {
    const link = token();
    const cache = new RevocationCache(ledger, () => clock);
    const polling = { ...deps, isRevoked: cache.isRevoked };
    const view = await openRunLink(link.token, polling);
    await showRun(link.token, exportIdOf(view), polling); // warms the cache
    const [storageBefore, ledgerBefore] = [storage.reads, store.reads];
    const shown = await showRun(link.token, exportIdOf(view), polling);
    expect(shown.state).toBe('running');
    expect(store.reads - ledgerBefore).toBe(1);
    expect(storage.reads - storageBefore).toBe(0);

    // A revocation reaches polls once the cached answer is a minute old.
    await ledger.revoke(link.id, clock);
    later(1);
    expect(await showRun(link.token, exportIdOf(view), polling)).toEqual({ state: 'refused' });
  });
});
