import type { Storage, ObjectUpload, StoredObject } from '../storage/storage';
import { errorMessage, StorageError } from '../core/errors';
import type { Ledger } from '../ledger/ledger';
import { silentLog, type Log } from '../core/logger';
import { openCsvSink } from '../render/csv';
import { openXlsxWorkbook, type XlsxWorkbook } from '../render/xlsx/workbook';
import type { Dataset, DatasetContext, ProgressEvent } from './dataset';
import type { ReportDefinition } from './definition';
import { isoDateInZone } from './dates';
import { CONTENT_TYPES, manifestKey, runFolderKey, tableFileKey } from './layout';
import { publishLatest } from './latest-pointer';
import { manifestSchema, type Manifest, type ManifestFile, type ManifestTableFile } from './manifest';
import { PeopleDirectory } from './people';
import type { PlanningSource } from './planning-source';
import { composeSummary } from './summary/compose';
import { labelled } from './tables/labels';
import { newRunId, RUN_ID_PATTERN } from './run-id';
import { RunLease } from './run-lease';
import type { ReportSummary, SummarySection, TableSink } from '../table/table';
import { boardItemsDataset } from './tables/board-items';
import { okrsDataset } from './tables/okrs';
import { piObjectivesDataset } from './tables/pi-objectives';
import { risksDataset } from './tables/risks';
import type { RunTrigger } from './changes/manifest-changes';
import type { ChangeReport } from './changes/model';
import { CHANGES_CSV, changeReportFromManifest, writeChangesCsv } from './changes/outputs';
import { startChangeTracking } from './changes/tracker';
import { withDeltas } from './changes/deltas';
import { CHANGES_SHEET_NAME, changesSheetContent } from './changes/sheet';
import { openTableFiles } from './table-files';

export interface ExportDependencies {
  readonly source: PlanningSource;
  readonly storage: Storage;
  /** Where attempts of a run agree who writes and where `latest` points (see shared/ledger/). */
  readonly ledger: Ledger;
  /** Lease duration (tests); the default suits Lambda and the command line. */
  readonly leaseMs?: number;
  /** Where the data came from, for the manifest: never the API key. */
  readonly sourceInfo: Manifest['source'];
  readonly log?: Log;
  readonly now?: () => Date;
  /** Supplied by callers that retry (a schedule, an API job) so a second attempt reuses the keys. */
  readonly runId?: string;
  /**
   * The date of the `dt=` partition (a schedule's time); defaults to the start of the run's first
   * attempt, as recorded by its lease, so a retry after midnight lands in the same folder.
   */
  readonly runDate?: Date;
  readonly onProgress?: (event: ProgressEvent) => void;
  /** Scheduled and on-demand runs are compared only with runs of their own kind (docs/changes.md). */
  readonly trigger?: RunTrigger;
}

export interface ExportResult {
  readonly manifest: Manifest;
  readonly manifestKey: string;
  readonly runFolder: string;
  readonly summary: ReportSummary;
  /** False when a previous attempt of the same run id had already completed: nothing was written. */
  readonly written: boolean;
  readonly latestUpdated: boolean;
  /** What changed since the baseline run (docs/changes.md). */
  readonly changes: ChangeReport;
}

const DATASET_ORDER = [
  ['risks', risksDataset],
  ['okrs', okrsDataset],
  ['piObjectives', piObjectivesDataset],
  ['boardItems', boardItemsDataset],
] as const;

/** Rows between progress events: often enough for a terminal, rare enough to cost nothing. */
const PROGRESS_EVERY = 2_000;

/**
 * Runs one export: fetches every dataset of the definition, streams each table into its worksheet
 * and its CSV file at the same time, stores the files, then publishes `manifest.json` and, if this
 * run is the newest, `latest.json`.
 *
 * Publishing is atomic for readers (docs/run-atomicity.md): the attempt first takes a lease on
 * (report, run id) in the ledger, so no other attempt of the run writes at the same time; the
 * manifest is written only after every file it lists has been read back and matched; latest.json
 * only after the ledger moved `latest` forward. On failure the attempt deletes what it wrote itself
 * (uploads in flight are aborted) and releases the lease; what it could not delete stays recorded for
 * the next attempt. A run the ledger knows as complete is not run again.
 */
export async function runExport(definition: ReportDefinition, deps: ExportDependencies): Promise<ExportResult> {
  const log = deps.log ?? silentLog;
  const now = deps.now ?? (() => new Date());
  const startedAt = now();
  const runId = deps.runId ?? newRunId(startedAt);
  if (!RUN_ID_PATTERN.test(runId)) {
    throw new StorageError(`run id "${runId}" must be 1-100 letters, digits, ".", "_" or "-"`);
  }
  const leased = await RunLease.acquire({
    ledger: deps.ledger,
    report: definition.name,
    runId,
    now,
    log,
    ...(deps.leaseMs !== undefined && { leaseMs: deps.leaseMs }),
  });
  const runStart = leased.startedAt;
  const runFolder = runFolderKey(definition.name, deps.runDate ?? runStart, definition.timeZone, runId);
  const ownManifestKey = manifestKey(runFolder);
  if (leased.kind === 'complete') return await completedRun(deps.storage, leased.manifestKey, log, runId);
  const lease = leased.lease;

  try {
    // A previous attempt died after publishing its manifest but before the ledger heard of it.
    const published = await verifiedManifest(deps.storage, runFolder, ownManifestKey);
    if (published) {
      await lease.complete(ownManifestKey);
      // It may have died before latest.json, too.
      const latestUpdated = await publishLatest({
        storage: deps.storage,
        ledger: deps.ledger,
        pointer: { report: published.report, runId: published.runId, generatedAt: published.generatedAt, manifest: ownManifestKey },
        now: now(),
        log,
      });
      log.info('run already complete; not exporting again', { runId, manifest: ownManifestKey });
      return {
        manifest: published, manifestKey: ownManifestKey, runFolder, summary: summaryFromManifest(published), written: false, latestUpdated,
        changes: changeReportFromManifest(published),
      };
    }
    if (leased.takenOver) {
      // Debris of the attempts before: exactly what they recorded, plus unfinished temp files.
      // The run folder, and this run's Parquet files under the report's tables/ prefix.
      const ofThisRun = (key: string) =>
        key.startsWith(`${runFolder}/`) || (key.startsWith(`${definition.name}/tables/`) && key.includes(`/run=${runId}/`));
      const debris = leased.debris.filter(ofThisRun);
      if (debris.length > 0) {
        log.warn('removing what an earlier attempt of this run left behind', { runId, objects: debris.length });
        await deps.storage.deleteObjects(debris);
      }
      await deps.storage.removeIncomplete(`${runFolder}/`);
      for (const folder of new Set(debris.filter((k) => !k.startsWith(`${runFolder}/`)).map((k) => k.slice(0, k.lastIndexOf('/') + 1)))) {
        await deps.storage.removeIncomplete(folder);
      }
      await lease.renew({ removeKeys: debris });
    }
  } catch (error) {
    await lease.release([], []).catch(() => false);
    throw error;
  }
  lease.startHeartbeat();

  const progress = deps.onProgress ?? (() => undefined);
  const open = new Set<ObjectUpload>();
  /** Keys this attempt wrote or began to write: all it may ever delete. */
  const mine = new Set<string>();
  const metadata = { report: definition.name, 'run-id': runId };
  /** Recorded in the ledger before the first byte, so a crash leaves debris the next attempt can find. */
  const claim = async (key: string) => {
    lease.check();
    await lease.renew({ addKeys: [key] });
    mine.add(key);
  };
  const upload = async (name: string, format: 'xlsx' | 'csv') => {
    await claim(`${runFolder}/${name}`);
    const u = deps.storage.openUpload(`${runFolder}/${name}`, {
      contentType: CONTENT_TYPES[format],
      downloadName: format === 'xlsx' ? name : `${definition.name}-${name}`,
      metadata,
    });
    open.add(u);
    return u;
  };
  const finish = async (u: ObjectUpload) => {
    const object = await u.done;
    open.delete(u);
    progress({ type: 'file-stored', path: object.key, bytes: object.bytes });
    return object;
  };

  try {
    const files: ManifestFile[] = [];
    const tableRows: Record<string, number> = {};
    const ctx: DatasetContext = { source: deps.source, definition, log, people: new PeopleDirectory(), now: () => startedAt };
    // --- changes hook (docs/changes.md): snapshots and the comparison with the baseline run.
    const changeTracker = await startChangeTracking({
      storage: deps.storage,
      definition,
      trigger: deps.trigger ?? 'on-demand',
      startedAt: runStart,
      log,
      openUpload: async (path, contentType) => {
        await claim(`${runFolder}/${path}`);
        const u = deps.storage.openUpload(`${runFolder}/${path}`, { contentType, metadata });
        open.add(u);
        return u;
      },
      // Snapshots are the run's own bookkeeping, not files for people: no file-stored progress event.
      stored: async (u) => {
        const object = await u.done;
        open.delete(u);
        return object;
      },
    });
    const datasets: Dataset[] = DATASET_ORDER.filter(([name]) => definition.datasets[name] !== undefined).map(
      ([, create]) => create(ctx),
    );

    const wantsXlsx = definition.formats.includes('xlsx');
    const wantsCsv = definition.formats.includes('csv');
    // Parquet (issue 13): one file per table under <report>/tables/, see table-files.ts.
    const tableFiles = definition.formats.includes('parquet')
      ? openTableFiles({
          storage: deps.storage, report: definition.name, runId, runDate: deps.runDate ?? runStart, timeZone: definition.timeZone,
          exportedAt: startedAt, metadata, log, track: (u) => open.add(u), stored: finish,
        })
      : undefined;
    const tableFileEntries: ManifestTableFile[] = [];
    const workbookName = `${definition.name}.xlsx`;
    const xlsxUpload = wantsXlsx ? await upload(workbookName, 'xlsx') : undefined;
    const workbook: XlsxWorkbook | undefined = xlsxUpload
      ? openXlsxWorkbook(xlsxUpload.stream, {
          timeZone: definition.timeZone,
          creator: 'planning-report-exporter',
          title: definition.title ?? definition.name,
          leadingSheets: [CHANGES_SHEET_NAME],
          footer: `${definition.title ?? definition.name} – ${isoDateInZone(startedAt, definition.timeZone)}`,
        })
      : undefined;

    for (const dataset of datasets) {
      progress({ type: 'dataset', dataset: dataset.name });
      log.info('exporting dataset', { dataset: dataset.name });
      for await (const output of dataset.tables()) {
        const { table, rows } = { ...output, table: labelled(output.table) };
        const sinks: TableSink[] = [];
        if (workbook) sinks.push(workbook.openSheet(table, { outlineLevels: table.outlineLevels ?? 0 }));
        const csvName = `${table.name}.csv`;
        const csvUpload = wantsCsv ? await upload(csvName, 'csv') : undefined;
        if (csvUpload) {
          sinks.push(openCsvSink(table, csvUpload.stream, {
            bom: definition.csv.bom, timeZone: definition.timeZone, neutraliseFormulas: definition.csv.neutraliseFormulas,
          }));
        }
        if (tableFiles) {
          await claim(tableFileKey(definition.name, table.name, deps.runDate ?? runStart, definition.timeZone, runId));
          sinks.push(tableFiles.open(table));
        }
        const tracked = await changeTracker.openTable(dataset.name, table, dataset.resolvedSelectors());
        if (tracked) sinks.push(tracked);
        let count = 0;
        for await (const row of rows) {
          for (const sink of sinks) {
            const pending = sink.writeRow(row);
            if (pending) await pending;
          }
          if (++count % PROGRESS_EVERY === 0) progress({ type: 'rows', table: table.name, rows: count });
        }
        for (const sink of sinks) await sink.close();
        tableRows[table.name] = count;
        progress({ type: 'table-done', table: table.name, rows: count });
        if (csvUpload) {
          const object = await finish(csvUpload);
          await deps.storage.annotate(`${runFolder}/${csvName}`, { ...metadata, rows: String(count) });
          files.push(fileEntry(object, runFolder, 'csv', { [table.name]: count }));
        }
        if (tableFiles) tableFileEntries.push(await tableFiles.finish(table.name, count));
      }
    }

    const changed = await changeTracker.finish();
    if (wantsCsv) {
      const changesUpload = await upload(CHANGES_CSV, 'csv');
      const count = await writeChangesCsv(changed.report, changesUpload.stream, { bom: definition.csv.bom, timeZone: definition.timeZone });
      const object = await finish(changesUpload);
      await deps.storage.annotate(`${runFolder}/${CHANGES_CSV}`, { ...metadata, rows: String(count) });
      files.push(fileEntry(object, runFolder, 'csv', { changes: count }));
    }
    if (workbook) await workbook.writeLeadingSheet(CHANGES_SHEET_NAME, changesSheetContent(changed.report, definition.timeZone));
    // --- end of the changes hook
    const summary = withDeltas(buildSummary(definition, runId, runStart, deps.sourceInfo, tableRows, datasets), changed.report, definition.timeZone);
    if (workbook && xlsxUpload) {
      await workbook.writeSummary(summary);
      await workbook.close();
      const object = await finish(xlsxUpload);
      const total = Object.values(tableRows).reduce((a, b) => a + b, 0);
      await deps.storage.annotate(`${runFolder}/${workbookName}`, { ...metadata, rows: String(total) });
      files.unshift(fileEntry(object, runFolder, 'xlsx', tableRows));
    }

    const schemaChanges = await tableFiles?.publishSchemas();
    // Through JSON and back, so the manifest returned is exactly what readers of manifest.json get.
    const manifest: Manifest = manifestSchema.parse(JSON.parse(JSON.stringify({
      formatVersion: 1,
      report: definition.name,
      runId,
      generatedAt: runStart.toISOString(),
      timeZone: definition.timeZone,
      source: deps.sourceInfo,
      selectors: {
        requested: definition.datasets,
        resolved: Object.fromEntries(datasets.map((d) => [d.name, d.resolvedSelectors()])),
      },
      files,
      ...(tableFiles && { tables: tableFileEntries, schemas: tableFiles.schemas(), schemaChanges }),
      summary: {
        title: summary.title,
        rows: tableRows,
        ...datasets.reduce<Record<string, unknown>>((all, d) => ({ ...all, ...d.figures() }), {}),
        sections: summary.sections,
      },
      changes: changed.manifest,
    })));
    // No reader may see a manifest whose files are missing or differ: read back what is stored.
    await verifyStored(deps.storage, [
      ...files.map((f) => ({ ...f, key: `${runFolder}/${f.path}` })),
      ...tableFileEntries.map((f) => ({ ...f, key: `${definition.name}/${f.path}` })),
      ...changed.manifest.snapshots.map((f) => ({ ...f, key: `${runFolder}/${f.path}` })),
    ]);
    await claim(ownManifestKey);
    await deps.storage.putObject(ownManifestKey, JSON.stringify(manifest, null, 2), { contentType: CONTENT_TYPES.json });
    lease.check();
    await lease.complete(ownManifestKey);
    const latestUpdated = await publishLatest({
      storage: deps.storage,
      ledger: deps.ledger,
      pointer: { report: manifest.report, runId: manifest.runId, generatedAt: manifest.generatedAt, manifest: ownManifestKey },
      now: now(),
      log,
    });
    log.info('export complete', { runId, manifest: ownManifestKey, rows: tableRows, latestUpdated });
    return { manifest, manifestKey: ownManifestKey, runFolder, summary, written: true, latestUpdated, changes: changed.report };
  } catch (error) {
    lease.stopHeartbeat();
    await cleanUp(deps.storage, lease, runFolder, open, mine, error, log);
    throw error;
  }
}

/** Checks every listed file against what the store holds now (size and sha256, re-read). */
async function verifyStored(
  storage: Storage,
  files: readonly { readonly key: string; readonly bytes: number; readonly sha256: string }[],
): Promise<void> {
  for (const file of files) {
    const { key } = file;
    const actual = await storage.hashObject(key);
    if (!actual || actual.bytes !== file.bytes || actual.sha256 !== file.sha256) {
      throw new StorageError(
        `${storage.describe(key)} is not what this run wrote (${actual ? `${actual.bytes} bytes, sha256 ${actual.sha256.slice(0, 12)}…` : 'missing'}; ` +
          `expected ${file.bytes} bytes, sha256 ${file.sha256.slice(0, 12)}…); the manifest was not published`,
      );
    }
  }
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
    manifest, manifestKey: key, runFolder, summary: summaryFromManifest(manifest), written: false, latestUpdated: false,
    changes: changeReportFromManifest(manifest),
  };
}

function fileEntry(object: StoredObject, runFolder: string, format: 'xlsx' | 'csv', rows: Record<string, number>): ManifestFile {
  return {
    path: object.key.slice(object.key.lastIndexOf(`${runFolder}/`) + runFolder.length + 1),
    format,
    contentType: CONTENT_TYPES[format],
    bytes: object.bytes,
    sha256: object.sha256,
    rows: { ...rows },
  };
}

/**
 * A failed attempt removes what it wrote itself, and only while it still holds the lease: after a
 * takeover the same keys belong to the attempt that took over. Never the whole run folder.
 */
async function cleanUp(
  storage: Storage,
  lease: RunLease,
  runFolder: string,
  open: Set<ObjectUpload>,
  mine: Set<string>,
  error: unknown,
  log: Log,
): Promise<void> {
  const reason = error instanceof Error ? error : new Error(String(error));
  log.warn('export failed; removing what this attempt wrote', { runFolder, error: reason.message, objects: mine.size });
  await Promise.allSettled([...open].map((u) => u.abort(reason)));
  const keys = [...mine];
  try {
    if (!(await lease.held())) {
      log.warn('this attempt no longer holds the run; leaving its files to the attempt that does', { runFolder });
      return;
    }
    if (keys.length > 0) await storage.deleteObjects(keys);
    await lease.release([], keys);
  } catch (cleanupError) {
    // The original failure is what the user must see; what is left stays recorded as debris.
    log.error('could not remove the partial run', { runFolder, error: errorMessage(cleanupError) });
    await lease.release(keys, []).catch(() => false);
  }
}

/** Labels of the Summary's Scope lines, in the words of the planning tool rather than the code. */
const SCOPE_LABELS: Readonly<Record<string, string>> = {
  'risks.registers': 'Risk registers',
  'okrs.strategicThemes': 'Strategic themes',
  'piObjectives.boards': 'PI objectives: boards',
  'piObjectives.completionType': 'PI objectives: completion type',
  'piObjectives.additionalColumns': 'PI objectives: teams and sprints',
  'boardItems.boards': 'Board items: boards',
};

function scopeValue(value: unknown): string {
  if (Array.isArray(value)) {
    const names = value.map((v: { key?: string | null; title?: string | null; id: string }) => `${v.key ?? v.id} ${v.title ?? ''}`.trim());
    return names.join('; ') || '(none visible)';
  }
  if (value === null || value === undefined) return 'board default';
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  return typeof value === 'string' || typeof value === 'number' ? String(value) : '';
}

function buildSummary(
  definition: ReportDefinition,
  runId: string,
  startedAt: Date,
  source: Manifest['source'],
  rows: Record<string, number>,
  datasets: readonly Dataset[],
): ReportSummary {
  const exportSection: SummarySection = {
    heading: 'About this report',
    role: 'about',
    lines: [
      { label: 'Report', value: definition.title ?? definition.name },
      { label: 'Run id', value: runId },
      { label: 'Generated at', value: startedAt, type: 'datetime' },
      { label: 'Time zone', value: definition.timeZone },
      { label: 'Planning API', value: source.baseUrl },
      { label: 'Legacy API', value: source.legacyBaseUrl },
      { label: 'Company prefix', value: source.companyPrefix },
      { label: 'Exported as', value: source.email },
    ],
  };
  const scope: SummarySection = {
    heading: 'Scope',
    role: 'about',
    lines: datasets.flatMap((d) =>
      Object.entries(d.resolvedSelectors()).map(([what, value]) => ({
        label: SCOPE_LABELS[`${d.name}.${what}`] ?? `${d.name} ${what}`,
        value: scopeValue(value),
      })),
    ),
  };
  const rowSection: SummarySection = {
    heading: 'Rows',
    role: 'about',
    lines: Object.entries(rows).map(([table, n]) => ({ label: table, value: n, type: 'integer' as const })),
  };
  return composeSummary(definition.title ?? definition.name, [
    ...datasets.flatMap((d) => d.summary()),
    exportSection,
    scope,
    rowSection,
  ]);
}

/** The summary of a completed run, rebuilt from its manifest (an idempotent re-run returns it). */
function summaryFromManifest(manifest: Manifest): ReportSummary {
  const sections = manifest.summary.sections;
  return {
    title: typeof manifest.summary.title === 'string' ? manifest.summary.title : manifest.report,
    sections: Array.isArray(sections) ? (sections as SummarySection[]) : [],
  };
}
