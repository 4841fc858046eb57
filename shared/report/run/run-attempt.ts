/**
 * One attempt of a run under its lease (docs/run-atomicity.md): takes the lease, recovers what
 * earlier attempts left (a manifest they published, debris they recorded, copies into the tables
 * they did not finish), hands the writing to the caller through a RunWriter, publishes the manifest
 * and the run's table files (table-publish.ts) and, once, moves `latest`.
 */
import { errorMessage, LeaseLostError, StorageError } from '../../core/errors';
import type { Log } from '../../core/logger';
import type { Storage } from '../../storage/storage';
import type { ReportSummary } from '../../table/table';
import type { ChangeReport } from '../changes/model';
import type { Trends } from '../trends/series';
import { changeReportFromManifest } from '../changes/outputs';
import { publishLatest } from './latest-pointer';
import { manifestKey, runFolderKey, stagingFolderKey } from '../manifest/layout';
import { manifestSchema, type Manifest } from '../manifest/manifest';
import { completedManifest } from './run-entry';
import { RunLease, type LeaseOutcome } from './run-lease';
import { publishTables } from './table-publish';
import { finishCopies, rollForward } from './roll-forward';
import { summariesFromManifest, summaryFromManifest } from './run-summary';
import { RunWriter, verifyStored } from './run-writer';
import type { RunContext } from './context';
import type { ExportResult } from './result';
import type { PlannedRun, RunDraft, RunInProgress } from './run';

/** What the caller wrote: the manifest is published by the attempt, after the caller returns. */
export interface WrittenRun {
  readonly manifest: Manifest;
  readonly summary: ReportSummary;
  /** The Summary in the readers' other languages (result.ts). */
  readonly summaries?: Readonly<Record<string, ReportSummary>> | undefined;
  readonly owned?: ExportResult['owned'];
  readonly changes: ChangeReport;
  readonly trends?: Trends | undefined;
}

/**
 * The result of a run the ledger knows as complete, read from its manifest (latest.json repaired as
 * a rerun repairs it), or undefined when the run is not complete. A rerun of a published run needs
 * nothing of the planning API: the job asks this before it plans, so a rerun while the API is down
 * finds the run published instead of failing as if nothing had been.
 */
export async function publishedRun(draft: RunDraft, context: RunContext): Promise<ExportResult | undefined> {
  const key = await completedManifest(context, { report: draft.definition.name, runId: draft.runId });
  if (key === undefined) return undefined;
  const done = await completedRun(context.storage, key, context.log, draft.runId);
  return { ...done, ...(await publishLatestOf(context, done.manifest, done.manifestKey)) };
}

/**
 * Runs `write` under the run's lease. A run the ledger knows as complete, or whose intact manifest
 * an earlier attempt published, is not written again. On failure the attempt removes what it wrote
 * itself and releases the lease; what it could not remove stays recorded for the next attempt.
 */
export async function withRunAttempt(run: PlannedRun, context: RunContext, write: (attempt: RunInProgress) => Promise<WrittenRun>): Promise<ExportResult> {
  const { storage, log } = context;
  const { runId } = run;
  const report = run.definition.name;
  const metadata = { report, 'run-id': runId };
  // Before anything else: a run of the report cut off between its table copies is finished first.
  await rollForward(context, report, runId);
  const leased = await RunLease.acquire(context, { report, runId });
  if (leased.kind === 'publishing') await finishPublishing(context, leased, metadata);
  if (leased.kind === 'complete' || leased.kind === 'publishing') {
    const done = await completedRun(storage, leased.manifestKey, log, runId);
    // A rerun of a complete run repairs latest.json if an earlier attempt could not write it.
    return { ...done, ...(await publishLatestOf(context, done.manifest, done.manifestKey)) };
  }
  const runDate = run.runDate ?? leased.startedAt;
  const runFolder = runFolderKey(report, runDate, run.definition.timeZone, runId);
  const { lease } = leased;
  const written = await recover(context, { report, runId }, leased, runFolder).then(
    async (published) => published ?? (await writeRun()),
    async (error: unknown) => {
      await lease.release([], []).catch(() => false);
      throw error;
    },
  );
  const { manifest } = written.run;
  const key = written.manifestKey;
  const latest = await publishLatestOf(context, manifest, key);
  log.info(written.written ? 'export complete' : 'run already complete; not exporting again', {
    runId, manifest: key, rows: manifest.summary.rows, latestUpdated: latest.latestUpdated,
  });
  return { ...written.run, manifestKey: key, runFolder, written: written.written, ...latest };

  async function writeRun(): Promise<{ run: WrittenRun; written: boolean; manifestKey: string }> {
    lease.startHeartbeat();
    const writer = new RunWriter({ storage, lease, runFolder, metadata, onProgress: context.onProgress ?? (() => undefined), log });
    const chosen = await writeAndChoose(writer);
    // The run's content is chosen: from here the holder only copies its table files into the
    // table prefixes and completes the run (a failure leaves it for the next attempt to finish).
    await publishTables({ storage, lease, copies: writer.tableCopies, metadata, log }, chosen.manifestKey);
    return chosen;
  }

  async function writeAndChoose(writer: RunWriter): Promise<{ run: WrittenRun; written: boolean; manifestKey: string }> {
    try {
      const run = await write({ writer, runFolder, runStart: leased.startedAt, runDate });
      const key = await writer.putManifest(manifestKey(runFolder), JSON.stringify(run.manifest, null, 2));
      lease.check();
      // The fence: the run's manifest is chosen by this compare-and-swap, which fails once another attempt holds it.
      await lease.publishing(key, writer.tableCopies);
      return { run, written: true, manifestKey: key };
    } catch (error) {
      lease.stopHeartbeat();
      // A stale attempt may fail anywhere (a file the holder removed, a renewal refused): say why once.
      const loss = await lease.loss().catch(() => undefined);
      await writer.cleanUp(error);
      if (loss && !(error instanceof LeaseLostError)) throw new LeaseLostError(loss.error.message, { cause: error });
      throw error;
    }
  }
}

/**
 * Moves the ledger's `latest` to this run if it is the newest and mirrors it to latest.json. The
 * run is published before this, so a failure here is reported, not thrown: the ledger stays the
 * truth and the next publish (any later run, or a rerun of this run id) writes latest.json again.
 */
async function publishLatestOf(
  context: RunContext,
  manifest: Manifest,
  key: string,
): Promise<{ latestUpdated: boolean; latestProblem: string | undefined }> {
  const { storage, ledger, clock, log } = context;
  const pointer = { report: manifest.report, runId: manifest.runId, generatedAt: manifest.generatedAt, manifest: key };
  try {
    return { latestUpdated: await publishLatest({ storage, ledger, pointer, now: clock(), log }), latestProblem: undefined };
  } catch (error) {
    const problem = `latest.json could not be updated (${errorMessage(error)}); the run is published and the next run, or a rerun of run id "${manifest.runId}", writes latest.json again`;
    log.warn('run published but latest.json not updated', { runId: manifest.runId, error: errorMessage(error) });
    return { latestUpdated: false, latestProblem: problem };
  }
}

type Acquired = Extract<LeaseOutcome, { kind: 'acquired' }>;

/**
 * An earlier attempt died (or failed) while it copied the chosen manifest's table files into the
 * table prefixes: this attempt finishes the copies, with the same keys, and completes the run.
 */
async function finishPublishing(context: RunContext, leased: Extract<LeaseOutcome, { kind: 'publishing' }>, metadata: Readonly<Record<string, string>>): Promise<void> {
  const { log } = context;
  log.warn('an earlier attempt of this run stopped while publishing its tables; finishing the copies', {
    runId: metadata['run-id'], manifest: leased.manifestKey, tables: leased.copies.length,
  });
  await finishCopies(context.storage, leased, metadata, log);
}

/**
 * An earlier attempt may have died after publishing its manifest but before the ledger heard of it
 * (then the run is complete), or have left files behind (then they are removed before writing).
 */
async function recover(
  context: RunContext,
  { report, runId }: { readonly report: string; readonly runId: string },
  leased: Acquired,
  runFolder: string,
): Promise<{ run: WrittenRun; written: boolean; manifestKey: string } | undefined> {
  const { storage, log } = context;
  // A manifest an attempt recorded as its own is debris until the ledger completes it: removed below.
  // One at the plain key that no attempt recorded was published before the ledger heard of it.
  const plain = manifestKey(runFolder);
  const published = leased.debris.includes(plain) ? undefined : await verifiedManifest(storage, runFolder, plain);
  if (published) {
    await leased.lease.complete(plain);
    return {
      run: { manifest: published, summary: summaryFromManifest(published), summaries: summariesFromManifest(published), changes: changeReportFromManifest(published) },
      written: false,
      manifestKey: plain,
    };
  }
  if (!leased.takenOver) return undefined;
  // Debris of the attempts before: exactly what they recorded, plus unfinished temp files.
  // The run folder, the run's staging area, and (from before staging) its files under tables/.
  const staging = `${stagingFolderKey(report, runId)}/`;
  const ofThisRun = (key: string) =>
    key.startsWith(`${runFolder}/`) || key.startsWith(staging) || (key.startsWith(`${report}/tables/`) && key.includes(`/run=${runId}/`));
  const debris = leased.debris.filter(ofThisRun);
  if (debris.length > 0) {
    log.warn('removing what an earlier attempt of this run left behind', { runId, objects: debris.length });
    await storage.deleteObjects(debris);
  }
  await storage.removeIncomplete(`${runFolder}/`);
  await storage.removeIncomplete(staging);
  for (const folder of new Set(debris.filter((k) => !k.startsWith(`${runFolder}/`)).map((k) => k.slice(0, k.lastIndexOf('/') + 1)))) {
    await storage.removeIncomplete(folder);
  }
  await leased.lease.renew({ removeKeys: debris });
  return undefined;
}

/** The run's manifest if one is stored and every file it lists is intact; else undefined. */
async function verifiedManifest(storage: Storage, runFolder: string, key: string): Promise<Manifest | undefined> {
  const bytes = await storage.getObject(key);
  if (!bytes) return undefined;
  try {
    const manifest = manifestSchema.parse(JSON.parse(Buffer.from(bytes).toString('utf8')));
    await verifyStored(storage, [
      ...manifest.files.map((f) => ({ ...f, key: `${runFolder}/${f.path}` })),
      ...(manifest.tables ?? []).map((f) => ({ ...f, key: `${manifest.report}/${f.path}` })),
    ]);
    return manifest;
  } catch {
    return undefined;
  }
}

async function completedRun(storage: Storage, key: string, log: Log, runId: string): Promise<ExportResult> {
  const bytes = await storage.getObject(key);
  if (!bytes) {
    throw new StorageError(`run "${runId}" is complete in the ledger but its manifest ${storage.describe(key)} is gone (expired?); export with a new run id`);
  }
  log.info('run already complete; not exporting again', { runId, manifest: key });
  const manifest = manifestSchema.parse(JSON.parse(Buffer.from(bytes).toString('utf8')));
  const runFolder = key.slice(0, key.lastIndexOf('/'));
  return {
    manifest, manifestKey: key, runFolder, summary: summaryFromManifest(manifest), summaries: summariesFromManifest(manifest), written: false, latestUpdated: false,
    latestProblem: undefined, changes: changeReportFromManifest(manifest),
  };
}
