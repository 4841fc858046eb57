import { messagesFor, type Messages } from '../../core/i18n/messages';
import { AuthenticationError, StorageError } from '../../core/errors';
import type { Log } from '../../core/logger';
import { readerFormat } from '../../core/format';
import { switchableFormat, type SwitchableFormat } from '../../core/switchable-format';
import { readerLocales } from '../definition/readers';
import type { ReportDefinition } from '../definition/definition';
import type { ChangeReport } from '../changes/model';
import { describeSource } from '../../planning-api/credentials';
import { rotatedCredentials } from '../../secrets/credential-refresh';
import type { Dataset, DatasetContext, ProgressEvent } from '../dataset/dataset';
import { manifestSchemaFor, type Manifest } from '../manifest/manifest';
import { manifestFiguresSchema } from '../manifest/manifest-summary';
import { PeopleDirectory } from '../dataset/people';
import { OwnWork } from '../summary/own-work';
import { labelled } from '../tables/labels';
import { mergeFigures } from '../dataset/field-audit';
import { RUN_ID_PATTERN } from './run-id';
import { withRunAttempt } from './run-attempt';
import { buildSummary } from './run-summary';
import type { ReportSummary, TableRow, TableSink } from '../../table/table';
import { startChangeTracking, type ChangeTracker } from '../changes/tracker';
import { withDeltas } from '../changes/deltas';
import { withWhatChanged } from '../changes/digest';
import { decideDelivery, type DeliveryDecision } from '../manifest/delivery-decision';
import { openOutputs, outputsFor, type RunEntries } from '../outputs/index';
import type { Registry } from '../registry';
import { changeSpecs } from '../changes/specs';
import type { RunRecord } from '../outputs/output';
import type { RunContext } from './context';
import { createExportClient } from './plan-run';
import type { PlannedRun, RunInProgress } from './run';
import type { ExportResult } from './result';
import { fixedClock } from '../../core/clock';

/** Where a run's data comes from: the client it fetches through and what the manifest says of it. */
type RunSource = Pick<PlannedRun, 'client' | 'sourceInfo'>;

/** Rows between progress events: often enough for a terminal, rare enough to cost nothing. */
const PROGRESS_EVERY = 2_000;

/**
 * Exports a planned run (plan-run.ts) under its lease. A refused key is read once more past the
 * cache: when it was rotated meanwhile, the run is exported again with a client on the new key (the
 * failed attempt has already removed its partial files and released its lease).
 */
export function exportRun(run: PlannedRun, context: RunContext): Promise<ExportResult> {
  return withRotatedSource(run, context, (source) => writeRun(run, source, context));
}

/** `write` with the run's planned source, then once more with a rotated key's if the planned one was refused. */
async function withRotatedSource(run: PlannedRun, context: RunContext, write: (source: RunSource) => Promise<ExportResult>): Promise<ExportResult> {
  try {
    return await write(run);
  } catch (error) {
    if (!(error instanceof AuthenticationError)) throw error;
    const fresh = await rotatedCredentials(context.planning.credentials, run.credentials);
    if (!fresh) throw error;
    // The rotated client is the run's source alone: the run, its plan and its path stay as planned.
    return write({ client: createExportClient(fresh, context), sourceInfo: describeSource(fresh) });
  }
}

/**
 * Writes one run: fetches every dataset of the definition, streams each table's rows into every
 * output at once (outputs/index.ts: workbook, CSV, Parquet, snapshots, changes), then builds the
 * manifest from what the outputs stored and checks every file it lists.
 *
 * Publishing is atomic for readers (docs/run-atomicity.md, run-attempt.ts): the attempt holds a
 * lease on (report, run id) in the ledger, writes only through its RunWriter, publishes the manifest
 * only after every file it lists has been read back and matched, and latest.json only after the
 * ledger moved `latest` forward. A run the ledger knows as complete is not run again.
 */
async function writeRun(run: PlannedRun, source: RunSource, context: RunContext): Promise<ExportResult> {
  const { definition, runId } = run;
  if (!RUN_ID_PATTERN.test(runId)) {
    throw new StorageError(`run id "${runId}" must be 1-100 letters, digits, ".", "_" or "-"`);
  }
  const { log } = context;
  const startedAt = context.clock();
  const progress = context.onProgress ?? (() => undefined);
  const { registry } = context;
  return withRunAttempt(run, context, async (attempt) => {
    const writing = switchableFormat(definition.locale, definition.timeZone);
    const ctx: DatasetContext = { source: source.client, definition, log, people: new PeopleDirectory(), ownWork: new OwnWork(), clock: fixedClock(startedAt), format: writing.format };
    const tracker = await trackChanges(run, context, attempt, registry);
    const outputs = await openOutputs(run, { ...attempt, exportedAt: startedAt, clock: context.clock, tracker, log, datasets: registry.datasets }, outputsFor(definition, registry));
    // Made from what the plan resolved: no dataset lists or resolves again.
    const datasets: Dataset[] = run.plan.datasets.map((d) => d.plan.create(ctx));
    const tableRows: Record<string, number> = {};
    // Large datasets start fetching now, within their read-ahead, sharing the request budget.
    for (const dataset of datasets) dataset.prefetch?.();
    try {
      await exportDatasets(datasets, registry, outputs, tableRows, progress, log, messagesFor(run.definition.locale));
    } finally {
      // A table that failed midway never closed its sinks: its comparison's scratch file goes here.
      tracker.dispose();
      await Promise.all(datasets.map((d) => (d.stop ? d.stop() : Promise.resolve())));
    }
    const changed = await tracker.finish();
    const summaryIn = (locale: string) => localeSummary({ ...definition, locale }, writing, { startedAt: attempt.runStart, tableRows, datasets, changes: changed.report });
    const summary = summaryIn(definition.locale);
    const summaries = Object.fromEntries(readerLocales(definition).map((locale) => [locale, summaryIn(locale)]));
    writing.use(definition.locale);
    const snapshots = changed.manifest.snapshots.map((f) => ({ ...f, key: `${attempt.runFolder}/${f.path}` }));
    const record = {
      generatedAt: attempt.runStart.toISOString(), changes: changed.manifest,
      selectors: { requested: definition.datasets, resolved: Object.fromEntries(datasets.map((d) => [d.name, d.resolvedSelectors()])) },
      figures: manifestFiguresSchema.parse(mergeFigures([run.plan.figures, ...datasets.map((d) => d.figures())])),
    };
    const attention = datasets.flatMap((d) => d.attention?.() ?? []);
    const entries = await outputs.finishRun({ summary, attention, changes: changed.report, snapshots, rows: tableRows, record });
    const delivery = decideDelivery(definition, { summary, changes: changed.report });
    const manifest = buildManifest(run, source.sourceInfo, { record, summary, summaries, tableRows, entries, delivery, registry });
    // No reader may see a manifest whose files are missing or differ: read back what is stored.
    await attempt.writer.verify([...entries.files.map((f) => ({ ...f, key: `${attempt.runFolder}/${f.path}` })), ...entries.stored]);
    const owned = { attention, people: ctx.people?.known() ?? {}, work: ctx.ownWork?.facts() };
    return { manifest, summary, ...(Object.keys(summaries).length > 0 && { summaries }), owned, changes: changed.report, ...entries.result };
  });
}

/** The run's Summary in `definition.locale`: the datasets write their sections in it, with the changes and deltas in its words. */
function localeSummary(
  definition: ReportDefinition,
  writing: SwitchableFormat,
  run: { startedAt: Date; tableRows: Record<string, number>; datasets: readonly Dataset[]; changes: ChangeReport },
): ReportSummary {
  writing.use(definition.locale);
  const format = readerFormat(definition.locale, definition.timeZone);
  const built = buildSummary(definition, run.startedAt, run.tableRows, run.datasets);
  return withWhatChanged(withDeltas(built, run.changes, format), run.changes, format);
}

/** Each dataset's tables in order, each table's rows into every output at once. */
async function exportDatasets(
  datasets: readonly Dataset[],
  registry: Registry,
  outputs: Awaited<ReturnType<typeof openOutputs>>,
  tableRows: Record<string, number>,
  progress: (event: ProgressEvent) => void,
  log: Log,
  messages: Messages,
): Promise<void> {
  for (const dataset of datasets) {
    progress({ type: 'dataset', dataset: dataset.name });
    log.info('exporting dataset', { dataset: dataset.name });
    for await (const output of dataset.tables()) {
      const table = labelled(output.table, registry.datasets, messages);
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
function trackChanges(run: PlannedRun, context: RunContext, attempt: RunInProgress, registry: Registry): Promise<ChangeTracker> {
  return startChangeTracking({
    storage: context.storage,
    definition: run.definition,
    trigger: run.trigger,
    specs: changeSpecs(registry.datasets),
    startedAt: attempt.runStart,
    log: context.log,
    openUpload: (path, contentType) => attempt.writer.openUpload(`${attempt.runFolder}/${path}`, { contentType }),
    stored: async (upload) => {
      const object = await attempt.writer.stored(upload);
      return { ...object, path: object.key.slice(attempt.runFolder.length + 1) };
    },
  });
}

/** What the run came to, beside the run's own facts (its definition, run id, source and path). */
interface ManifestParts {
  readonly record: RunRecord;
  readonly summary: ReportSummary;
  /** The Summary in the readers' other languages, by locale (result.ts): stored for a rerun's messages. */
  readonly summaries: Readonly<Record<string, ReportSummary>>;
  readonly tableRows: Record<string, number>;
  readonly entries: RunEntries;
  readonly delivery: DeliveryDecision;
  readonly registry: Registry;
}

/** The run's manifest, through JSON and back, so the manifest returned is exactly what readers of manifest.json get. */
function buildManifest(run: PlannedRun, sourceInfo: Manifest['source'], parts: ManifestParts): Manifest {
  const { record, summary } = parts;
  const { definition } = run;
  return manifestSchemaFor(parts.registry.formats).parse(JSON.parse(JSON.stringify({
    formatVersion: 1,
    report: definition.name,
    runId: run.runId,
    generatedAt: record.generatedAt,
    timeZone: definition.timeZone,
    source: sourceInfo,
    selectors: record.selectors,
    files: parts.entries.files,
    ...parts.entries.fields,
    summary: {
      title: summary.title,
      rows: parts.tableRows,
      ...record.figures,
      ...parts.entries.figures,
      sections: summary.sections,
      ...languagesOf(parts.summaries),
    },
    changes: record.changes,
    delivery: parts.delivery,
    path: run.path,
  })));
}

/** The manifest's `summary.languages`: each other language's title and sections, or nothing for a one-language run. */
function languagesOf(summaries: Readonly<Record<string, ReportSummary>>): { languages?: Record<string, Pick<ReportSummary, 'title' | 'sections'>> } {
  const entries = Object.entries(summaries);
  if (entries.length === 0) return {};
  return { languages: Object.fromEntries(entries.map(([locale, s]) => [locale, { title: s.title, sections: s.sections }])) };
}
