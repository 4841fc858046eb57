/**
 * 2. Rendering: board-item rows to xlsx and CSV through the project's renderers, against the cost
 * of the bytes alone (the same sheet XML through zlib level 6) and exceljs's in-memory Workbook.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { runWorker, TMP_DIR } from '../lib/child';
import { int, mb, median, mib, over, progress, ratio, seconds, table, type SectionResult, type TargetCheck } from '../lib/common';
import type { RenderKind, RenderResult } from '../workers/render';

export const DEFAULT_SIZES = [10_000, 100_000, 300_000] as const;

export interface RenderOptions {
  readonly sizes: readonly number[];
  readonly repeat: number;
}

/** Runs above this many rows are made once: each takes tens of seconds. */
const REPEAT_UP_TO_ROWS = 100_000;
/** exceljs's in-memory Workbook is measured up to this size (about 1.9 GB of RSS at 100,000 rows, docs/benchmarks.md). */
const EXCELJS_MEMORY_MAX_ROWS = 100_000;
const EXCELJS_MEMORY_HEAP_MB = 6_144;
const RENDER_HEAP_MB = 1_024;

interface Measured {
  kind: RenderKind;
  rows: number;
  links: boolean;
  runs: number;
  wallMs: number;
  cpuMs: number;
  peakRssMb: number;
  rssStartMb: number;
  bytes: number;
  error?: string;
}

async function measure(kind: RenderKind, rows: number, links: boolean, runs: number, heapMb: number): Promise<Measured> {
  const walls: number[] = [];
  const cpus: number[] = [];
  let peak = 0;
  let rssStart = Number.NaN;
  let bytes = Number.NaN;
  for (let i = 0; i < runs; i++) {
    progress(`render: ${kind} ${int(rows)} rows${links ? '' : ' without links'} (${i + 1}/${runs})`);
    const file = join(TMP_DIR, `render-${process.pid}.${kind === 'csv' ? 'csv' : kind === 'deflate' ? 'deflate' : 'xlsx'}`);
    const outcome = await runWorker<RenderResult>('workers/render.ts', { kind, rows, links, file }, { maxOldSpaceMb: heapMb });
    rmSync(file, { force: true });
    if (!outcome.result) {
      const oom = /heap out of memory|Allocation failed/i.test(outcome.stderrTail);
      return {
        kind, rows, links, runs: i, wallMs: Number.NaN, cpuMs: Number.NaN, peakRssMb: outcome.peakRssMb, rssStartMb: Number.NaN, bytes: Number.NaN,
        error: oom ? `out of memory with --max-old-space-size=${heapMb}` : `failed (exit ${String(outcome.exitCode)})`,
      };
    }
    walls.push(outcome.result.wallMs);
    cpus.push(outcome.result.cpuMs);
    peak = Math.max(peak, outcome.peakRssMb);
    rssStart = outcome.result.rssStartMb;
    bytes = outcome.result.bytes;
  }
  return { kind, rows, links, runs, wallMs: median(walls), cpuMs: median(cpus), peakRssMb: peak, rssStartMb: rssStart, bytes };
}

const LABELS: Record<RenderKind, string> = {
  xlsx: 'xlsx (shared/render/xlsx/)',
  csv: 'CSV (shared/render/csv.ts)',
  deflate: 'reference: sheet XML → zlib level 6 → file',
  'exceljs-memory': 'reference: exceljs in-memory Workbook',
  generate: 'reference: generating the rows only',
  parquet: 'Parquet (shared/render/parquet/)',
};

export async function runRenderSection(options: RenderOptions): Promise<SectionResult> {
  const started = performance.now();
  const sizes = [...options.sizes].sort((a, b) => a - b);
  const smallest = sizes[0]!;
  const largest = sizes[sizes.length - 1]!;
  const all: Measured[] = [];
  const rowsOut: string[][] = [];

  for (const rows of sizes) {
    const runs = rows <= REPEAT_UP_TO_ROWS ? options.repeat : 1;
    const deflate = await measure('deflate', rows, true, runs, RENDER_HEAP_MB);
    const generate = await measure('generate', rows, true, runs, RENDER_HEAP_MB);
    const xlsx = await measure('xlsx', rows, true, runs, RENDER_HEAP_MB);
    const csv = await measure('csv', rows, true, runs, RENDER_HEAP_MB);
    const set: Measured[] = [xlsx, csv, deflate, generate];
    if (rows === smallest || rows === largest) set.push(await measure('xlsx', rows, false, 1, RENDER_HEAP_MB));
    if (rows <= EXCELJS_MEMORY_MAX_ROWS) set.push(await measure('exceljs-memory', rows, true, 1, EXCELJS_MEMORY_HEAP_MB));
    all.push(...set);
    for (const m of set) {
      rowsOut.push([
        `${LABELS[m.kind]}${m.links ? '' : ', **no hyperlinks**'}`,
        int(rows),
        m.error ?? `${seconds(m.wallMs)}${m.runs > 1 ? ` (median of ${m.runs})` : ''}`,
        m.error ? '–' : int(rows / (m.wallMs / 1000)),
        m.kind === 'deflate' ? '1.00×' : ratio(m.wallMs / deflate.wallMs),
        m.kind === 'generate' ? '–' : mb(m.peakRssMb),
        mb(m.rssStartMb),
        m.kind === 'generate' ? '–' : mib(m.bytes),
      ]);
    }
    if (rows > EXCELJS_MEMORY_MAX_ROWS) {
      const measured = all.filter((m) => m.kind === 'exceljs-memory' && !m.error).sort((a, b) => b.rows - a.rows)[0];
      const scale = measured
        ? `${mb(measured.peakRssMb)} at ${int(measured.rows)} rows in this run, so ~${(((measured.peakRssMb * rows) / measured.rows) / 1024).toFixed(1)} GB here`
        : 'about 1.9 GB at 100,000 rows in docs/benchmarks.md';
      rowsOut.push([LABELS['exceljs-memory'], int(rows), `not run: it holds the whole workbook in memory (${scale}, far beyond the export Lambda's 1,024 MB)`, '–', '–', '–', '–', '–']);
    }
  }

  const find = (kind: RenderKind, rows: number, links = true) => all.find((m) => m.kind === kind && m.rows === rows && m.links === links);
  const xlsxRatios = sizes.map((rows) => ({ rows, r: find('xlsx', rows)!.wallMs / find('deflate', rows)!.wallMs }));
  const targets: TargetCheck[] = [
    {
      target: 'Render: xlsx within 2× of the level-6 deflate lower bound',
      measured: xlsxRatios.map((x) => `${int(x.rows)}: ${ratio(x.r)}`).join(', '),
      met: xlsxRatios.every((x) => Number.isFinite(x.r)) ? xlsxRatios.every((x) => x.r <= 2) : undefined,
      gap: over(Math.max(...xlsxRatios.map((x) => x.r)), 2),
    },
  ];
  const big = find('xlsx', 300_000, false);
  const bigLinks = find('xlsx', 300_000);
  const small = find('xlsx', 10_000, false);
  targets.push({
    target: 'Render: peak RSS of the xlsx render at 300,000 rows < 200 MB (hyperlink table excepted)',
    measured: big ? `${mb(big.peakRssMb)} without links (${bigLinks ? mb(bigLinks.peakRssMb) : '–'} with)` : 'not run (300000 not in --sizes)',
    met: big && !big.error ? big.peakRssMb < 200 : undefined,
    ...(big && { gap: `${over(big.peakRssMb, 200)}, ${mb(big.peakRssMb - 200)} over` }),
  });
  targets.push({
    target: 'Render: peak RSS at 300,000 rows ≤ 1.5× that at 10,000 (hyperlink table excepted)',
    measured: big && small ? `${mb(big.peakRssMb)} / ${mb(small.peakRssMb)} = ${(big.peakRssMb / small.peakRssMb).toFixed(3)}×` : 'not run (needs 10000 and 300000 in --sizes)',
    met: big && small && !big.error && !small.error ? big.peakRssMb / small.peakRssMb <= 1.5 : undefined,
    ...(big && small && { gap: over(big.peakRssMb / small.peakRssMb, 1.5) }),
  });

  const linkCost = bigLinks && big ? bigLinks.peakRssMb - big.peakRssMb : Number.NaN;
  const markdown = [
    `Rows: the real \`BOARD_ITEM_COLUMNS\` (23 columns) with realistic feature and story rows (bench/lib/board-item-rows.ts): ` +
      `about 530 bytes per CSV line, non-ASCII and \`& < > " ,\` in texts, dates, numbers, percentages, outline levels, ` +
      `a tracker hyperlink per row. Each figure is one fresh process (an esbuild bundle on plain node, ` +
      `\`--max-old-space-size=${RENDER_HEAP_MB}\`; the in-memory exceljs workbook gets ${EXCELJS_MEMORY_HEAP_MB}); ` +
      `peak RSS is the child's own high-water mark (VmHWM / maxRSS), "RSS at start" is the same process after its imports, ` +
      `before the first row. The reference "sheet XML → zlib level 6" produces the very XML the xlsx renderer writes ` +
      `(same cells, styles, outline levels, hyperlink list and relationships) from the same rows and deflates it into a file: ` +
      `the cost of the bytes alone. "÷ deflate" is each time over that reference at the same size.`,
    '',
    table(['writer', 'rows', 'wall time', 'rows/s', '÷ deflate', 'peak RSS', 'RSS at start', 'file'], rowsOut),
    '',
    Number.isFinite(linkCost)
      ? `Hyperlinks at ${int(largest)} rows: ${mb(bigLinks!.peakRssMb)} with, ${mb(big!.peakRssMb)} without — the hyperlink table costs ${mb(linkCost)} of peak RSS.`
      : '',
  ].join('\n');
  return { id: 'render', title: '2. Rendering', markdown, targets, durationMs: performance.now() - started };
}
