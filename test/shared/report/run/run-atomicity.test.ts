// @tier slow
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { GetObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PlanningApiError } from '../../../../shared/core/errors';
import type { Log } from '../../../../shared/core/logger';
import { DynamoDbLedger } from '../../../../shared/ledger/dynamodb-ledger';
import { LocalLedger } from '../../../../shared/ledger/local-ledger';
import { parseReportDefinition, type ReportDefinition } from '../../../../shared/report/definition/definition';
import type { PlanningSource } from '../../../../shared/report/dataset/planning-source';
import type { ExportResult } from '../../../../shared/report/run/result';
import { testClient } from '../../../support/planning-client';
import { runOf } from '../../../support/run-builder';
import { LocalDirectoryStorage } from '../../../../shared/storage/local-storage';
import { S3Storage } from '../../../../shared/storage/s3-storage';
import type { Storage } from '../../../../shared/storage/storage';
import { startSimulator, type RunningSimulator } from '../../../../simulator/index';
import { startDynalite } from '../../../support/dynalite';
import { readCsv } from '../../../support/read-output';
import { startS3rver } from '../../../support/s3rver';

/**
 * The fault suite for runs: overlapping attempts of one run id,
 * concurrent reports in one root, bad latest.json, a race on latest, a killed process and a retry
 * across midnight. Everything is local (directory + local ledger); the DynamoDB ledger runs the same
 * lease rules in test/shared/ledger/.
 */
const T0 = new Date('2026-11-23T06:00:00Z');
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

/** A member of `target`, methods bound to it (the client keeps private fields). */
function bound(target: object, prop: string | symbol): unknown {
  const value = Reflect.get(target, prop, target) as unknown;
  return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
}

function recordingLog(): Log & { warnings: string[] } {
  const warnings: string[] = [];
  return { warnings, debug: () => undefined, info: () => undefined, error: () => undefined, warn: (message: string) => void warnings.push(message) };
}

describe('runs that cannot corrupt each other', () => {
  let sim: RunningSimulator;
  let root: string;
  let definition: ReportDefinition;
  let expectedRows: { risks: number; 'board-items': number };

  const client = () => testClient(sim.credentials());
  /** A run of `def` over `source`, against the simulator's credentials as they are when it starts. */
  const runOver = (def: ReportDefinition, source: PlanningSource) => runOf(def).withSource(source).against(sim.credentials());
  const storage = (at = root): Storage => new LocalDirectoryStorage(at);
  /** `inner` with every call that writes or removes recorded in `writes` (by method and key). */
  const watchedWrites = (inner: Storage, writes: string[]): Storage =>
    new Proxy(inner, {
      get(target, prop) {
        const value = bound(target, prop);
        if (typeof value !== 'function' || !['openUpload', 'putObject', 'deleteObjects', 'removeIncomplete', 'annotate'].includes(String(prop))) return value;
        return (...args: unknown[]) => {
          writes.push(`${String(prop)} ${JSON.stringify(args[0])}`);
          return (value as (...a: unknown[]) => unknown)(...args);
        };
      },
    });
  const ledger = (at = root) => new LocalLedger(join(at, '.ledger'));

  /** A source that waits at the board items (after risks.csv is stored) and then fails or goes on. */
  function gatedSource(wait: Promise<void>, fail: boolean): PlanningSource {
    const inner = client();
    return new Proxy(inner, {
      get(target, prop) {
        if (prop === 'listBoardItemPages') {
          return async function* (boardId: string, options?: { fields?: readonly string[] }) {
            await wait;
            if (fail) throw new PlanningApiError('injected: the board items answered 400', { operation: 'listBoardItems', status: 400 });
            yield* target.listBoardItemPages(boardId, options);
          };
        }
        return bound(target, prop);
      },
    });
  }

  function attempt(
    runId: string,
    source: PlanningSource,
    options: { now?: () => Date; at?: string; def?: ReportDefinition; onStored?: (path: string) => void; log?: Log; writes?: string[] } = {},
  ) {
    return runOver(options.def ?? definition, source)
      .withStorage(options.writes ? watchedWrites(storage(options.at), options.writes) : storage(options.at))
      .withLedger(ledger(options.at))
      .at(options.now ?? T0)
      .withRunId(runId)
      .withContext({
        ...(options.log && { log: options.log }),
        onProgress: (e) => {
          if (e.type === 'file-stored') options.onStored?.(e.path);
        },
      })
      .export();
  }

  /** Every file the manifest lists is stored with its size and sha256; latest.json names a readable manifest. */
  async function expectConsistent(result: ExportResult, at = root) {
    const manifest = JSON.parse(await readFile(join(at, result.manifestKey), 'utf8'));
    expect(manifest.runId).toBe(result.manifest.runId);
    // The table snapshots (docs/changes.md) are listed under changes.snapshots, with the same checks.
    const snapshots: { path: string; bytes: number; sha256: string }[] = manifest.changes?.snapshots ?? [];
    for (const file of [...manifest.files, ...snapshots]) {
      const bytes = await readFile(join(at, result.runFolder, file.path));
      expect({ path: file.path, bytes: bytes.length, sha256: sha256(bytes) }).toEqual({ path: file.path, bytes: file.bytes, sha256: file.sha256 });
    }
    const listed = new Set([result.manifestKey.split('/').pop()!, ...[...manifest.files, ...snapshots].map((f: { path: string }) => f.path.split('/')[0]!)]);
    expect((await readdir(join(at, result.runFolder))).filter((f) => !listed.has(f))).toEqual([]);
    if (snapshots.length > 0) {
      const inFolder = (await readdir(join(at, result.runFolder, 'snapshots'))).map((f) => `snapshots/${f}`);
      expect(inFolder.sort()).toEqual(snapshots.map((f) => f.path).sort());
    }
    const latest = JSON.parse(await readFile(join(at, result.manifest.report, 'latest.json'), 'utf8'));
    const pointed = JSON.parse(await readFile(join(at, latest.manifest), 'utf8'));
    expect(pointed.report).toBe(result.manifest.report);
  }

  /** The CSV of `table` as the manifest names it (a takeover's files carry its generation). */
  function csvPath(result: ExportResult, table: string): string {
    return result.manifest.files.find((f) => f.format === 'csv' && table in f.rows)!.path;
  }

  async function rowsOf(result: ExportResult, at = root) {
    return {
      risks: (await readCsv(join(at, result.runFolder, csvPath(result, 'risks')))).rows.length,
      'board-items': (await readCsv(join(at, result.runFolder, csvPath(result, 'board-items')))).rows.length,
    };
  }

  beforeAll(async () => {
    sim = await startSimulator({ tenant: 'tiny' });
    root = await mkdtemp(join(tmpdir(), 'run-atomicity-'));
    definition = parseReportDefinition({ name: 'overlap', timeZone: 'Europe/Berlin', datasets: { risks: {}, boardItems: {} } });
    const items = sim.tenant.boards.flatMap((b) => sim.tenant.boardItems(b.id));
    expectedRows = {
      risks: sim.tenant.registers.reduce((n, r) => n + sim.tenant.risks(r.id).length, 0),
      'board-items': items.reduce((n, i) => n + 1 + (i.stories?.length ?? 0), 0),
    };
  });
  afterAll(async () => {
    await sim.close();
    await rm(root, { recursive: true, force: true });
  });

  it('overlapping attempts of one run id, one failing and one succeeding, in each order: nothing published is ever broken', async () => {
    // The gates fix the order that matters (B asks while A holds the lease past risks.csv), so one trial
    // of each order (the failing attempt first, the succeeding one first) shows each case; the repeats
    // (four of each, ten before) only resampled how A's later writes fall around B's refusal, which
    // touches nothing (asserted below) before A's writes go on.
    const TRIALS = 2;
    const tally = { inProgress: 0, succeeded: 0, failed: 0, rowsLost: 0 };
    for (let trial = 0; trial < TRIALS; trial++) {
      const runId = `overlap-${trial}`;
      const first = gate();
      const stored = gate();
      // Even trials: the failing attempt starts first; odd trials: the succeeding one does.
      const firstFails = trial % 2 === 0;
      const a = attempt(runId, gatedSource(first.promise, firstFails), { onStored: (p) => p.endsWith('risks.csv') && stored.open() });
      a.catch(() => undefined);
      await stored.promise;
      // A goes on writing meanwhile (its next table), so what B did is watched at its storage.
      const writesOfB: string[] = [];
      const b = await attempt(runId, gatedSource(Promise.resolve(), !firstFails), { writes: writesOfB }).then(
        (result) => ({ ok: true as const, result }),
        (error: unknown) => ({ ok: false as const, error }),
      );
      if (!b.ok) {
        expect(String(b.error)).toMatch(/run "overlap-\d+" of report "overlap" is in progress/);
        // The refused attempt touched nothing.
        expect(writesOfB).toEqual([]);
        tally.inProgress++;
      }
      first.open();
      const aOutcome = await a.then((result) => ({ ok: true as const, result }), (error: unknown) => ({ ok: false as const, error }));
      expect(aOutcome.ok).toBe(!firstFails);
      if (!aOutcome.ok) tally.failed++;
      // Whatever reported success is intact after both ended.
      for (const outcome of [aOutcome, b]) {
        if (!outcome.ok) continue;
        tally.succeeded++;
        await expectConsistent(outcome.result);
      }
      // A retry of the run now finishes it (or finds it finished) with every row.
      const retry = await attempt(runId, client());
      await expectConsistent(retry);
      const rows = await rowsOf(retry);
      tally.rowsLost += expectedRows.risks - rows.risks + expectedRows['board-items'] - rows['board-items'];
    }
    expect(tally.inProgress).toBe(TRIALS);
    expect(tally.failed).toBe(TRIALS / 2);
    expect(tally.rowsLost).toBe(0);
    console.info(`overlapping attempts: ${TRIALS} trials, ${tally.inProgress} refused as in progress, ${tally.failed} failed cleanly, rows lost ${tally.rowsLost}`);
  }, 120_000);

  it('overlapping attempts on S3 with the DynamoDB ledger (s3rver + dynalite), in each order: nothing published is ever broken', async () => {
    // One trial of each order on these adapters (it was two of each, five before), as above.
    const TRIALS = 2;
    const s3 = await startS3rver({ bucket: 'atomicity' });
    const dynamo = await startDynalite();
    try {
      const s3Storage = new S3Storage({ client: s3.client, bucket: s3.bucket, prefix: 'reports' });
      const dynamoLedger = new DynamoDbLedger({ client: dynamo.client, tableName: dynamo.tableName });
      const run = (runId: string, source: PlanningSource, onStored?: (path: string) => void) =>
        runOver(definition, source)
          .withStorage(s3Storage)
          .withLedger(dynamoLedger)
          .at(T0)
          .withRunId(runId)
          .withContext({ onProgress: (e) => e.type === 'file-stored' && onStored?.(e.path) })
          .export();
      const objectBytes = async (key: string) =>
        (await s3.client.send(new GetObjectCommand({ Bucket: s3.bucket, Key: `reports/${key}` }))).Body!.transformToByteArray();
      const consistent = async (result: ExportResult) => {
        const manifest = JSON.parse(Buffer.from(await objectBytes(result.manifestKey)).toString('utf8'));
        for (const file of manifest.files) {
          const bytes = await objectBytes(`${result.runFolder}/${file.path}`);
          expect({ bytes: bytes.length, sha256: sha256(bytes) }).toEqual({ bytes: file.bytes, sha256: file.sha256 });
        }
        const latest = JSON.parse(Buffer.from(await objectBytes('overlap/latest.json')).toString('utf8'));
        expect(JSON.parse(Buffer.from(await objectBytes(latest.manifest)).toString('utf8')).report).toBe('overlap');
        return manifest as { files: { path: string; rows: Record<string, number> }[] };
      };
      let refused = 0;
      let rowsLost = 0;
      for (let trial = 0; trial < TRIALS; trial++) {
        const runId = `s3-overlap-${trial}`;
        const first = gate();
        const stored = gate();
        const firstFails = trial % 2 === 0;
        const a = run(runId, gatedSource(first.promise, firstFails), (p) => p.endsWith('risks.csv') && stored.open());
        a.catch(() => undefined);
        await stored.promise;
        const keysBefore = (await s3.client.send(new ListObjectsV2Command({ Bucket: s3.bucket, Prefix: `reports/overlap/` }))).Contents?.map((o) => `${o.Key}:${o.ETag}`).sort();
        await expect(run(runId, gatedSource(Promise.resolve(), !firstFails))).rejects.toThrow(/is in progress/);
        const keysAfter = (await s3.client.send(new ListObjectsV2Command({ Bucket: s3.bucket, Prefix: `reports/overlap/` }))).Contents?.map((o) => `${o.Key}:${o.ETag}`).sort();
        expect(keysAfter).toEqual(keysBefore);
        refused++;
        first.open();
        const outcome = await a.then((r) => r, () => undefined);
        expect(outcome !== undefined).toBe(!firstFails);
        if (outcome) await consistent(outcome);
        const retry = await run(runId, client());
        const manifest = await consistent(retry);
        const rows = manifest.files.find((f) => f.path.endsWith('.xlsx'))!.rows;
        rowsLost += expectedRows.risks - (rows.risks ?? 0) + expectedRows['board-items'] - (rows['board-items'] ?? 0);
      }
      expect(rowsLost).toBe(0);
      expect(refused).toBe(TRIALS);
      console.info(`overlapping attempts on S3 + DynamoDB: ${TRIALS} trials, ${refused} refused as in progress, rows lost ${rowsLost}`);
    } finally {
      await Promise.all([s3.close(), dynamo.close()]);
    }
  }, 120_000);

  it('a long healthy run keeps its lease past the first expiry; a second attempt is still refused', async () => {
    let clock = T0;
    const competitor: { outcome?: Promise<unknown> } = {};
    const result = await runOver(definition, client())
      .withStorage(storage())
      .withLedger(ledger())
      .at(() => clock)
      .withRunId('long-run')
      .withContext({
        leaseMs: 60_000,
        onProgress: (e) => {
          if (e.type !== 'file-stored') return;
          // Each stored file moves the clock 50 s on: twice that is past a lease that was never renewed.
          clock = new Date(clock.getTime() + 50_000);
          if (e.path.endsWith('board-items.csv')) competitor.outcome = attempt('long-run', client(), { now: () => clock }).catch((error: unknown) => error);
        },
      })
      .export();
    expect(String(await competitor.outcome)).toMatch(/run "long-run" of report "overlap" is in progress/);
    await expectConsistent(result);
  });

  it('publishes no manifest when a stored file no longer matches what the run wrote', async () => {
    const at = await mkdtemp(join(tmpdir(), 'run-atomicity-verify-'));
    try {
      const def = parseReportDefinition({ name: 'tampered', datasets: { risks: {}, boardItems: {} } });
      const run = attempt('tampered-1', client(), {
        at,
        def,
        // Another writer replaces risks.csv right after the run stored it (same size, other bytes);
        // synchronously, so it has happened before the run goes on.
        onStored: (p) => {
          if (!p.endsWith('risks.csv')) return;
          writeFileSync(join(at, p), Buffer.from(readFileSync(join(at, p)).toString('latin1').replace(/[a-z]/g, 'x'), 'latin1'));
        },
      });
      await expect(run).rejects.toThrow(/risks\.csv is not what this run wrote \(\d+ bytes, sha256 [0-9a-f]{12}…; expected \d+ bytes, sha256 [0-9a-f]{12}…\); the manifest was not published/);
      await expect(readFile(join(at, 'tampered/dt=2026-11-23/run=tampered-1/manifest.json'))).rejects.toThrow(/ENOENT/);
      await expect(readFile(join(at, 'tampered/latest.json'))).rejects.toThrow(/ENOENT/);
    } finally {
      await rm(at, { recursive: true, force: true });
    }
  });

  it('8 concurrent exports of different reports into one root all publish complete, consistent runs', async () => {
    const shared = await mkdtemp(join(tmpdir(), 'run-atomicity-eight-'));
    try {
      const results = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          attempt(`eight-${i}`, client(), {
            at: shared,
            def: parseReportDefinition({ name: `report-${i}`, datasets: { risks: {}, boardItems: {} } }),
          }),
        ),
      );
      for (const result of results) {
        await expectConsistent(result, shared);
        expect(await rowsOf(result, shared)).toEqual(expectedRows);
        const latest = JSON.parse(await readFile(join(shared, result.manifest.report, 'latest.json'), 'utf8'));
        expect(latest.manifest).toBe(result.manifestKey);
      }
      console.info(`concurrent runs held: ${results.length} reports in one root, all consistent`);
    } finally {
      await rm(shared, { recursive: true, force: true });
    }
  }, 120_000);

  it.each([
    ['empty', ''],
    ['cut short', '{"report": "bad-pointer", "runId'],
    ['not a pointer', '[1, 2, 3]'],
    ['dated far in the future', JSON.stringify({ report: 'bad-pointer', runId: 'future', generatedAt: '2999-01-01T00:00:00.000Z', manifest: 'bad-pointer/nowhere/manifest.json' })],
  ])('a latest.json that is %s gives a warning, does not fail the export and is repaired', async (what, content) => {
    const at = await mkdtemp(join(tmpdir(), 'run-atomicity-pointer-'));
    try {
      const def = parseReportDefinition({ name: 'bad-pointer', datasets: { risks: {} } });
      const { mkdir } = await import('node:fs/promises');
      await mkdir(join(at, 'bad-pointer'), { recursive: true });
      await writeFile(join(at, 'bad-pointer', 'latest.json'), content);
      const log = recordingLog();
      const result = await attempt(`pointer-${what.replace(/\W+/g, '-')}`, client(), { at, def, log });
      expect(result.latestUpdated).toBe(true);
      const latest = JSON.parse(await readFile(join(at, 'bad-pointer', 'latest.json'), 'utf8'));
      expect(latest).toMatchObject({ runId: result.manifest.runId, manifest: result.manifestKey });
      expect(log.warnings.join('\n')).toMatch(/latest\.json/);
    } finally {
      await rm(at, { recursive: true, force: true });
    }
  });

  it('latest.json never moves backward when an older run publishes after a newer one read it', async () => {
    const at = await mkdtemp(join(tmpdir(), 'run-atomicity-latest-'));
    try {
      const def = parseReportDefinition({ name: 'race', datasets: { risks: {} } });
      const reached = gate();
      const newerDone = gate();
      // The older run is held just before it writes latest.json, after it has read it.
      const held: Storage = new Proxy(storage(at), {
        get(target, prop) {
          if (prop === 'putObject') {
            return async (key: string, body: string | Uint8Array, meta: Parameters<Storage['putObject']>[2]) => {
              if (key.endsWith('latest.json')) {
                reached.open();
                await newerDone.promise;
              }
              return target.putObject(key, body, meta);
            };
          }
          return bound(target, prop);
        },
      });
      const older = runOver(def, client()).withStorage(held).withLedger(ledger(at)).at('2026-11-23T06:00:00Z').withRunId('older').export();
      await reached.promise;
      const newer = await attempt('newer', client(), { at, def, now: () => new Date('2026-11-23T07:00:00Z') });
      newerDone.open();
      await older;
      const latest = JSON.parse(await readFile(join(at, 'race', 'latest.json'), 'utf8'));
      expect(latest).toMatchObject({ runId: 'newer', manifest: newer.manifestKey });
    } finally {
      await rm(at, { recursive: true, force: true });
    }
  });

  it('a retry of a run id across midnight (report time zone) lands in the dt= folder of the run\'s start', async () => {
    const at = await mkdtemp(join(tmpdir(), 'run-atomicity-midnight-'));
    try {
      const def = parseReportDefinition({ name: 'midnight', timeZone: 'Europe/Berlin', datasets: { risks: {}, boardItems: {} } });
      const beforeMidnight = new Date('2026-11-23T22:55:00Z'); // 23:55 in Berlin
      const afterMidnight = new Date('2026-11-23T23:10:00Z'); // 00:10 the next day in Berlin
      await expect(attempt('late', gatedSource(Promise.resolve(), true), { at, def, now: () => beforeMidnight })).rejects.toThrow(PlanningApiError);
      const retry = await attempt('late', client(), { at, def, now: () => afterMidnight });
      expect(retry.runFolder).toBe('midnight/dt=2026-11-23/run=late');
      expect(await readdir(join(at, 'midnight'))).toEqual(['dt=2026-11-23', 'latest.json']);
      await expectConsistent(retry, at);
    } finally {
      await rm(at, { recursive: true, force: true });
    }
  });

  it('a killed export leaves no debris in the run a retry publishes', async () => {
    const at = await mkdtemp(join(tmpdir(), 'run-atomicity-kill-'));
    try {
      await writeFile(join(at, 'report.json'), JSON.stringify({ name: 'killed', timeZone: 'UTC', datasets: { risks: {}, boardItems: {} } }));
      await writeFile(join(at, 'credentials.json'), JSON.stringify(sim.credentials()));
      // The board items hang, so the child is killed with risks.csv stored and the workbook half written.
      let hang = true;
      sim.injectFault({ status: 'slow', delayMs: 30_000, times: 1000, match: (r) => hang && r.path.endsWith('/items') });
      const child = spawn(process.execPath, ['--import', pathToFileURL(join(process.cwd(), 'node_modules/tsx/dist/loader.mjs')).href, join(process.cwd(), 'cli/export.ts'), '--report', 'report.json', '--credentials', 'credentials.json', '--out', 'out', '--run-id', 'killed-1', '--quiet'], { cwd: at, stdio: 'ignore' });
      let gone = false;
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => {
        gone = true;
        resolve(code);
      }));
      // The child dates its run folder by its own clock; the folder is read from the disk, not derived
      // from this process's clock, which may already be on the next day.
      const reportFolder = join(at, 'out', 'killed');
      let folder = '';
      // Wait for the event (the CSV renamed into place), by watching the folder it appears in.
      for (;;) {
        const day = (await readdir(reportFolder).catch(() => [] as string[])).find((f) => f.startsWith('dt='));
        folder = day ? join(reportFolder, day, 'run=killed-1') : '';
        const files = folder ? await readdir(folder).catch(() => [] as string[]) : [];
        if (files.includes('risks.csv') && files.some((f) => f.endsWith('.partial'))) break;
        if (gone) throw new Error(`the export process ended before it could be killed (exit code ${String(await exited)})`);
        await new Promise((resolve) => setImmediate(resolve));
      }
      child.kill('SIGKILL');
      await exited;
      hang = false;
      const debris = await readdir(folder);
      expect(debris.some((f) => f.endsWith('.partial'))).toBe(true);
      // The retry comes after the dead attempt's lease has lapsed.
      const def = parseReportDefinition({ name: 'killed', timeZone: 'UTC', datasets: { risks: {}, boardItems: {} } });
      const retry = await attempt('killed-1', client(), { at: join(at, 'out'), def, now: () => new Date(Date.now() + 10 * 60_000) });
      // The retry keeps the killed attempt's folder, whatever day the retry's clock shows.
      expect(join(at, 'out', retry.runFolder)).toBe(folder);
      await expectConsistent(retry, join(at, 'out'));
      expect((await readdir(folder)).filter((f) => f.startsWith('.'))).toEqual([]);
    } finally {
      await rm(at, { recursive: true, force: true });
    }
  }, 60_000);
});
