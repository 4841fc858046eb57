import type { Wait } from './run-lease';
import type { Storage } from '../../storage/storage';
import { StorageError } from '../../core/errors';
import type { Ledger } from '../../ledger/ledger';
import { silentLog, type Log } from '../../core/logger';
import { readerFormat } from '../../core/format';
import type { Dataset, DatasetContext, ProgressEvent } from '../dataset/dataset';
import type { ReportDefinition } from '../definition/definition';
import { manifestSchemaFor, type Manifest, type RunPath } from '../manifest/manifest';
import { manifestFiguresSchema } from '../manifest/manifest-summary';
import { PeopleDirectory } from '../dataset/people';
import type { PlanningSource } from '../plan/planning-source';
import { labelled } from '../tables/labels';
import { mergeFigures } from '../dataset/field-audit';
import { newRunId, RUN_ID_PATTERN } from './run-id';
import { withRunAttempt, type ExportResult, type RunAttemptOptions, type RunInProgress } from './run-attempt';
import { buildSummary } from '../summary/run-summary';
import { planExport, type ExportPlan } from '../plan/export-plan';
import type { ReportSummary, TableRow, TableSink } from '../../table/table';
import type { RunTrigger } from '../changes/manifest-changes';
import { startChangeTracking, type ChangeTracker } from '../changes/tracker';
import { withDeltas } from '../changes/deltas';
import { decideDelivery, type DeliveryDecision } from '../manifest/delivery-decision';
import { openOutputs, outputsFor, type RunEntries } from '../outputs/index';
import { REGISTRY, type Registry } from '../registry';
import { changeSpecs } from '../changes/specs';
import type { RunRecord } from '../outputs/output';

export type { ExportResult } from './run-attempt';

export interface ExportDependencies {
  readonly source: PlanningSource;
  readonly storage: Storage;
  /** Where attempts of a run agree who writes and where `latest` points (see shared/ledger/). */
  readonly ledger: Ledger;
  /** Lease duration (tests); the default suits Lambda and the command line. */
  readonly leaseMs?: number | undefined;
  /** A retry that finds the run's holder silent waits for its lease to lapse and takes the run over (run-lease.ts). */
  readonly leaseWait?: Wait | undefined;
  /** Where the data came from, for the manifest: never the API key. */
  readonly sourceInfo: Manifest['source'];
  readonly log?: Log | undefined;
  /** The run's clock (the run context's, core/clock.ts). */
  readonly now: () => Date;
  /** Supplied by callers that retry (a schedule, an API job) so a second attempt reuses the keys. */
  readonly runId?: string | undefined;
  /**
   * The date of the `dt=` partition (a schedule's time); defaults to the start of the run's first
   * attempt, as recorded by its lease, so a retry after midnight lands in the same folder.
   */
  readonly runDate?: Date | undefined;
  readonly onProgress?: ((event: ProgressEvent) => void) | undefined;
  /** Scheduled and on-demand runs are compared only with runs of their own kind (docs/changes.md). */
  readonly trigger?: RunTrigger | undefined;
  /** Test hook: awaited at every write point of the run (see RunWriterOptions.pause). */
  readonly pause?: RunAttemptOptions['pause'];
  /** The tables and formats the run knows (default REGISTRY; a test adds one of each). */
  readonly registry?: Registry | undefined;
  /** Which path writes the run, and why (the manifest's `path`); default: the single path. */
  readonly path?: RunPath | undefined;
  /**
   * The run's plan (export-plan.ts), made by the job's plan stage with the same source; when absent
   * it is made here first, before the lease is taken, so a definition that cannot run writes nothing.
   */
  readonly plan?: ExportPlan | undefined;
}

/** Rows between progress events: often enough for a terminal, rare enough to cost nothing. */
const PROGRESS_EVERY = 2_000;

/**
 * Runs one export: fetches every dataset of the definition, streams each table's rows into every
 * output at once (outputs/index.ts: workbook, CSV, Parquet, snapshots, changes), then builds the
 * manifest from what the outputs stored and checks every file it lists.
 *
 * Publishing is atomic for readers (docs/run-atomicity.md, run-attempt.ts): the attempt holds a
 * lease on (report, run id) in the ledger, writes only through its RunWriter, publishes the manifest
 * only after every file it lists has been read back and matched, and latest.json only after the
 * ledger moved `latest` forward. A run the ledger knows as complete is not run again.
 */
export async function runExport(definition: ReportDefinition, deps: ExportDependencies): Promise<ExportResult> {
  const log = deps.log ?? silentLog;
  const { now } = deps;
  const startedAt = now();
  const runId = deps.runId ?? newRunId(startedAt);
  if (!RUN_ID_PATTERN.test(runId)) {
    throw new StorageError(`run id "${runId}" must be 1-100 letters, digits, ".", "_" or "-"`);
  }
  const progress = deps.onProgress ?? (() => undefined);
  const registry = deps.registry ?? REGISTRY;
  const plan = deps.plan ?? (await planExport(definition, deps.source, { log, datasets: registry.datasets, companyPrefix: deps.sourceInfo.companyPrefix }));
  const attempt = { storage: deps.storage, ledger: deps.ledger, report: definition.name, timeZone: definition.timeZone, runId, now, log };
  return withRunAttempt({ ...attempt, runDate: deps.runDate, leaseMs: deps.leaseMs, leaseWait: deps.leaseWait, onProgress: progress, pause: deps.pause }, async (run) => {
    const ctx: DatasetContext = { source: deps.source, definition, log, people: new PeopleDirectory(), now: () => startedAt };
    const tracker = await trackChanges(definition, deps, run, registry, log);
    const outputs = await openOutputs(
      { definition, writer: run.writer, runId, runDate: run.runDate, exportedAt: startedAt, tracker, log, datasets: registry.datasets },
      outputsFor(definition, registry),
    );
    // Made from what the plan resolved: no dataset lists or resolves again.
    const datasets: Dataset[] = plan.datasets.map((d) => d.plan.create(ctx));
    const tableRows: Record<string, number> = {};
    // Large datasets start fetching now, within their read-ahead, sharing the request budget.
    for (const dataset of datasets) dataset.prefetch?.();
    try {
      await exportDatasets(datasets, registry, outputs, tableRows, progress, log);
    } finally {
      // A table that failed midway never closed its sinks: its comparison's scratch file goes here.
      tracker.dispose();
      await Promise.all(datasets.map((d) => (d.stop ? d.stop() : Promise.resolve())));
    }
    const changed = await tracker.finish();
    const summary = withDeltas(buildSummary(definition, runId, run.runStart, deps.sourceInfo, tableRows, datasets), changed.report, readerFormat(definition.locale, definition.timeZone));
    const snapshots = changed.manifest.snapshots.map((f) => ({ ...f, key: `${run.runFolder}/${f.path}` }));
    const record = {
      runId, generatedAt: run.runStart.toISOString(), changes: changed.manifest,
      selectors: { requested: definition.datasets, resolved: Object.fromEntries(datasets.map((d) => [d.name, d.resolvedSelectors()])) },
      figures: manifestFiguresSchema.parse(mergeFigures([plan.figures, ...datasets.map((d) => d.figures())])),
    };
    const entries = await outputs.finishRun({ summary, changes: changed.report, snapshots, rows: tableRows, record });
    const delivery = decideDelivery(definition, { summary, changes: changed.report });
    const path = deps.path ?? { via: 'single' };
    const manifest = buildManifest({ definition, record, source: deps.sourceInfo, summary, tableRows, entries, delivery, registry, path });
    // No reader may see a manifest whose files are missing or differ: read back what is stored.
    await run.writer.verify([...entries.files.map((f) => ({ ...f, key: `${run.runFolder}/${f.path}` })), ...entries.stored]);
    return { manifest, summary, changes: changed.report, ...entries.result };
  });
}

/** Each dataset's tables in order, each table's rows into every output at once. */
async function exportDatasets(
  datasets: readonly Dataset[],
  registry: Registry,
  outputs: Awaited<ReturnType<typeof openOutputs>>,
  tableRows: Record<string, number>,
  progress: (event: ProgressEvent) => void,
  log: Log,
): Promise<void> {
  for (const dataset of datasets) {
    progress({ type: 'dataset', dataset: dataset.name });
    log.info('exporting dataset', { dataset: dataset.name });
    for await (const output of dataset.tables()) {
      const table = labelled(output.table, registry.datasets);
      const count = await fanOut(output.batches, await outputs.openTable(table, dataset), (rows) => progress({ type: 'rows', table: table.name, rows }));
      tableRows[table.name] = count;
      progress({ type: 'table-done', table: table.name, rows: count });
      await outputs.finishTable(table.name, count);
    }
  }
}

/** Writes every row of a table to every sink (awaiting each sink's backpressure); resolves with the row count once all are closed. */
async function fanOut(batches: AsyncIterable<Iterable<TableRow>>, sinks: readonly TableSink[], onRows: (count: number) => void): Promise<number> {
  let count = 0;
  for await (const batch of batches) {
    for (const row of batch) {
      for (const sink of sinks) {
        const pending = sink.writeRow(row);
        if (pending) await pending;
      }
      if (++count % PROGRESS_EVERY === 0) onRows(count);
    }
  }
  for (const sink of sinks) await sink.close();
  return count;
}

/** The changes hook (docs/changes.md): finds the baseline run; snapshots go through the run's writer. */
function trackChanges(definition: ReportDefinition, deps: ExportDependencies, run: RunInProgress, registry: Registry, log: Log): Promise<ChangeTracker> {
  return startChangeTracking({
    storage: deps.storage,
    definition,
    trigger: deps.trigger ?? 'on-demand',
    specs: changeSpecs(registry.datasets),
    startedAt: run.runStart,
    log,
    openUpload: (path, contentType) => run.writer.openUpload(`${run.runFolder}/${path}`, { contentType }),
    stored: async (upload) => {
      const object = await run.writer.stored(upload);
      return { ...object, path: object.key.slice(run.runFolder.length + 1) };
    },
  });
}

interface ManifestParts {
  readonly definition: ReportDefinition;
  readonly record: RunRecord;
  readonly source: Manifest['source'];
  readonly summary: ReportSummary;
  readonly tableRows: Record<string, number>;
  readonly entries: RunEntries;
  readonly delivery: DeliveryDecision;
  readonly registry: Registry;
  readonly path: RunPath;
}

/** The run's manifest, through JSON and back, so the manifest returned is exactly what readers of manifest.json get. */
function buildManifest(parts: ManifestParts): Manifest {
  const { definition, record, summary } = parts;
  return manifestSchemaFor(parts.registry.formats).parse(JSON.parse(JSON.stringify({
    formatVersion: 1,
    report: definition.name,
    runId: record.runId,
    generatedAt: record.generatedAt,
    timeZone: definition.timeZone,
    source: parts.source,
    selectors: record.selectors,
    files: parts.entries.files,
    ...parts.entries.fields,
    summary: {
      title: summary.title,
      rows: parts.tableRows,
      ...record.figures,
      ...parts.entries.figures,
      sections: summary.sections,
    },
    changes: record.changes,
    delivery: parts.delivery,
    path: parts.path,
  })));
}
