/**
 * Comparison measurement (one process per run): `rows` board-item rows through the export's sinks
 * (xlsx and CSV, as runExport drives them), with or without the change tracking of
 * shared/report/changes/ (snapshot written, baseline streamed into the key map, rows compared as
 * they stream, second pass for the changed and removed rows).
 *
 *   prepare          the baseline run: a first run's snapshot, manifest and latest.json in `dir`
 *   export           this run's rows into xlsx + CSV only
 *   export+changes   the same, plus the comparison with the prepared baseline
 *   parquet+changes  this run's rows into Parquet only, plus the comparison (section 9, memory in rows)
 *   export+changes:all-links  export+changes with every link a hyperlink proper (no 65,530 cap): the reference
 *
 * This run's rows differ from the baseline's: every 100th row has another status, every 1,000th is
 * gone, and rows/1,000 rows are new (3,000 changed, 300 removed, 300 added at 300,000 rows).
 */
import { createWriteStream } from 'node:fs';
import { reportResult, workerInput } from '../lib/worker';
import { boardItemRow, COLUMNS } from '../lib/board-item-rows';
import { openCsvSink } from '../../shared/render/csv';
import { openParquetSink } from '../../shared/render/parquet/parquet-sink';
import { openXlsxWorkbook } from '../../shared/render/xlsx/workbook';
import { parseReportDefinition } from '../../shared/report/definition/definition';
import { changeSpecs } from '../../shared/report/changes/specs';
import { startChangeTracking, type ChangeTracker } from '../../shared/report/changes/tracker';
import { latestKey } from '../../shared/report/manifest/layout';
import { LocalDirectoryStorage } from '../../shared/storage/local-storage';
import type { ObjectUpload, StoredObject } from '../../shared/storage/storage';
import type { TableDefinition, TableRow, TableSink } from '../../shared/table/table';
import { silentLog } from '../../shared/core/logger';

/** The workbook's created time: fixed, so a file's bytes depend on nothing but its content. */
const CREATED_AT = new Date('2026-11-23T06:00:00Z');

export type ChangesKind = 'prepare' | 'export' | 'export+changes' | 'parquet+changes' | 'export+changes:all-links';

interface Input {
  kind: ChangesKind;
  rows: number;
  /** Scratch directory: the storage root and the output files (deleted by the parent). */
  dir: string;
}

const input = workerInput<Input>();
const table: TableDefinition = { name: 'board-items', columns: COLUMNS, outlineLevels: 1 };
const TIME_ZONE = 'Europe/Berlin';
const definition = parseReportDefinition({ name: 'bench', datasets: { boardItems: {} } });
const selectors = { boards: [{ id: '1003', title: 'Platform Release Train – PI 26.1' }] };
const storage = new LocalDirectoryStorage(input.dir);
// Found by name: a fixed index went stale when the table gained a column, and the "changed" rows
// then differed only in an untracked column (card type), so none was reported changed.
const STATUS = COLUMNS.findIndex((c) => c.key === 'status');
if (STATUS < 0) throw new Error('the board-items table has no status column');

function* baselineRows(): Generator<TableRow> {
  for (let i = 0; i < input.rows; i++) yield boardItemRow(i);
}

function* currentRows(): Generator<TableRow> {
  for (let i = 0; i < input.rows; i++) {
    if (i % 1000 === 3) continue;
    const row = boardItemRow(i);
    if (i % 100 === 7) {
      const values = [...row.values];
      values[STATUS] = values[STATUS] === 'Done' ? 'In Progress' : 'Done';
      yield { ...row, values };
    } else {
      yield row;
    }
  }
  for (let k = 0; k < Math.floor(input.rows / 1000); k++) yield boardItemRow(input.rows + k);
}

function tracker(folder: string, at: string): Promise<ChangeTracker> {
  const uploads = new Set<ObjectUpload>();
  return startChangeTracking({
    storage,
    definition,
    specs: changeSpecs(),
    trigger: 'scheduled',
    startedAt: new Date(at),
    log: silentLog,
    openUpload: (path, contentType) => {
      const u = storage.openUpload(`${folder}/${path}`, { contentType });
      uploads.add(u);
      return Promise.resolve(u);
    },
    stored: (u): Promise<StoredObject> => u.done,
  });
}

async function drive(rows: Iterable<TableRow>, sinks: TableSink[]): Promise<void> {
  for (const row of rows) {
    for (const sink of sinks) {
      const pending = sink.writeRow(row);
      if (pending) await pending;
    }
  }
  for (const sink of sinks) await sink.close();
}

async function prepare(): Promise<void> {
  const folder = 'bench/dt=2026-11-16/run=base';
  const changes = await tracker(folder, '2026-11-16T06:00:00Z');
  const sink = (await changes.openTable('boardItems', table, selectors))!;
  await drive(baselineRows(), [sink]);
  const { manifest: changed } = await changes.finish();
  const manifestKey = `${folder}/manifest.json`;
  const manifest = {
    formatVersion: 1, report: 'bench', runId: 'base', generatedAt: '2026-11-16T06:00:00.000Z', timeZone: TIME_ZONE,
    source: { baseUrl: '-', legacyBaseUrl: '-', companyPrefix: '-', email: '-' }, selectors: {}, files: [], summary: {},
    changes: changed,
  };
  await storage.putObject(manifestKey, JSON.stringify(manifest), { contentType: 'application/json' });
  await storage.putObject(latestKey('bench'), JSON.stringify({ report: 'bench', runId: 'base', generatedAt: manifest.generatedAt, manifest: manifestKey }), { contentType: 'application/json' });
}

async function exportRun(withChanges: boolean, parquet: boolean): Promise<{ changed: number; added: number; removed: number }> {
  const links = input.kind === 'export+changes:all-links' ? { maxHyperlinksPerSheet: Number.POSITIVE_INFINITY } : {};
  const workbook = parquet ? undefined : openXlsxWorkbook(createWriteStream(`${input.dir}/out.xlsx`), { createdAt: CREATED_AT, timeZone: TIME_ZONE, locale: 'en-GB', title: 'bench', ...links });
  const changes = withChanges ? await tracker('bench/dt=2026-11-23/run=now', '2026-11-23T06:00:00Z') : undefined;
  const sinks: TableSink[] = workbook
    ? [workbook.openSheet(table, { outlineLevels: 1 }), openCsvSink(table, createWriteStream(`${input.dir}/out.csv`), { bom: true, timeZone: TIME_ZONE })]
    : [openParquetSink(table, createWriteStream(`${input.dir}/out.parquet`), { runId: 'now', exportedAt: new Date('2026-11-23T06:00:00Z'), schemaVersion: '1.0' })];
  const tracked = changes ? await changes.openTable('boardItems', table, selectors) : undefined;
  if (tracked) sinks.push(tracked);
  await drive(currentRows(), sinks);
  const report = changes ? (await changes.finish()).report : undefined;
  if (workbook) {
    await workbook.writeSummary({ title: 'bench', sections: [] });
    await workbook.close();
  }
  return report ? report.counts : { changed: 0, added: 0, removed: 0 };
}

const rssStartMb = process.memoryUsage.rss() / 2 ** 20;
const cpuStart = process.cpuUsage();
const started = performance.now();
let counts = { changed: 0, added: 0, removed: 0 };
if (input.kind === 'prepare') await prepare();
else counts = await exportRun(input.kind !== 'export', input.kind === 'parquet+changes');
if (input.kind !== 'prepare' && input.kind !== 'export') {
  // The measurement is of a comparison that finds what currentRows() changed; a bench that silently
  // compared equal tables measured less than it says.
  const expected = { changed: Math.ceil((input.rows - 7) / 100), removed: Math.ceil((input.rows - 3) / 1000), added: Math.floor(input.rows / 1000) };
  for (const [what, n] of Object.entries(expected)) {
    const found = counts[what as keyof typeof counts];
    if (found !== n) throw new Error(`the comparison found ${found} ${what} rows, the bench made ${n}`);
  }
}
const wallMs = performance.now() - started;
const cpu = process.cpuUsage(cpuStart);
reportResult({ wallMs, cpuMs: (cpu.user + cpu.system) / 1000, rssStartMb, ...counts });
