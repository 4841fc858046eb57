/**
 * Renders board-item-like rows (20 columns, ~530 bytes a row, a hyperlink and a fill per row) to
 * xlsx and CSV and prints time, rows/s, peak RSS, heap and file size. Each run is its own process,
 * so one run's heap does not inflate the next one's peak.
 *
 *   npx tsx test/shared/render/measure-render.ts                 # 10k and 100k rows, both formats
 *   npx tsx test/shared/render/measure-render.ts 300000          # chosen row counts
 *   npx tsx test/shared/render/measure-render.ts --one xlsx 100000   # a single run (JSON line)
 *
 * Each configuration runs 3 times (MEASURE_REPEAT to change); the median run by wall time is
 * shown. CPU time (user + system, all threads) is shown too: shared machines are noisy, and CPU
 * time moves less with other load than wall time does. MEASURE_NO_LINKS=1 leaves the link column
 * empty, to see memory without the hyperlink relationships (which grow with the rows).
 * Also prints the zlib level-6 time of the same sheet XML: the cost of the bytes alone, the floor
 * for any xlsx writer at that compression.
 */
import { spawnSync } from 'node:child_process';
import { createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { deflateRawSync } from 'node:zlib';
import { openCsvSink } from '../../../shared/render/csv';
import { openXlsxWorkbook } from '../../../shared/render/xlsx';
import type { TableDefinition, TableRow } from '../../../shared/report/table';
import { readZipEntries } from './zip-entries';

export const BOARD_ITEMS: TableDefinition = {
  name: 'board-items',
  columns: [
    { key: 'id', type: 'integer', description: '' },
    { key: 'key', type: 'text', description: '' },
    { key: 'title', type: 'text', description: '' },
    { key: 'description', type: 'text', description: '' },
    { key: 'type', type: 'text', description: '' },
    { key: 'state', type: 'text', description: '' },
    { key: 'team', type: 'text', description: '' },
    { key: 'owner', type: 'text', description: '' },
    { key: 'sprint', type: 'text', description: '' },
    { key: 'story_points', type: 'number', description: '' },
    { key: 'business_value', type: 'integer', description: '' },
    { key: 'progress', type: 'percent', description: '' },
    { key: 'start_date', type: 'date', description: '' },
    { key: 'end_date', type: 'date', description: '' },
    { key: 'updated_at', type: 'datetime', description: '' },
    { key: 'blocked', type: 'boolean', description: '' },
    { key: 'tags', type: 'text', description: '' },
    { key: 'parent_key', type: 'text', description: '' },
    { key: 'url', type: 'link', description: '' },
    { key: 'color', type: 'text', description: '' },
  ],
};

/** MEASURE_NO_LINKS=1 leaves the link column empty: hyperlinks are the one cost that grows with rows. */
const NO_LINKS = process.env.MEASURE_NO_LINKS === '1';
const STATES = ['Not started', 'In progress', 'Blocked', 'Done', 'Accepted'];
const TEAMS = ['Phoenix', 'Dragon', 'Unicorn', 'Kraken', 'Griffin', 'Basilisk'];
const COLORS = ['#1f3864', '#ffeb9c', '#c6efce', '#ffc7ce', '#00b050', '#7030a0', '#d9d9d9'];
const WORDS = 'alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma'.split(' ');

function words(seed: number, count: number): string {
  let s = '';
  for (let i = 0; i < count; i++) s += (i ? ' ' : '') + WORDS[(seed * 7 + i * 13) % WORDS.length];
  return s;
}

export function boardItemRow(i: number): TableRow {
  const start = Date.UTC(2026, 0, 1) + (i % 365) * 86_400_000;
  return {
    values: [
      100_000 + i,
      `PHX-${i}`,
      `${words(i, 8)} & <${i % 97}>`,
      `As a user I want ${words(i + 1, 16)},\nso that "${words(i + 2, 10)}".\nAcceptance: ${words(i + 3, 12)}; done.`,
      i % 5 === 0 ? 'Feature' : 'Story',
      STATES[i % STATES.length]!,
      TEAMS[i % TEAMS.length]!,
      `Person ${i % 211}`,
      `Sprint ${(i % 26) + 1}`,
      (i % 13) + 0.5,
      i % 100,
      i % 101,
      new Date(start),
      new Date(start + 14 * 86_400_000),
      new Date(start + (i % 86_400) * 1000),
      i % 17 === 0,
      `tag-${i % 7}, tag-${i % 11}, release-${i % 13}, area-${i % 5}`,
      i % 5 === 0 ? null : `PHX-${i - (i % 5)}`,
      NO_LINKS ? null : { text: `PHX-${i}`, url: `https://planning.example.com/boards/42/items/${100_000 + i}` },
      COLORS[i % COLORS.length]!,
    ],
    outlineLevel: i % 5 === 0 ? 0 : 1,
    fill: { column: 5, color: COLORS[i % COLORS.length]! },
  };
}

interface Result {
  format: string;
  rows: number;
  seconds: number;
  cpuSeconds: number;
  rowsPerSecond: number;
  peakRssMb: number;
  peakHeapMb: number;
  bytes: number;
  deflateSeconds?: number;
}

async function runOne(format: 'xlsx' | 'csv', rows: number): Promise<Result> {
  const dir = mkdtempSync(join(tmpdir(), 'measure-render-'));
  const path = join(dir, `board-items.${format}`);
  let peakRss = process.memoryUsage.rss();
  let peakHeap = process.memoryUsage().heapUsed;
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, process.memoryUsage.rss());
    peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed);
  }, 20);
  const started = process.hrtime.bigint();
  const cpuStart = process.cpuUsage();
  if (format === 'xlsx') {
    const workbook = openXlsxWorkbook(createWriteStream(path), { timeZone: 'Europe/Berlin', title: 'measure' });
    const sheet = workbook.openSheet(BOARD_ITEMS, { outlineLevels: 1 });
    for (let i = 0; i < rows; i++) await sheet.writeRow(boardItemRow(i));
    const written = await sheet.close();
    await workbook.writeSummary({
      title: 'measure',
      sections: [{ heading: 'Rows', lines: [{ label: 'board-items', value: written, type: 'integer' }] }],
    });
    await workbook.close();
  } else {
    const sink = openCsvSink(BOARD_ITEMS, createWriteStream(path), { bom: true, timeZone: 'Europe/Berlin' });
    for (let i = 0; i < rows; i++) await sink.writeRow(boardItemRow(i));
    await sink.close();
  }
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const cpu = process.cpuUsage(cpuStart);
  clearInterval(sampler);
  peakRss = Math.max(peakRss, process.memoryUsage.rss());
  const result: Result = {
    format,
    rows,
    seconds,
    cpuSeconds: (cpu.user + cpu.system) / 1e6,
    rowsPerSecond: Math.round(rows / seconds),
    peakRssMb: Math.round(peakRss / 2 ** 20),
    peakHeapMb: Math.round(peakHeap / 2 ** 20),
    bytes: statSync(path).size,
  };
  if (format === 'xlsx') {
    const xml = (await readZipEntries(path)).get('xl/worksheets/sheet2.xml')!;
    const deflateStart = process.hrtime.bigint();
    deflateRawSync(Buffer.from(xml, 'utf8'), { level: 6 });
    result.deflateSeconds = Number(process.hrtime.bigint() - deflateStart) / 1e9;
  }
  rmSync(dir, { recursive: true, force: true });
  return result;
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  if (args[0] === '--one') {
    const result = await runOne(args[1] === 'csv' ? 'csv' : 'xlsx', Number(args[2]));
    console.log(JSON.stringify(result));
    return;
  }
  const counts = args.length ? args.map(Number) : [10_000, 100_000];
  const repeat = Number(process.env.MEASURE_REPEAT ?? 3);
  const sample = JSON.stringify(boardItemRow(7).values);
  console.log(`row sample: ~${Buffer.byteLength(sample)} bytes as JSON, ${BOARD_ITEMS.columns.length} columns`);
  console.log(`median of ${repeat} runs by wall time; peak RSS is the highest of the runs`);
  console.log('format  rows      wall s   cpu s   rows/s   peak RSS  peak heap  size        zlib-6 of sheet XML');
  for (const rows of counts) {
    for (const format of ['xlsx', 'csv']) {
      const runs: Result[] = [];
      for (let i = 0; i < repeat; i++) {
        const child = spawnSync(process.execPath, [...process.execArgv, process.argv[1]!, '--one', format, String(rows)], {
          encoding: 'utf8',
        });
        if (child.status !== 0) throw new Error(`run failed: ${child.stderr}`);
        runs.push(JSON.parse(child.stdout.trim().split('\n').pop()!) as Result);
      }
      runs.sort((a, b) => a.seconds - b.seconds);
      const r = runs[Math.floor(runs.length / 2)]!;
      const peakRss = Math.max(...runs.map((x) => x.peakRssMb));
      const deflate = runs.map((x) => x.deflateSeconds).filter((x): x is number => x !== undefined).sort((a, b) => a - b);
      console.log(
        [
          r.format.padEnd(6),
          String(r.rows).padEnd(9),
          r.seconds.toFixed(2).padStart(6),
          r.cpuSeconds.toFixed(2).padStart(6),
          String(r.rowsPerSecond).padStart(7),
          `${peakRss} MB`.padStart(9),
          `${r.peakHeapMb} MB`.padStart(10),
          `${(r.bytes / 2 ** 20).toFixed(1)} MiB`.padStart(10),
          deflate.length ? `  ${deflate[Math.floor(deflate.length / 2)]!.toFixed(2)} s` : '',
        ].join('  '),
      );
    }
  }
}

// Importable (for a profile of one run: node --import tsx --cpu-prof … --one xlsx 100000).
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
