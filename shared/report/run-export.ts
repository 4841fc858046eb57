import type { Storage, ObjectUpload } from '../storage/storage';
import { StorageError } from '../core/errors';
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
import { labelled } from './tables/labels';
import { mergeFigures } from './field-audit';
import { newRunId, RUN_ID_PATTERN } from './run-id';
import { cleanUp, fileEntry, verifiedManifest, verifyStored } from './run-files';
import { RunLease } from './run-lease';
import { buildSummary, summaryFromManifest } from './run-summary';
import type { ReportSummary, TableSink } from '../table/table';
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
        ...mergeFigures(datasets.map((d) => d.figures())),
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
