/**
 * Trends measurement (one process per run): `rows` board-item rows through the export's sinks (xlsx
 * and CSV, as runExport drives them), with or without the trends output's work
 * (shared/report/outputs/trends.ts): the feature tally as a sink, the history of 12 earlier runs
 * read from their manifests while the rows stream, and the Trends sheet with its charts.
 *
 *   prepare          12 earlier runs: manifests (with the figures trends read) chained by `changes.previous`, and latest.json
 *   export           this run's rows into xlsx + CSV only
 *   export+trends    the same, plus the trends
 */
import { DEFAULT_LOCALE } from '../../shared/core/format';
import { createWriteStream } from 'node:fs';
import { reportResult, workerInput } from '../lib/worker';
import { boardItemRow, COLUMNS } from '../lib/board-item-rows';
import { openCsvSink } from '../../shared/render/csv';
import { openXlsxWorkbook } from '../../shared/render/xlsx/workbook';
import { latestKey } from '../../shared/report/manifest/layout';
import { manifestSchema } from '../../shared/report/manifest/manifest';
import { FeatureCompletion } from '../../shared/report/trends/figures';
import { startTrends } from '../../shared/report/trends/run-trends';
import { trendsSheetContent } from '../../shared/report/trends/sheet';
import { messagesFor } from '../../shared/core/i18n/messages';

const TRENDS_SHEET_NAME = 'Trends';
import { LocalDirectoryStorage } from '../../shared/storage/local-storage';
import type { TableDefinition, TableRow, TableSink } from '../../shared/table/table';
import { silentLog } from '../../shared/core/logger';

/** The workbook's created time: fixed, so a file's bytes depend on nothing but its content. */
const CREATED_AT = new Date('2026-11-23T06:00:00Z');

export type TrendsKind = 'prepare' | 'export' | 'export+trends';

interface Input {
  kind: TrendsKind;
  rows: number;
  /** Scratch directory: the storage root and the output files (deleted by the parent). */
  dir: string;
}

const input = workerInput<Input>();
const table: TableDefinition = { name: 'board-items', columns: COLUMNS, outlineLevels: 1 };
const TIME_ZONE = 'Europe/Berlin';
const HISTORY = 12;
const storage = new LocalDirectoryStorage(input.dir);
/** The Summary's sections a real manifest carries, so each manifest is ~28 kB like the demo's (the reader parses them all). */
const FILLER = [{ title: 'Needs attention', rows: Array.from({ length: 300 }, (_, i) => `Committed objective ${i} without actual BV (planned 8) · Platform Release Train`) }];

function* rows(): Generator<TableRow> {
  for (let i = 0; i < input.rows; i++) yield boardItemRow(i);
}

/** The figures a run's manifest keeps for the trends, moving a little from run to run. */
function summary(run: number): Record<string, unknown> {
  const boards = Object.fromEntries([1, 2, 3, 4, 5].map((b) => [`b${b}`, { label: `Board ${b}`, predictability: 70 + ((run * b) % 30) }]));
  return {
    openRisks: { open: 400 - run * 5, highOrCritical: 60 - run, overdue: 20 + (run % 4), withoutOwner: 10 },
    okr: { themeProgress: Object.fromEntries([1, 2, 3, 4].map((t) => [`T${t}`, Math.min(100, run * 6 + t)])) },
    piPredictability: { boards, all: { predictability: 85 } },
    featureCompletion: Object.fromEntries([1, 2, 3, 4, 5].map((b) => [`b${b}`, { title: `Board ${b}`, features: 20_000, done: run * 1_500, estimate: 100_000, estimateDone: run * 7_000 }])),
  };
}

async function prepare(): Promise<void> {
  let previous: string | null = null;
  let latest = '';
  for (let run = 1; run <= HISTORY; run++) {
    const day = new Date(Date.UTC(2026, 8, 7 + run * 7)).toISOString();
    const key = `bench/dt=${day.slice(0, 10)}/run=r${run}/manifest.json`;
    // Parsed as readers parse it, so a manifest the trends would skip fails the bench instead.
    const manifest = manifestSchema.parse({
      formatVersion: 1, report: 'bench', runId: `r${run}`, generatedAt: day, timeZone: TIME_ZONE,
      source: { baseUrl: '-', legacyBaseUrl: '-', companyPrefix: '-', email: '-' }, selectors: { requested: {}, resolved: {} }, files: [],
      summary: { title: 'bench', rows: { 'board-items': input.rows }, ...summary(run), sections: FILLER },
      changes: { trigger: 'scheduled', previous, baseline: null, note: null, counts: { added: run, removed: 0, changed: run * 10, scope: input.rows }, snapshots: [] },
    });
    await storage.putObject(key, JSON.stringify(manifest), { contentType: 'application/json' });
    previous = key;
    latest = key;
  }
  await storage.putObject(latestKey('bench'), JSON.stringify({ report: 'bench', runId: `r${HISTORY}`, generatedAt: new Date(Date.UTC(2026, 8, 7 + HISTORY * 7)).toISOString(), manifest: latest }), { contentType: 'application/json' });
}

async function drive(sinks: TableSink[]): Promise<void> {
  for (const row of rows()) {
    for (const sink of sinks) {
      const pending = sink.writeRow(row);
      if (pending) await pending;
    }
  }
  for (const sink of sinks) await sink.close();
}

async function exportRun(withTrends: boolean): Promise<number> {
  const workbook = openXlsxWorkbook(createWriteStream(`${input.dir}/out.xlsx`), {
    createdAt: CREATED_AT,
    timeZone: TIME_ZONE, locale: 'en-GB', title: 'bench', ...(withTrends && { leadingSheets: [TRENDS_SHEET_NAME] }),
  });
  const history = withTrends ? startTrends({ storage, report: 'bench', runs: HISTORY + 1, log: silentLog }) : undefined;
  const features = new FeatureCompletion();
  const sinks: TableSink[] = [
    workbook.openSheet(table, { outlineLevels: 1 }),
    openCsvSink(table, createWriteStream(`${input.dir}/out.csv`), { bom: true, timeZone: TIME_ZONE }),
  ];
  const tally = withTrends ? features.sinkFor(table) : undefined;
  if (tally) sinks.push(tally);
  await drive(sinks);
  let runs = 0;
  if (history) {
    const trends = await history.finish({
      runId: 'now', generatedAt: '2026-12-07T06:00:00.000Z', selectors: { requested: {}, resolved: {} },
      summary: { ...summary(HISTORY + 1), ...features.figures() },
    }, TIME_ZONE, DEFAULT_LOCALE);
    await workbook.writeChartSheet(TRENDS_SHEET_NAME, trendsSheetContent(trends, messagesFor('en-GB')));
    runs = trends.runs;
    if (runs !== HISTORY + 1) throw new Error(`the trends read ${runs - 1} of ${HISTORY} earlier runs: ${JSON.stringify(trends.skipped)}`);
  }
  await workbook.writeSummary({ title: 'bench', sections: [] });
  await workbook.close();
  return runs;
}

const rssStartMb = process.memoryUsage.rss() / 2 ** 20;
const cpuStart = process.cpuUsage();
const started = performance.now();
let runs = 0;
if (input.kind === 'prepare') await prepare();
else runs = await exportRun(input.kind === 'export+trends');
const wallMs = performance.now() - started;
const cpu = process.cpuUsage(cpuStart);
reportResult({ wallMs, cpuMs: (cpu.user + cpu.system) / 1000, rssStartMb, runs });
