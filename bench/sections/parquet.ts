/**
 * 5. Parquet: the machine-table writer (shared/render/parquet/) against the xlsx renderer and the CSV
 * renderer on the same 300,000 board-item rows, each in a fresh process, in the same run: time as a
 * ratio to xlsx, peak RSS (and at 10,000 rows, to show it is flat), file size as a ratio to the CSV.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { runWorker, TMP_DIR } from '../lib/child';
import { int, mb, mib, over, progress, ratio, seconds, table, type SectionResult, type TargetCheck } from '../lib/common';
import type { RenderKind, RenderResult } from '../workers/render';

const ROWS = 300_000;
const SMALL = 10_000;
const HEAP_MB = 1_024;

interface Measured {
  readonly kind: RenderKind;
  readonly rows: number;
  readonly wallMs: number;
  readonly cpuMs: number;
  readonly peakRssMb: number;
  readonly rssStartMb: number;
  readonly bytes: number;
  readonly error?: string;
}

async function measure(kind: RenderKind, rows: number): Promise<Measured> {
  progress(`parquet: ${kind} ${int(rows)} rows`);
  const file = join(TMP_DIR, `parquet-section-${process.pid}.${kind}`);
  const outcome = await runWorker<RenderResult>('workers/render.ts', { kind, rows, links: true, file }, { maxOldSpaceMb: HEAP_MB });
  rmSync(file, { force: true });
  if (!outcome.result) {
    return { kind, rows, wallMs: Number.NaN, cpuMs: Number.NaN, peakRssMb: outcome.peakRssMb, rssStartMb: Number.NaN, bytes: Number.NaN, error: `failed (exit ${String(outcome.exitCode)})` };
  }
  return { kind, rows, ...outcome.result, peakRssMb: outcome.peakRssMb };
}

const LABELS: Partial<Record<RenderKind, string>> = {
  parquet: 'Parquet, snappy (shared/render/parquet/)',
  xlsx: 'xlsx (shared/render/xlsx/)',
  csv: 'CSV (shared/render/csv.ts)',
};

export async function runParquetSection(): Promise<SectionResult> {
  const started = performance.now();
  const xlsx = await measure('xlsx', ROWS);
  const csv = await measure('csv', ROWS);
  const parquet = await measure('parquet', ROWS);
  const small = await measure('parquet', SMALL);

  const rows = [xlsx, csv, parquet, small].map((m) => [
    LABELS[m.kind]!,
    int(m.rows),
    m.error ?? seconds(m.wallMs),
    seconds(m.cpuMs),
    ratio(m.wallMs / xlsx.wallMs),
    mb(m.peakRssMb),
    mb(m.rssStartMb),
    mib(m.bytes),
    m.rows === ROWS ? ratio(m.bytes / csv.bytes) : '–',
  ]);
  const timeRatio = parquet.wallMs / xlsx.wallMs;
  const sizeRatio = parquet.bytes / csv.bytes;
  const ok = (...ms: Measured[]) => ms.every((m) => !m.error);
  const targets: TargetCheck[] = [
    {
      target: 'Parquet: writer time at 300,000 rows ≤ 0.5× the xlsx render in the same run',
      measured: `${seconds(parquet.wallMs)} / ${seconds(xlsx.wallMs)} = ${ratio(timeRatio)}`,
      met: ok(parquet, xlsx) ? timeRatio <= 0.5 : undefined,
      gap: over(timeRatio, 0.5),
    },
    {
      target: 'Parquet: peak RSS at 300,000 rows < 200 MB',
      measured: `${mb(parquet.peakRssMb)} (${mb(small.peakRssMb)} at 10,000 rows)`,
      met: ok(parquet) ? parquet.peakRssMb < 200 : undefined,
      gap: over(parquet.peakRssMb, 200),
    },
    {
      target: 'Parquet: file ≤ 0.3× the CSV of the same rows',
      measured: `${mib(parquet.bytes)} / ${mib(csv.bytes)} = ${ratio(sizeRatio)}`,
      met: ok(parquet, csv) ? sizeRatio <= 0.3 : undefined,
      gap: over(sizeRatio, 0.3),
    },
  ];
  const markdown = [
    'The rows of the render section (bench/lib/board-item-rows.ts: the real `BOARD_ITEM_COLUMNS`, ~530 bytes a CSV line, ' +
      'a tracker link per row, `teams`/`sprints` as lists), each writer in a fresh process (esbuild bundle on plain node, ' +
      `\`--max-old-space-size=${HEAP_MB}\`), one run each. Parquet: hyparquet-writer, snappy, row groups of 10,000 rows, ` +
      'typed columns plus `run_id` and `exported_at`, written to the file as each row group fills.',
    '',
    table(['writer', 'rows', 'wall time', 'CPU', '÷ xlsx', 'peak RSS', 'RSS at start', 'file', '÷ CSV'], rows),
  ].join('\n');
  return { id: 'parquet', title: '5. Parquet', markdown, targets, durationMs: performance.now() - started };
}
