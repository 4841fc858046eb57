import { fixedClock } from '../../core/clock';
import { errorMessage, StorageError } from '../../core/errors';
import type { Log } from '../../core/logger';
import type { ObjectUpload, Storage, StoredObject } from '../../storage/storage';
import type { TableDefinition, TableRow, TableSink } from '../../table/table';
import { findBaseline, type BaselineRun, type BaselineSearch } from './baseline';
import { TableComparison } from './compare';
import type { ManifestChanges, RunTrigger } from '../manifest/manifest-changes';
import { addCounts, emptyCounts, type ChangeReport, type ChangeRow, type TableChanges } from './model';
import { scopeOf } from './scope';
import { openSnapshotWriter, SnapshotReadError, type SnapshotHeader, SNAPSHOT_FORMAT } from './snapshot';
import { bindSpec, type ChangeSpec } from './specs';
import { ScratchFileError } from './keys/spilled-key-prints';

/**
 * The hook between a run (run-export.ts) and the comparison: run-export opens one tracker per run,
 * the snapshots output (outputs/snapshots.ts) adds the sink of `openTable` to each table, and
 * run-export calls `finish` after the last table. The
 * tracker writes each table's snapshot through the run's own uploads (so a failed run removes them
 * with everything else) and compares the rows with the baseline as they stream.
 */
export interface ChangeTrackerDeps {
  readonly storage: Storage;
  /** What the tracker reads of the definition: the report's name and the baseline it compares with. */
  readonly definition: { readonly name: string; readonly changes: { readonly baseline: string } };
  readonly trigger: RunTrigger;
  /** What is compared in each table (changeSpecs of the run's tables registry). */
  readonly specs: readonly ChangeSpec[];
  readonly startedAt: Date;
  readonly log: Log;
  /** Opens an upload at `path` inside the run folder (after recording the key as the run's own). */
  openUpload(path: string, contentType: string): Promise<ObjectUpload>;
  /**
   * Waits until an upload opened with `openUpload` is stored; `path`, when given, is where it was
   * stored inside the run folder (a later attempt of a run stores under its own name, see run-writer.ts).
   */
  stored(upload: ObjectUpload): Promise<StoredObject & { readonly path?: string }>;
}

export interface ChangeTracker {
  /** A sink that snapshots and compares the table; undefined for a table nothing is tracked of. */
  openTable(dataset: string, table: TableDefinition, resolvedSelectors: Record<string, unknown>): Promise<TableSink | undefined>;
  /** After the last table: the comparison, and what the manifest records under `changes`. */
  finish(): Promise<{ readonly report: ChangeReport; readonly manifest: ManifestChanges }>;
  /**
   * Removes the scratch files of comparisons whose table never closed (an export that failed midway).
   * A closed table has removed its own already; safe to call more than once. Call it however the run ends.
   */
  dispose(): void;
}

export const SNAPSHOT_CONTENT_TYPE = 'application/gzip';

export function snapshotPath(table: string): string {
  return `snapshots/${table}.ndjson.gz`;
}

export async function startChangeTracking(deps: ChangeTrackerDeps): Promise<ChangeTracker> {
  const search = await findBaseline({
    storage: deps.storage,
    report: deps.definition.name,
    trigger: deps.trigger,
    option: deps.definition.changes.baseline,
    startedAt: deps.startedAt,
    log: deps.log,
  });
  return new RunChangeTracker(deps, search);
}

/** One table's snapshot being written and its comparison (if any) being fed, from its sink's open to its close. */
interface OpenTable {
  readonly table: TableDefinition;
  readonly label: string;
  readonly bound: ReturnType<typeof bindSpec>;
  readonly comparison: Loaded | undefined;
  readonly path: string;
  readonly upload: ObjectUpload;
  readonly writer: ReturnType<typeof openSnapshotWriter>;
}

/** A run's tracker: what its tables' sinks gather as they close, read by `finish`. */
class RunChangeTracker implements ChangeTracker {
  readonly #snapshots: ManifestChanges['snapshots'][number][] = [];
  readonly #tables: TableChanges[] = [];
  readonly #rows: ChangeRow[] = [];
  readonly #seen = new Set<string>();
  readonly #sheetNames: Record<string, string> = {};
  /** Comparisons whose scratch file is still there: closed with their table, or by `dispose`. */
  readonly #open = new Set<TableComparison>();
  readonly #baseline: BaselineRun | undefined;

  constructor(
    private readonly deps: ChangeTrackerDeps,
    private readonly search: BaselineSearch,
  ) {
    this.#baseline = search.found;
  }

  async openTable(dataset: string, table: TableDefinition, resolvedSelectors: Record<string, unknown>): Promise<TableSink | undefined> {
    const spec = this.deps.specs.find((s) => s.table === table.name);
    if (!spec) return undefined;
    this.#seen.add(table.name);
    this.#sheetNames[table.name] = sheetNameOf(table);
    const bound = bindSpec(spec, table);
    const header: SnapshotHeader = {
      format: SNAPSHOT_FORMAT,
      version: 1,
      table: table.name,
      columns: table.columns.map((c) => c.key),
      fields: bound.fields.map((f) => ({ column: f.column, type: f.type })),
      scope: scopeOf(dataset, resolvedSelectors, spec.settings),
    };
    const comparison = this.#baseline ? await loadComparison(this.#baseline, bound, header, this.deps) : undefined;
    if (comparison instanceof TableComparison) this.#open.add(comparison);
    const path = snapshotPath(table.name);
    const { upload, writer } = await openSnapshotUpload(this.deps, path, header).catch((error: unknown) => {
      this.#closeComparison(comparison);
      throw error;
    });
    return this.#sink({ table, label: spec.label, bound, comparison, path, upload, writer });
  }

  #sink(open: OpenTable): TableSink {
    const { bound, comparison, writer } = open;
    let count = 0;
    return {
      writeRow: (row: TableRow) => {
        count++;
        const values = bound.valuesOf(row);
        const written = writer.write({ key: bound.keyOf(row), display: bound.displayOf(row), title: bound.titleOf(row), scope: bound.scopeOf(row), values });
        if (comparison instanceof TableComparison) comparison.row(row, count + 1, values, written.fingerprint);
        return written.pending;
      },
      close: async () => {
        await this.#closeTable(open, count);
        return count;
      },
    };
  }

  async #closeTable(open: OpenTable, count: number): Promise<void> {
    const { table, label, comparison } = open;
    let result: TableResult;
    try {
      await open.writer.close();
      const object = await this.deps.stored(open.upload);
      this.#snapshots.push({ table: table.name, path: object.path ?? open.path, bytes: object.bytes, sha256: object.sha256, rows: count });
      result = comparison instanceof TableComparison ? await finishComparison(comparison, label, this.deps.log) : comparison;
    } finally {
      this.#closeComparison(comparison);
    }
    recordTable({ table: table.name, label, rows: count }, result, this.#rows, this.#tables);
  }

  #closeComparison(comparison: Loaded | undefined): void {
    if (comparison instanceof TableComparison && this.#open.delete(comparison)) comparison.close();
  }

  dispose(): void {
    for (const comparison of this.#open) this.#closeComparison(comparison);
  }

  /** Tables the earlier run had and this one has not: the definition's selection shrank. */
  #recordDroppedTables(baseline: BaselineRun): void {
    for (const old of baseline.changes.snapshots) {
      if (this.#seen.has(old.table)) continue;
      const label = this.deps.specs.find((s) => s.table === old.table)?.label ?? old.table;
      this.#rows.push({
        table: old.table, tableLabel: label, kind: 'scope', key: null, link: null, sheetRow: null,
        title: `${label} are no longer in this report`, what: 'removed from the report', from: rowsText(old.rows), to: null,
      });
      this.#tables.push({ table: old.table, label, compared: false, note: null, counts: { ...emptyCounts(), scope: 1 } });
    }
  }

  finish(): Promise<{ readonly report: ChangeReport; readonly manifest: ManifestChanges }> {
    const baseline = this.#baseline;
    if (baseline) this.#recordDroppedTables(baseline);
    const counts = emptyCounts();
    for (const t of this.#tables) addCounts(counts, t.counts);
    const note = baseline ? null : ('note' in this.search ? this.search.note : null);
    const report: ChangeReport = {
      baseline: baseline ? { runId: baseline.manifest.runId, generatedAt: new Date(baseline.manifest.generatedAt), manifestKey: baseline.manifestKey } : null,
      note,
      tables: this.#tables,
      counts,
      rows: baseline ? this.#rows : [],
      baselineFigures: baseline ? baseline.manifest.summary : null,
      sheetNames: this.#sheetNames,
    };
    const manifest: ManifestChanges = {
      trigger: this.deps.trigger,
      previous: this.search.previous,
      baseline: baseline ? { runId: baseline.manifest.runId, generatedAt: baseline.manifest.generatedAt, manifest: baseline.manifestKey } : null,
      note,
      counts,
      snapshots: this.#snapshots,
    };
    return Promise.resolve({ report, manifest });
  }
}

type Loaded = TableComparison | { readonly note: string; readonly scope: boolean };
type TableResult = Awaited<ReturnType<typeof finishComparison>> | Exclude<Loaded, TableComparison> | undefined;

async function openSnapshotUpload(deps: ChangeTrackerDeps, path: string, header: SnapshotHeader) {
  const upload = await deps.openUpload(path, SNAPSHOT_CONTENT_TYPE);
  return { upload, writer: openSnapshotWriter(upload.stream, header) };
}

/** A closed table's comparison (or why there is none) into the report's rows and tables. */
function recordTable(
  table: { readonly table: string; readonly label: string; readonly rows: number },
  result: TableResult,
  rows: ChangeRow[],
  tables: TableChanges[],
): void {
  const counts = emptyCounts();
  if (result && 'rows' in result) {
    addCounts(counts, result.counts);
    rows.push(...result.rows);
    tables.push({ table: table.table, label: table.label, compared: true, note: null, counts });
    return;
  }
  const note = result?.note ?? null;
  if (result?.scope) counts.scope++;
  if (note !== null) {
    rows.push({
      table: table.table, tableLabel: table.label, kind: result?.scope ? 'scope' : 'note', key: null, link: null,
      sheetRow: null, title: note, what: result?.scope ? 'added to the report' : 'not compared', from: null,
      to: result?.scope ? rowsText(table.rows) : null,
    });
  }
  tables.push({ table: table.table, label: table.label, compared: false, note, counts });
}

/**
 * The comparison's result, or a note when its second read of the baseline (or its scratch file)
 * fails: the export goes on without the table's changes rather than failing over them.
 */
async function finishComparison(
  comparison: TableComparison,
  label: string,
  log: Log,
): Promise<Awaited<ReturnType<TableComparison['finish']>> | { readonly note: string; readonly scope: false }> {
  try {
    return await comparison.finish();
  } catch (error) {
    if (error instanceof ScratchFileError) return scratchFailure(label, error, log);
    if (!(error instanceof SnapshotReadError || error instanceof StorageError)) throw error;
    log.warn('baseline snapshot unreadable on the second pass; table not compared', { reason: errorMessage(error) });
    return { note: `${label} were not compared: the earlier run's snapshot could not be read again (${errorMessage(error)}).`, scope: false };
  }
}

async function loadComparison(
  baseline: BaselineRun,
  bound: ReturnType<typeof bindSpec>,
  header: SnapshotHeader,
  deps: ChangeTrackerDeps,
): Promise<Loaded> {
  const label = bound.spec.label;
  const entry = baseline.changes.snapshots.find((s) => s.table === header.table);
  if (!entry) return { note: `${label} were not in the earlier run, so every row is new to this report.`, scope: true };
  const folder = baseline.manifestKey.slice(0, baseline.manifestKey.lastIndexOf('/'));
  const key = `${folder}/${entry.path}`;
  const unreadable = (why: string): Loaded => {
    deps.log.warn('baseline snapshot unreadable; table not compared', { table: header.table, key, reason: why });
    return { note: `${label} were not compared: the earlier run's snapshot ${why}.`, scope: false };
  };
  // Checked as a stream first, then read twice as a stream (TableComparison): a baseline of millions
  // of rows is never held whole. A run's files are never rewritten, so what was checked is what is read.
  let stored: StoredObject | undefined;
  try {
    stored = await deps.storage.hashObject(key);
  } catch (error) {
    return unreadable(`could not be read (${errorMessage(error)})`);
  }
  if (!stored) return unreadable('is missing');
  if (stored.bytes !== entry.bytes || stored.sha256 !== entry.sha256) {
    return unreadable('is damaged (its checksum does not match the manifest)');
  }
  const openBaseline = async () => {
    const chunks = await deps.storage.readObject(key);
    if (!chunks) throw new SnapshotReadError('it is missing');
    return chunks;
  };
  try {
    const loaded = await TableComparison.load(bound, openBaseline, header, fixedClock(deps.startedAt), entry.rows);
    return typeof loaded === 'string' ? { note: loaded, scope: false } : loaded;
  } catch (error) {
    if (error instanceof SnapshotReadError) return unreadable(`could not be read: ${error.message}`);
    if (error instanceof StorageError) return unreadable(`could not be read (${errorMessage(error)})`);
    if (error instanceof ScratchFileError) return scratchFailure(label, error, deps.log, { table: header.table });
    throw error;
  }
}

/** A comparison whose scratch file failed (a full disk, say): a warning, and the table's note. */
function scratchFailure(label: string, error: ScratchFileError, log: Log, fields: Record<string, unknown> = {}): { readonly note: string; readonly scope: false } {
  log.warn('comparison scratch file failed; table not compared', { ...fields, reason: error.message });
  return { note: `${label} were not compared: ${error.message}.`, scope: false };
}

/** The sheet a table is written to: its title for people when it has one, else its name. */
function sheetNameOf(table: TableDefinition): string {
  const title = (table as { title?: unknown }).title;
  return typeof title === 'string' && title !== '' ? title : table.name;
}

function rowsText(n: number): string {
  return n === 1 ? '1 row' : `${n.toLocaleString('en-US')} rows`;
}
