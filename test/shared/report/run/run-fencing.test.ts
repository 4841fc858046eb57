// @tier slow
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LeaseLostError } from '../../../../shared/core/errors';
import { DynamoDbLedger } from '../../../../shared/ledger/dynamodb-ledger';
import type { Ledger } from '../../../../shared/ledger/ledger';
import { LocalLedger } from '../../../../shared/ledger/local-ledger';
import { parseReportDefinition, type ReportDefinition } from '../../../../shared/report/definition/definition';
import { latestPointerSchema, manifestSchema, type Manifest } from '../../../../shared/report/manifest/manifest';
import type { ExportResult } from '../../../../shared/report/run/result';
import { runOf } from '../../../support/run-builder';
import { pausingAt, type WritePoint } from '../../../support/write-points';
import { attemptKey } from '../../../../shared/report/run/run-writer';
import { LocalDirectoryStorage } from '../../../../shared/storage/local-storage';
import { S3Storage } from '../../../../shared/storage/s3-storage';
import type { Storage } from '../../../../shared/storage/storage';
import { startSimulator, type RunningSimulator } from '../../../../simulator/index';
import { startDynalite, type DynaliteHandle } from '../../../support/dynalite';
import { startS3rver, type S3rverHandle } from '../../../support/s3rver';

/**
 * Fencing: an attempt frozen at a write point (by a pausing storage and ledger, write-points.ts) past its lease, a
 * second attempt that takes the run over and publishes, then the frozen one resumes. Whatever the
 * point, the published manifest matches its files byte for byte, the run folder holds only what it
 * names, latest.json names the newest complete run and the stale attempt fails saying so. Clocks
 * are injected: each attempt has its own, so the frozen one's lease has lapsed for the other.
 */
const T0 = Date.parse('2026-11-23T06:00:00Z');
const LEASE_MS = 60_000;
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

interface Backend {
  readonly name: string;
  readonly storage: Storage;
  readonly ledger: Ledger;
}

/** Every key a run left in its folder and its table partitions. */
async function keysOfRun(storage: Storage, result: ExportResult): Promise<string[]> {
  const tables = await storage.listKeys(`${result.manifest.report}/tables/`);
  return [...(await storage.listKeys(`${result.runFolder}/`)), ...tables.filter((k) => k.includes(`/run=${result.manifest.runId}/`))].sort();
}

/** latest.json's manifest, each file it lists re-read and hashed; returns the manifest. */
async function expectPublished(storage: Storage, report: string, runId: string): Promise<{ manifest: Manifest; key: string }> {
  const pointer = latestPointerSchema.parse(JSON.parse(Buffer.from((await storage.getObject(`${report}/latest.json`))!).toString('utf8')));
  expect(pointer.runId).toBe(runId);
  const manifest = manifestSchema.parse(JSON.parse(Buffer.from((await storage.getObject(pointer.manifest))!).toString('utf8')));
  expect(manifest.runId).toBe(runId);
  const folder = pointer.manifest.slice(0, pointer.manifest.lastIndexOf('/'));
  const listed = [
    ...manifest.files.map((f) => ({ key: `${folder}/${f.path}`, bytes: f.bytes, sha256: f.sha256 })),
    ...(manifest.changes?.snapshots ?? []).map((f) => ({ key: `${folder}/${f.path}`, bytes: f.bytes, sha256: f.sha256 })),
    ...(manifest.tables ?? []).map((f) => ({ key: `${report}/${f.path}`, bytes: f.bytes, sha256: f.sha256 })),
  ];
  expect(listed.length).toBeGreaterThan(4);
  for (const file of listed) {
    const bytes = await storage.getObject(file.key);
    expect({ key: file.key, bytes: bytes?.byteLength, sha256: bytes && sha256(bytes) }).toEqual(file);
  }
  return { manifest, key: pointer.manifest };
}

describe('fenced runs: a stale attempt never touches what the run publishes', () => {
  let sim: RunningSimulator;
  let dir: string;
  let s3: S3rverHandle;
  let dynamo: DynaliteHandle;
  let definition: ReportDefinition;
  const backends: Backend[] = [];
  const tally = { trials: 0, staleFailed: 0, staleCompletedFirst: 0 };

  beforeAll(async () => {
    sim = await startSimulator({ tenant: 'tiny' });
    dir = await mkdtemp(join(tmpdir(), 'run-fencing-'));
    [s3, dynamo] = await Promise.all([startS3rver({ bucket: 'fencing' }), startDynalite()]);
    definition = parseReportDefinition({
      name: 'fenced', timeZone: 'Europe/Berlin', formats: ['xlsx', 'csv', 'parquet'], datasets: { risks: {}, boardItems: {} },
    });
    backends.push(
      { name: '--out (directory + local ledger)', storage: new LocalDirectoryStorage(join(dir, 'out')), ledger: new LocalLedger(join(dir, 'out', '.ledger')) },
      {
        name: 's3rver + dynalite',
        storage: new S3Storage({ client: s3.client, bucket: s3.bucket, prefix: 'reports' }),
        ledger: new DynamoDbLedger({ client: dynamo.client, tableName: dynamo.tableName }),
      },
    );
  });
  afterAll(async () => {
    console.info(`fencing: ${tally.trials} trials, ${tally.staleFailed} stale attempts failed cleanly, ${tally.staleCompletedFirst} had completed before the takeover`);
    await Promise.all([sim.close(), s3.close(), dynamo.close(), rm(dir, { recursive: true, force: true })]);
  });

  const run = (backend: Backend, runId: string, at: number, pause?: (point: WritePoint, key: string) => Promise<void>) =>
    runOf(definition)
      .withBackend(pause ? pausingAt(backend, pause) : backend)
      .against(sim.credentials())
      .at(new Date(at))
      .withRunId(runId)
      .withContext({ leaseMs: LEASE_MS })
      .export();

  /** The trials: every write point, the upload points at several of their occurrences. */
  const trials: { point: WritePoint; occurrence: number }[] = [
    ...[1, 2, 3, 5].map((occurrence) => ({ point: 'open' as const, occurrence })),
    ...[1, 2, 3, 5].map((occurrence) => ({ point: 'stored' as const, occurrence })),
    { point: 'manifest', occurrence: 1 },
    { point: 'complete', occurrence: 1 },
    // Before the first and the second copy into the tables: the manifest is chosen, the taker finishes the copies.
    { point: 'publish', occurrence: 1 },
    { point: 'publish', occurrence: 2 },
    { point: 'latest', occurrence: 1 },
  ];

  /**
   * On S3 and DynamoDB every write point once (both publish points: before the first copy and between
   * copies): the adapters' conditional writes, copies and deletes are what differ from --out. Which
   * upload of a run is frozen (the 2nd, 3rd, 5th) is the same adapter call again, proved on --out; on
   * s3rver each trial cost 2.4 s where --out's cost 0.5 s.
   */
  const everyPointOnce = trials.filter(({ point, occurrence }) => occurrence === 1 || point === 'publish');

  for (const backendIndex of [0, 1]) {
    const chosen = backendIndex === 0 ? trials : everyPointOnce;
    it(`backend ${backendIndex === 0 ? '--out' : 's3rver + dynalite'}: ${chosen.length} trials, frozen at each write point, taken over, resumed`, async () => {
      const backend = backends[backendIndex]!;
      for (const { point, occurrence } of chosen) {
        // The trial's place in the full list names its run and its hour, on either backend.
        const index = trials.findIndex((t) => t.point === point && t.occurrence === occurrence);
        const runId = `fence-${index}-${point}-${occurrence}`;
        // Each trial's run starts an hour after the one before: latest.json must end on this one.
        const start = T0 + index * 3_600_000;
        const frozen = gate();
        const resume = gate();
        let hits = 0;
        const stale = run(backend, runId, start, async (at) => {
          if (at !== point || ++hits !== occurrence) return;
          frozen.open();
          await resume.promise;
        });
        const staleOutcome = stale.then((r) => ({ ok: true as const, result: r }), (error: unknown) => ({ ok: false as const, error }));
        await frozen.promise;

        // The other attempt, ten minutes later by its clock: the frozen lease has lapsed.
        const winner = await run(backend, runId, start + 10 * 60_000);
        resume.open();
        const outcome = await staleOutcome;
        tally.trials++;

        if (point === 'latest') {
          // Frozen after its compare-and-swap completed the run: the run is its own, nothing to fence.
          expect(winner.written).toBe(false);
          expect(outcome.ok).toBe(true);
          tally.staleCompletedFirst++;
        } else if (point === 'publish') {
          // Frozen while copying the tables of its chosen manifest: the taker finished the copies, exporting nothing again.
          expect(winner.written).toBe(false);
          expect(winner.manifestKey).toBe(`${winner.runFolder}/manifest.json`);
          expect(outcome.ok).toBe(false);
          if (!outcome.ok) {
            expect(outcome.error).toBeInstanceOf(LeaseLostError);
            expect((outcome.error as Error).message).toMatch(
              /^this attempt \(generation 1\) lost its lease on run "fence-[^"]+" of report "fenced" to the attempt of generation 2 \(.+\), which published the run; it stalled past its lease while copying the run's tables/,
            );
          }
          tally.staleFailed++;
        } else {
          expect(winner.written).toBe(true);
          expect(winner.manifestKey).toBe(`${winner.runFolder}/manifest.g2.json`);
          expect(outcome.ok).toBe(false);
          if (!outcome.ok) {
            expect(outcome.error).toBeInstanceOf(LeaseLostError);
            expect((outcome.error as Error).message).toMatch(
              /^this attempt \(generation 1\) lost its lease on run "fence-[^"]+" of report "fenced" to the attempt of generation 2 \(.+\), which published the run; .*nothing it wrote is published/,
            );
          }
          tally.staleFailed++;
        }
        const published = await expectPublished(backend.storage, 'fenced', runId);
        expect(published.key).toBe(winner.manifestKey);
        // The stale attempt removed its own keys and nothing else: the run holds exactly what its manifest names.
        const named = [
          published.key,
          ...published.manifest.files.map((f) => `${winner.runFolder}/${f.path}`),
          ...(published.manifest.changes?.snapshots ?? []).map((f) => `${winner.runFolder}/${f.path}`),
          ...(published.manifest.tables ?? []).map((f) => `fenced/${f.path}`),
        ].sort();
        expect(await keysOfRun(backend.storage, winner)).toEqual(named);
        // Nothing staged is left: the publisher removed what it copied, the stale attempt what it staged.
        expect(await backend.storage.listKeys(`_staging/fenced/run=${runId}/`)).toEqual([]);
      }
    }, 240_000);
  }

  it('a 503 on the PUT of latest.json leaves the run published and says so; a rerun of the run id repairs latest.json', async () => {
    const backend = backends[1]!;
    const failing: Storage = new Proxy(backend.storage, {
      get(target, prop) {
        if (prop === 'putObject') {
          return (key: string, ...rest: Parameters<Storage['putObject']> extends [string, ...infer R] ? R : never) => {
            if (key.endsWith('/latest.json')) return Promise.reject(new Error('injected: 503 Service Unavailable on PUT latest.json'));
            return target.putObject(key, ...rest);
          };
        }
        const value = Reflect.get(target, prop, target) as unknown;
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
    const at = T0 + 100 * 3_600_000;
    const first = await runOf(definition).withStorage(failing).withLedger(backend.ledger).against(sim.credentials()).at(new Date(at)).withRunId('latest-503').export();
    expect(first.written).toBe(true);
    expect(first.latestUpdated).toBe(false);
    expect(first.latestProblem).toMatch(/latest\.json could not be updated \(.*503.*\); the run is published and .*a rerun of run id "latest-503", writes latest\.json again/);
    const stale = latestPointerSchema.parse(JSON.parse(Buffer.from((await backend.storage.getObject('fenced/latest.json'))!).toString('utf8')));
    expect(stale.runId).not.toBe('latest-503');

    const rerun = await run(backend, 'latest-503', at + 60_000);
    expect(rerun.written).toBe(false);
    expect(rerun.latestUpdated).toBe(true);
    expect(rerun.latestProblem).toBeUndefined();
    const published = await expectPublished(backend.storage, 'fenced', 'latest-503');
    expect(published.key).toBe(first.manifestKey);
  }, 60_000);

  it('names the files of a later attempt by its generation, in the same folder', () => {
    expect(attemptKey('r/dt=2026-11-23/run=a/risks.csv', 1)).toBe('r/dt=2026-11-23/run=a/risks.csv');
    expect(attemptKey('r/dt=2026-11-23/run=a/risks.csv', 2)).toBe('r/dt=2026-11-23/run=a/risks.g2.csv');
    expect(attemptKey('r/tables/risks/dt=2026-11-23/run=a/part-00000.parquet', 3)).toBe('r/tables/risks/dt=2026-11-23/run=a/part-00000.g3.parquet');
    expect(attemptKey('r/dt=2026-11-23/run=a/snapshots/risks.jsonl.gz', 2)).toBe('r/dt=2026-11-23/run=a/snapshots/risks.g2.jsonl.gz');
    expect(attemptKey('r/dt=2026-11-23/run=a/manifest.json', 2)).toBe('r/dt=2026-11-23/run=a/manifest.g2.json');
  });
});
