import type { Storage, ObjectUpload, StoredObject } from '../storage/storage';
import { errorMessage, StorageError } from '../core/errors';
import { silentLog, type Log } from '../core/logger';
import { openCsvSink } from '../render/csv';
import { openXlsxWorkbook, type XlsxWorkbook } from '../render/xlsx/workbook';
import type { Dataset, DatasetContext, ProgressEvent } from './dataset';
import type { ReportDefinition } from './definition';
import { CONTENT_TYPES, latestKey, manifestKey, runFolderKey } from './layout';
import { latestPointerSchema, manifestSchema, type Manifest, type ManifestFile } from './manifest';
import { PeopleDirectory } from './people';
import type { PlanningSource } from './planning-source';
import { composeSummary } from './summary/compose';
import { labelled } from './tables/labels';
import { newRunId, RUN_ID_PATTERN } from './run-id';
import type { ReportSummary, SummarySection, TableSink } from '../table/table';
import { boardItemsDataset } from './tables/board-items';
import { okrsDataset } from './tables/okrs';
import { piObjectivesDataset } from './tables/pi-objectives';
import { risksDataset } from './tables/risks';

export interface ExportDependencies {
  readonly source: PlanningSource;
  readonly storage: Storage;
  /** Where the data came from, for the manifest: never the API key. */
  readonly sourceInfo: Manifest['source'];
  readonly log?: Log;
  readonly now?: () => Date;
  /** Supplied by callers that retry (a schedule, an API job) so a second attempt reuses the keys. */
  readonly runId?: string;
  /** The date of the `dt=` partition; defaults to the start of the run. */
  readonly runDate?: Date;
  readonly onProgress?: (event: ProgressEvent) => void;
}

export interface ExportResult {
  readonly manifest: Manifest;
  readonly manifestKey: string;
  readonly runFolder: string;
  readonly summary: ReportSummary;
  /** False when a previous attempt of the same run id had already completed: nothing was written. */
  readonly written: boolean;
  readonly latestUpdated: boolean;
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
 * Publishing is atomic for readers: the manifest is written only after every file it lists is
 * stored, and latest.json after the manifest. On failure every object of the run is deleted
 * (uploads in flight are aborted), so a failed run leaves no manifest, no latest.json change and
 * no files behind. A run id whose manifest already exists is complete and is not run again.
 */
export async function runExport(definition: ReportDefinition, deps: ExportDependencies): Promise<ExportResult> {
  const log = deps.log ?? silentLog;
  const now = deps.now ?? (() => new Date());
  const startedAt = now();
  const runId = deps.runId ?? newRunId(startedAt);
  if (!RUN_ID_PATTERN.test(runId)) {
    throw new StorageError(`run id "${runId}" must be 1-100 letters, digits, ".", "_" or "-"`);
  }
  const runFolder = runFolderKey(definition.name, deps.runDate ?? startedAt, definition.timeZone, runId);
  const ownManifestKey = manifestKey(runFolder);

  const previous = await deps.storage.getObject(ownManifestKey);
  if (previous) {
    log.info('run already complete; not exporting again', { runId, manifest: ownManifestKey });
    const manifest = manifestSchema.parse(JSON.parse(Buffer.from(previous).toString('utf8')));
    return { manifest, manifestKey: ownManifestKey, runFolder, summary: summaryFromManifest(manifest), written: false, latestUpdated: false };
  }

  const progress = deps.onProgress ?? (() => undefined);
  const open = new Set<ObjectUpload>();
  const stored: StoredObject[] = [];
  const metadata = { report: definition.name, 'run-id': runId };
  const upload = (name: string, format: 'xlsx' | 'csv') => {
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
    stored.push(object);
    progress({ type: 'file-stored', path: object.key, bytes: object.bytes });
    return object;
  };

  try {
    const files: ManifestFile[] = [];
    const tableRows: Record<string, number> = {};
    const ctx: DatasetContext = { source: deps.source, definition, log, people: new PeopleDirectory(), now: () => startedAt };
    const datasets: Dataset[] = DATASET_ORDER.filter(([name]) => definition.datasets[name] !== undefined).map(
      ([, create]) => create(ctx),
    );

    const wantsXlsx = definition.formats.includes('xlsx');
    const wantsCsv = definition.formats.includes('csv');
    const workbookName = `${definition.name}.xlsx`;
    const xlsxUpload = wantsXlsx ? upload(workbookName, 'xlsx') : undefined;
    const workbook: XlsxWorkbook | undefined = xlsxUpload
      ? openXlsxWorkbook(xlsxUpload.stream, {
          timeZone: definition.timeZone,
          creator: 'planning-report-exporter',
          title: definition.title ?? definition.name,
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
        const csvUpload = wantsCsv ? upload(csvName, 'csv') : undefined;
        if (csvUpload) {
          sinks.push(openCsvSink(table, csvUpload.stream, { bom: definition.csv.bom, timeZone: definition.timeZone }));
        }
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
      }
    }

    const summary = buildSummary(definition, runId, startedAt, deps.sourceInfo, tableRows, datasets);
    if (workbook && xlsxUpload) {
      await workbook.writeSummary(summary);
      await workbook.close();
      const object = await finish(xlsxUpload);
      const total = Object.values(tableRows).reduce((a, b) => a + b, 0);
      await deps.storage.annotate(`${runFolder}/${workbookName}`, { ...metadata, rows: String(total) });
      files.unshift(fileEntry(object, runFolder, 'xlsx', tableRows));
    }

    // Through JSON and back, so the manifest returned is exactly what readers of manifest.json get.
    const manifest: Manifest = manifestSchema.parse(JSON.parse(JSON.stringify({
      formatVersion: 1,
      report: definition.name,
      runId,
      generatedAt: startedAt.toISOString(),
      timeZone: definition.timeZone,
      source: deps.sourceInfo,
      selectors: {
        requested: definition.datasets,
        resolved: Object.fromEntries(datasets.map((d) => [d.name, d.resolvedSelectors()])),
      },
      files,
      summary: {
        title: summary.title,
        rows: tableRows,
        ...datasets.reduce<Record<string, unknown>>((all, d) => ({ ...all, ...d.figures() }), {}),
        sections: summary.sections,
      },
    })));
    await deps.storage.putObject(ownManifestKey, JSON.stringify(manifest, null, 2), { contentType: CONTENT_TYPES.json });
    const latestUpdated = await publishLatest(deps.storage, manifest, ownManifestKey);
    log.info('export complete', { runId, manifest: ownManifestKey, rows: tableRows, latestUpdated });
    return { manifest, manifestKey: ownManifestKey, runFolder, summary, written: true, latestUpdated };
  } catch (error) {
    await cleanUp(deps.storage, runFolder, open, stored, error, log);
    throw error;
  }
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
 * latest.json moves forward only: a late retry of an older run must not point readers back in time.
 */
async function publishLatest(storage: Storage, manifest: Manifest, key: string): Promise<boolean> {
  const pointerKey = latestKey(manifest.report);
  const existing = await storage.getObject(pointerKey);
  if (existing) {
    const parsed = latestPointerSchema.safeParse(JSON.parse(Buffer.from(existing).toString('utf8')));
    if (parsed.success && parsed.data.generatedAt > manifest.generatedAt) return false;
  }
  const pointer = { report: manifest.report, runId: manifest.runId, generatedAt: manifest.generatedAt, manifest: key };
  await storage.putObject(pointerKey, JSON.stringify(pointer, null, 2), { contentType: CONTENT_TYPES.json });
  return true;
}

async function cleanUp(
  storage: Storage,
  runFolder: string,
  open: Set<ObjectUpload>,
  stored: StoredObject[],
  error: unknown,
  log: Log,
): Promise<void> {
  const reason = error instanceof Error ? error : new Error(String(error));
  log.warn('export failed; removing the partial run', { runFolder, error: reason.message });
  await Promise.allSettled([...open].map((u) => u.abort(reason)));
  try {
    const keys = new Set([...stored.map((s) => s.key), ...(await storage.listKeys(`${runFolder}/`))]);
    if (keys.size > 0) await storage.deleteObjects([...keys]);
  } catch (cleanupError) {
    // The original failure is what the user must see; a failed clean-up is logged for operators.
    log.error('could not remove the partial run', {
      runFolder,
      error: errorMessage(cleanupError),
    });
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
