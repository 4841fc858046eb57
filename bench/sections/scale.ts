/**
 * 9. Memory in rows: peak RSS of an export with a baseline (the comparison with the last run) at
 * 300,000 and at 2,000,000 board-item rows, for xlsx + CSV and for Parquet alone. Target (issue 22):
 * the peak at 2 million rows ≤ 1.2× that at 300,000 for each. Fetching is left out (section 8 has
 * the whole run at 2 million rows); what grows with rows here is what the renderers and the
 * comparison hold.
 */
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { runWorker, TMP_DIR } from '../lib/child';
import { int, mb, median, over, progress, seconds, table, type SectionResult } from '../lib/common';
import type { ChangesKind } from '../workers/changes';

export const SCALE_ROWS = [300_000, 2_000_000] as const;
const HEAP_MB = 1_024;
const KINDS = ['export+changes', 'parquet+changes', 'export+changes:all-links'] as const satisfies readonly ChangesKind[];
/** The kinds with a target; the last is the reference: what the xlsx render held before links were capped. */
const TARGET_KINDS = ['export+changes', 'parquet+changes'] as const;
const LABELS: Record<(typeof KINDS)[number], string> = {
  'export+changes': 'xlsx + CSV + comparison',
  'parquet+changes': 'Parquet + comparison',
  'export+changes:all-links': 'reference: xlsx + CSV + comparison, every link a hyperlink (no cap)',
};
/** The limit the issue sets: peak RSS at the largest size over that at the smallest. */
const MAX_GROWTH = 1.2;

interface Result {
  wallMs: number;
  cpuMs: number;
  rssStartMb: number;
}

interface Measured {
  wall: number[];
  peak: number[];
}

async function measureSize(rows: number, repeat: number): Promise<Record<(typeof KINDS)[number], Measured>> {
  const dir = join(TMP_DIR, `scale-${process.pid}-${rows}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  try {
    progress(`scale: preparing the baseline (${int(rows)} rows)`);
    const prepared = await runWorker<Result>('workers/changes.ts', { kind: 'prepare', rows, dir }, { maxOldSpaceMb: HEAP_MB });
    if (!prepared.result) throw new Error(`preparing the baseline failed: ${prepared.stderrTail}`);
    const measured = Object.fromEntries(KINDS.map((k) => [k, { wall: [], peak: [] }])) as unknown as Record<(typeof KINDS)[number], Measured>;
    // Alternating, so a burst of load on the shared machine hits both kinds alike.
    for (let i = 0; i < repeat; i++) {
      for (const kind of KINDS) {
        progress(`scale: ${kind} ${int(rows)} rows (${i + 1}/${repeat})`);
        const outcome = await runWorker<Result>('workers/changes.ts', { kind, rows, dir }, { maxOldSpaceMb: HEAP_MB });
        // The uncapped reference may not fit the heap at the largest size: that is a finding, not a failure.
        if (!outcome.result && kind !== 'export+changes:all-links') throw new Error(`${kind} at ${int(rows)} rows failed: ${outcome.stderrTail}`);
        measured[kind].wall.push(outcome.result?.wallMs ?? Number.NaN);
        measured[kind].peak.push(outcome.result ? outcome.peakRssMb : Number.NaN);
        rmSync(join(dir, 'bench', 'dt=2026-11-23'), { recursive: true, force: true });
      }
    }
    return measured;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function runScaleSection(options: { repeat: number; rows?: readonly number[] }): Promise<SectionResult> {
  const started = performance.now();
  const sizes = [...(options.rows ?? SCALE_ROWS)].sort((a, b) => a - b);
  const bySize = new Map<number, Record<(typeof KINDS)[number], Measured>>();
  for (const rows of sizes) bySize.set(rows, await measureSize(rows, options.repeat));
  const smallest = sizes[0]!;
  const largest = sizes[sizes.length - 1]!;
  const peakOf = (rows: number, kind: (typeof KINDS)[number]) => median(bySize.get(rows)![kind].peak);
  const rowsOut = sizes.flatMap((rows) =>
    KINDS.map((kind) => {
      const m = bySize.get(rows)![kind];
      const spread = m.peak.length > 1 ? ` (median of ${m.peak.length}, ${mb(Math.min(...m.peak))}–${mb(Math.max(...m.peak))})` : '';
      if (!Number.isFinite(median(m.peak))) return [LABELS[kind], int(rows), 'failed: out of memory in 1,024 MB', '–', '–'];
      return [LABELS[kind], int(rows), seconds(median(m.wall)), `${mb(median(m.peak))}${spread}`, `${(((median(m.peak) - peakOf(smallest, kind)) * 1024) / Math.max(1, rows - smallest)).toFixed(3)} KB`];
    }),
  );
  const markdown = [
    `Board-item rows (bench/lib/board-item-rows.ts, a tracker hyperlink each) through the export's sinks with the comparison against a ` +
      `prepared baseline of the same size (bench/workers/changes.ts: 1 % changed, 0.1 % removed, 0.1 % added): ` +
      `this run's snapshot written, the baseline streamed into the key map, each row compared as it streams. ` +
      `Fresh process per run, \`--max-old-space-size=${HEAP_MB}\` (the export Lambda's memory), the two kinds alternating; ` +
      `${options.repeat} run(s) of each. "Per extra row" is the growth of peak RSS over the smallest size, per row.`,
    '',
    table(['run', 'rows', 'wall time', 'peak RSS', 'per extra row'], rowsOut),
  ].join('\n');
  return {
    id: 'scale',
    title: '9. Memory in rows',
    markdown,
    durationMs: performance.now() - started,
    targets: TARGET_KINDS.map((kind) => {
      const growth = peakOf(largest, kind) / peakOf(smallest, kind);
      return {
        target: `Memory: ${LABELS[kind]}, peak RSS at ${int(largest)} rows ≤ ${MAX_GROWTH}× that at ${int(smallest)}`,
        measured: `${mb(peakOf(largest, kind))} / ${mb(peakOf(smallest, kind))} = ${growth.toFixed(2)}×`,
        met: Number.isFinite(growth) ? growth <= MAX_GROWTH : undefined,
        gap: over(growth, MAX_GROWTH),
      };
    }),
  };
}
