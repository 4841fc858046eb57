import { renderRunPage } from '../../../shared/http/run-page';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { silentLog } from '../../../shared/core/logger';
import { JobStatusStore } from '../../../shared/job/status/job-status';
import { type ExportJobRequest } from '../../../shared/job/request';
import { catalogOf } from '../../../shared/definitions/catalog';
import { downloadName, findRunDownload, showRun, startRunLink, viewRunLink, type RunLinkDependencies, type RunView } from '../../../shared/http/run-link';
import { LedgerRunLinkLedger, RevocationCache } from '../../../shared/http/run-link-ledger';
import type { Ledger } from '../../../shared/ledger/ledger';
import { LocalLedger } from '../../../shared/ledger/local-ledger';
import { ledgerKey } from '../../../shared/ledger/ledger';
import { createRunLinkToken } from '../../../shared/links/run-link-token';
import { LocalDirectoryStorage } from '../../../shared/storage/local-storage';
import type { Storage } from '../../../shared/storage/storage';
import { fileForPeople } from '../../../shared/report/names';

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
      definitions: catalogOf({ 'acme-weekly': { name: 'acme-weekly', title: 'ACME weekly' }, other: { name: 'other' } }),
      jobs,
      launcher: { launch: (request) => Promise.resolve(void launched.push(request)) },
      storage,
      ledger,
      linkKeys: () => Promise.resolve(KEYS),
      log: silentLog,
      reuseMinutes: 5,
      startLimit: { limit: 6, windowMs: 60 * MINUTE },
      staleAfterMs: 20 * MINUTE,
      clock: () => clock,
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
      source: { baseUrl: 'x', legacyBaseUrl: 'x', companyPrefix: 'x', email: 'x' }, selectors: {}, summary: { title: 'ACME', rows: { risks: 3 }, sections: [] },
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
    const first = await startRunLink(link.token, deps);
    expect(first).toMatchObject({ state: 'running', exportId: 'export-0001', title: 'ACME weekly' });
    expect(launched).toEqual([{ report: 'acme-weekly', exportId: 'export-0001', source: 'api' }]);
    expect(await jobs.get('export-0001')).toMatchObject({ status: 'queued', report: 'acme-weekly' });

    await jobs.update('export-0001', { status: 'running', progress: { datasetsDone: 1, datasetsTotal: 3, rows: 1200 } }, clock);
    later(1);
    const second = await startRunLink(token().token, deps);
    expect(second).toMatchObject({ state: 'running', exportId: 'export-0001', progress: { datasetsDone: 1, datasetsTotal: 3, rows: 1200 } });
    expect(launched).toHaveLength(1);
  });

  it('starts one export when many people open links of one report at the same moment', async () => {
    const views = await Promise.all(Array.from({ length: 8 }, () => startRunLink(token().token, deps)));
    expect(new Set(views.map(exportIdOf)).size).toBe(1);
    expect(launched).toHaveLength(1);
  });

  it('reuses an export that finished less than N minutes ago, with download links through the run link', async () => {
    const first = await startRunLink(token().token, deps);
    later(2);
    await finish(exportIdOf(first)!);
    later(4);
    const link = token();
    const reused = await startRunLink(link.token, deps);
    expect(reused.state).toBe('done');
    if (reused.state !== 'done') return;
    expect(reused.exportId).toBe(exportIdOf(first));
    // Saved under names for people: the report's title, the table, the day in the report's zone.
    expect(reused.files.map((f) => f.name)).toEqual(['ACME weekly – 2026-11-23.xlsx', 'ACME weekly – Risks – 2026-11-23.csv']);
    expect(reused.fresh).toBe(true);
    const href = new URL(reused.files[0]!.href, `https://api.test/run/${link.token}`);
    expect(href.pathname).toBe(`/run/${link.token}/download`);
    expect(Object.fromEntries(href.searchParams)).toEqual({ export: exportIdOf(first), file: 'acme-weekly.xlsx' });
    expect(await findRunDownload(link.token, exportIdOf(first), 'acme-weekly.xlsx', deps)).toEqual({
      state: 'found', key: `acme-weekly/dt=2026-11-23/run=${exportIdOf(first)}/acme-weekly.xlsx`, name: 'ACME weekly – 2026-11-23.xlsx',
    });
    expect(launched).toHaveLength(1);

    later(2); // 6 minutes after it finished: stale for reuse, so a fresh export starts
    const fresh = await startRunLink(token().token, deps);
    expect(fresh).toMatchObject({ state: 'running', exportId: 'export-0002' });
    expect(launched).toHaveLength(2);
  });

  it("speaks the reader's language its link carries, else the report's, else the browser's", async () => {
    const lang = (locale: string) => createRunLinkToken({ report: 'acme-weekly', expiresAt: new Date(T0.getTime() + 86400_000), lang: locale }, KEYS.current, T0).token;
    expect(await viewRunLink(lang('fr-FR'), deps, { acceptLanguage: 'de' })).toMatchObject({ state: 'ready', locale: 'fr-FR' });
    expect(await viewRunLink(token().token, deps, { acceptLanguage: 'ja, de-AT;q=0.5' })).toMatchObject({ state: 'ready', locale: 'de-AT' });
    deps = { ...deps, definitions: catalogOf({ 'acme-weekly': { name: 'acme-weekly', title: 'ACME weekly', locale: 'fr-CA' } }) };
    expect(await viewRunLink(token().token, deps, { acceptLanguage: 'de' })).toMatchObject({ state: 'ready', locale: 'fr-CA' });
    expect(await startRunLink(lang('de-DE'), deps)).toMatchObject({ state: 'running', locale: 'de-DE' });
  });

  it("writes a finished export's headline figures in the report's locale", async () => {
    deps = { ...deps, definitions: catalogOf({ 'acme-weekly': { name: 'acme-weekly', title: 'ACME weekly', timeZone: 'Europe/Berlin', locale: 'de-DE' } }) };
    const first = await startRunLink(token().token, deps);
    const id = exportIdOf(first)!;
    const folder = `acme-weekly/dt=2026-11-23/run=${id}`;
    const sections = [{ heading: 'Headline', role: 'headline', lines: [
      { label: 'Predictability', value: 50.1, type: 'percent', delta: '+4,9 pp since 16.11.2026' },
      { label: 'Open risks', value: 2148, type: 'integer' },
    ] }, { heading: 'Predictability by board', role: 'headline', lines: [], grid: {
      columns: [{ label: 'Board' }, { label: 'Committed objectives', type: 'integer' }, { label: 'Predictability', type: 'percent', bar: true }],
      rows: [{ values: ['Payments ART', 8, 66.66666666666667] }],
    } }];
    const manifest = {
      formatVersion: 1, report: 'acme-weekly', runId: id, generatedAt: clock.toISOString(), timeZone: 'Europe/Berlin',
      source: { baseUrl: 'x', legacyBaseUrl: 'x', companyPrefix: 'x', email: 'x' }, selectors: {}, summary: { title: 'ACME', rows: { risks: 3 }, sections },
      files: [{ path: 'acme-weekly.xlsx', format: 'xlsx', contentType: 'x', bytes: 2048, sha256: 'b'.repeat(64), rows: { risks: 3 } }],
    };
    await storage.putObject(`${folder}/manifest.json`, JSON.stringify(manifest), { contentType: 'application/json' });
    await jobs.update(id, { status: 'running' }, clock);
    await jobs.update(id, { status: 'succeeded', manifestKey: `${folder}/manifest.json` }, clock);
    const view = await startRunLink(token().token, deps);
    expect(view).toMatchObject({
      state: 'done', locale: 'de-DE',
      figures: [
        { group: 'Headline', label: 'Predictability', value: '50,1 %', delta: '+4,9 pp since 16.11.2026' },
        { group: 'Headline', label: 'Open risks', value: '2.148' },
        // A headline table's rows by their barred figure, as the e-mail shows them.
        { group: 'Predictability by board', label: 'Payments ART', value: '66,7 %' },
      ],
    });
  });

  it("marks each headline figure beyond one of the report's alert lines, as the e-mail and chat do, and leaves the others", async () => {
    const rules = [{ figure: 'openHighRisks', above: 29 }, { figure: 'openRisks', above: 100 }, { event: 'riskRaisedToHighest' }];
    deps = { ...deps, definitions: catalogOf({ 'acme-weekly': { name: 'acme-weekly', title: 'ACME weekly', timeZone: 'Europe/Berlin', alerts: { rules } } }) };
    const id = exportIdOf(await startRunLink(token().token, deps))!;
    const folder = `acme-weekly/dt=2026-11-23/run=${id}`;
    const sections = [{ heading: 'Risks', role: 'headline', lines: [
      { label: 'Open risks', value: 58, type: 'integer', delta: '−2 since 16/11/2026' },
      { label: 'Open high or critical risks', value: 30, type: 'integer', delta: '+1 since 16/11/2026' },
    ] }];
    const manifest = {
      formatVersion: 1, report: 'acme-weekly', runId: id, generatedAt: clock.toISOString(), timeZone: 'Europe/Berlin',
      source: { baseUrl: 'x', legacyBaseUrl: 'x', companyPrefix: 'x', email: 'x' }, selectors: {},
      summary: { title: 'ACME', rows: { risks: 122 }, openRisks: { open: 58, highOrCritical: 30, overdue: 14, withoutOwner: 13 }, sections },
      files: [{ path: 'acme-weekly.xlsx', format: 'xlsx', contentType: 'x', bytes: 2048, sha256: 'b'.repeat(64), rows: { risks: 122 } }],
    };
    await storage.putObject(`${folder}/manifest.json`, JSON.stringify(manifest), { contentType: 'application/json' });
    await jobs.update(id, { status: 'running' }, clock);
    await jobs.update(id, { status: 'succeeded', manifestKey: `${folder}/manifest.json` }, clock);
    const view = await startRunLink(token().token, deps);
    expect(view).toMatchObject({
      state: 'done',
      figures: [
        { label: 'Open risks', value: '58', delta: '−2 since 16/11/2026' },
        { label: 'Open high or critical risks', value: '30', delta: 'above your line of 29 · +1 since 16/11/2026' },
      ],
    });
    // On the page itself, beside the figure, in the change's place.
    expect(renderRunPage(view, 'tok').body).toContain('<dd class="delta">above your line of <span class="nb">29</span> · <span class="nb">+1</span> since');
  });

  it('starts again after a failure, and shows the failure without internals', async () => {
    const link = token();
    const first = await startRunLink(link.token, deps);
    await finish(exportIdOf(first)!, 'failed');
    const shown = await showRun(link.token, exportIdOf(first), deps);
    expect(shown).toEqual({ state: 'failed', exportId: exportIdOf(first), title: 'ACME weekly', locale: 'en-GB' });
    expect(JSON.stringify(shown)).not.toContain('internal');
    expect(await startRunLink(link.token, deps)).toMatchObject({ state: 'running', exportId: 'export-0002' });
  });

  it('takes an export whose status stopped changing for longer than the stale limit for dead', async () => {
    const link = token();
    await startRunLink(link.token, deps);
    later(21);
    expect(await showRun(link.token, 'export-0001', deps)).toMatchObject({ state: 'failed' });
    expect(await startRunLink(link.token, deps)).toMatchObject({ state: 'running', exportId: 'export-0002' });
  });

  it('limits the starts per token and hour; other tokens and the next hour are not affected', async () => {
    const link = token();
    for (let i = 0; i < 6; i++) {
      const view = await startRunLink(link.token, deps);
      expect(view.state).toBe('running');
      await finish(exportIdOf(view)!, 'failed');
    }
    const limited = await startRunLink(link.token, deps);
    expect(limited).toMatchObject({ state: 'limited', retryAfterSeconds: 3600 });
    expect(launched).toHaveLength(6);
    expect((await startRunLink(token().token, deps)).state).toBe('running');
    later(60);
    await finish(`export-000${launched.length}`, 'failed');
    expect((await startRunLink(link.token, deps)).state).toBe('running');
  });

  it('refuses revoked tokens, tokens of reports no longer configured, and another report\'s export', async () => {
    const link = token();
    const view = await startRunLink(link.token, deps);
    await ledger.revoke(link.id, clock);
    expect(await startRunLink(link.token, deps)).toEqual({ state: 'refused' });
    expect(await showRun(link.token, exportIdOf(view), deps)).toEqual({ state: 'refused' });
    expect(await startRunLink(createRunLinkToken({ report: 'gone', expiresAt: new Date(T0.getTime() + 86400_000) }, KEYS.current, T0).token, deps)).toEqual({ state: 'refused' });
    expect(await showRun(token('other').token, exportIdOf(view), deps)).toEqual({ state: 'refused' });
    expect(await showRun(token().token, '../../etc/passwd', deps)).toEqual({ state: 'refused' });
    expect(await startRunLink(undefined, deps)).toEqual({ state: 'refused' });
    expect(launched).toHaveLength(1);
  });

  it('a status poll costs one ledger read (the job status) once the revocation cache is warm', async () => {
    const link = token();
    const cache = new RevocationCache(ledger, () => clock);
    const polling = { ...deps, isRevoked: cache.isRevoked };
    const view = await startRunLink(link.token, polling);
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
  const startsCounted = async (linkId: string) =>
    ((await store.get(ledgerKey('run-link', 'starts', linkId, String(Math.floor(clock.getTime() / (60 * MINUTE))))))?.value as { count?: number } | undefined)?.count ?? 0;

  it('a GET only shows: the button when nothing runs, the running or fresh export to join; it never starts or counts', async () => {
    const link = token();
    expect(await viewRunLink(link.token, deps)).toEqual({ state: 'ready', title: 'ACME weekly', locale: 'en-GB' });
    expect(await viewRunLink(link.token, deps)).toEqual({ state: 'ready', title: 'ACME weekly', locale: 'en-GB' });
    expect(launched).toHaveLength(0);
    expect(await startsCounted(link.id)).toBe(0);

    const started = await startRunLink(link.token, deps);
    expect(await viewRunLink(token().token, deps)).toMatchObject({ state: 'running', exportId: exportIdOf(started) });
    later(1);
    await finish(exportIdOf(started)!);
    expect(await viewRunLink(token().token, deps)).toMatchObject({ state: 'done', exportId: exportIdOf(started) });
    later(6);
    expect(await viewRunLink(link.token, deps)).toEqual({ state: 'ready', title: 'ACME weekly', locale: 'en-GB' });
    expect(launched).toHaveLength(1);
    expect(await startsCounted(link.id)).toBe(1);
  });

  it('counts one start for racing opens of one link, and none for joining or reusing', async () => {
    const link = token();
    const views = await Promise.all(Array.from({ length: 12 }, () => startRunLink(link.token, deps)));
    expect(views.map((v) => v.state)).toEqual(Array.from({ length: 12 }, () => 'running'));
    const winners = new Set(views.map(exportIdOf));
    expect(winners.size).toBe(1);
    const [winner] = [...winners];
    expect(launched).toEqual([{ report: 'acme-weekly', exportId: winner, source: 'api' }]);
    expect(await startsCounted(link.id)).toBe(1);
    // Only the winner wrote a job: no superseded ones.
    for (let i = 1; i <= ids; i++) {
      const id = `export-${String(i).padStart(4, '0')}`;
      if (id !== winner) expect(await jobs.get(id)).toBeUndefined();
    }

    later(1);
    await finish(winner!);
    later(1);
    const reused = await Promise.all(Array.from({ length: 5 }, () => startRunLink(link.token, deps)));
    expect(reused.map((v) => v.state)).toEqual(Array.from({ length: 5 }, () => 'done'));
    expect(await startsCounted(link.id)).toBe(1);
    expect(launched).toHaveLength(1);
  });

  it('shows an export whose slot is taken but whose job is not written yet as starting, and a dead starter as nothing', async () => {
    const link = token();
    await ledger.swapRun('acme-weekly', undefined, { exportId: 'export-ghost', startedAt: clock.toISOString() });
    expect(await viewRunLink(link.token, deps)).toMatchObject({ state: 'running', exportId: 'export-ghost' });
    expect(await showRun(link.token, 'export-ghost', deps)).toMatchObject({ state: 'running', exportId: 'export-ghost' });
    later(2);
    expect(await viewRunLink(link.token, deps)).toEqual({ state: 'ready', title: 'ACME weekly', locale: 'en-GB' });
    // The link is valid; that export is simply not kept: the page offers a fresh copy, it does not call the link withdrawn.
    expect(await showRun(link.token, 'export-ghost', deps)).toEqual({ state: 'ready', title: 'ACME weekly', locale: 'en-GB', gone: true });
    expect(await startRunLink(link.token, deps)).toMatchObject({ state: 'running', exportId: 'export-0001' });
  });

  it('checks the run link at every download: revoking it stops the links its page handed out at once', async () => {
    const link = token();
    const cache = new RevocationCache(ledger, () => clock);
    const cached = { ...deps, isRevoked: cache.isRevoked };
    const view = await startRunLink(link.token, cached);
    await finish(exportIdOf(view)!);
    const page = await showRun(link.token, exportIdOf(view), cached); // warms the revocation cache
    expect(page.state).toBe('done');
    expect((await findRunDownload(link.token, exportIdOf(view), 'risks.csv', cached)).state).toBe('found');
    await ledger.revoke(link.id, clock);
    expect(await findRunDownload(link.token, exportIdOf(view), 'risks.csv', cached)).toEqual({ state: 'refused' });
    // Files that are not in the export's manifest, and other reports' exports, are never found.
    const other = token();
    expect(await findRunDownload(other.token, exportIdOf(view), '../manifest.json', deps)).toEqual({ state: 'gone' });
    expect(await findRunDownload(other.token, exportIdOf(view), 'manifest.json', deps)).toEqual({ state: 'gone' });
    expect(await findRunDownload(token('other').token, exportIdOf(view), 'risks.csv', deps)).toEqual({ state: 'refused' });
  });
});

describe('downloadName', () => {
  it('names a file for people in the report zone\'s day, with characters a file system refuses made dashes', () => {
    const manifest = { generatedAt: '2026-11-23T23:30:00.000Z' };
    const csv = (table: string) => fileForPeople({ format: 'csv', rows: { [table]: 1 } });
    expect(downloadName('Demo company', 'pi-objective-items.csv', csv('pi-objective-items'), manifest, 'Europe/Berlin')).toBe('Demo company – PI objective items – 2026-11-24.csv');
    expect(downloadName('Demo company', 'demo-weekly.xlsx', fileForPeople({ format: 'xlsx', rows: {} }), manifest, 'America/New_York')).toBe('Demo company – 2026-11-23.xlsx');
    expect(downloadName('Q4: A/B "plan"', 'changes.csv', csv('changes'), manifest, 'UTC')).toBe('Q4- A-B -plan- – Changes – 2026-11-23.csv');
  });
});
