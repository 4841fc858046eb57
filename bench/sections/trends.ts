/**
 * 7. Trends: what reading 12 earlier runs and drawing the Trends sheet adds to an export of 300,000
 * board-item rows (the budget: at most +15 % time and +50 MB peak RSS). Measured against the same
 * rows through the export's own sinks (xlsx + CSV) without the trends; fetching is left out, which
 * makes the ratio stricter than against a whole export.
 */
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { runWorker, TMP_DIR } from '../lib/child';
import { int, mb, median, over, progress, ratio, seconds, table, type SectionResult } from '../lib/common';
import type { TrendsKind } from '../workers/trends';

export const TRENDS_ROWS = 300_000;
const HEAP_MB = 1_024;

interface Result {
  wallMs: number;
  cpuMs: number;
  rssStartMb: number;
  runs: number;
}

export async function runTrendsSection(options: { repeat: number; rows?: number }): Promise<SectionResult> {
  const started = performance.now();
  const rows = options.rows ?? TRENDS_ROWS;
  const dir = join(TMP_DIR, `trends-${process.pid}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  try {
    progress('trends: preparing 12 earlier runs');
    const prepared = await runWorker<Result>('workers/trends.ts', { kind: 'prepare', rows, dir }, { maxOldSpaceMb: HEAP_MB });
    if (!prepared.result) throw new Error(`preparing the history failed: ${prepared.stderrTail}`);
    const measured: Record<Exclude<TrendsKind, 'prepare'>, { wall: number[]; cpu: number[]; peak: number; result?: Result }> = {
      export: { wall: [], cpu: [], peak: 0 },
      'export+trends': { wall: [], cpu: [], peak: 0 },
    };
    // Alternating, so a burst of load on the shared machine hits both kinds alike.
    for (let i = 0; i < options.repeat; i++) {
      for (const kind of ['export', 'export+trends'] as const) {
        progress(`trends: ${kind} ${int(rows)} rows (${i + 1}/${options.repeat})`);
        const outcome = await runWorker<Result>('workers/trends.ts', { kind, rows, dir }, { maxOldSpaceMb: HEAP_MB });
        if (!outcome.result) throw new Error(`${kind} failed: ${outcome.stderrTail}`);
        const m = measured[kind];
        m.wall.push(outcome.result.wallMs);
        m.cpu.push(outcome.result.cpuMs);
        m.peak = Math.max(m.peak, outcome.peakRssMb);
        m.result = outcome.result;
      }
    }
    const base = measured.export;
    const withTrends = measured['export+trends'];
    const timeRatio = median(withTrends.wall) / median(base.wall);
    const cpuRatio = median(withTrends.cpu) / median(base.cpu);
    const extraMb = withTrends.peak - base.peak;
    const shown = withTrends.result!.runs;
    const markdown = [
      `${int(rows)} board-item rows (bench/lib/board-item-rows.ts, with hyperlinks) through the xlsx and CSV sinks as runExport drives them, ` +
        `without and with the trends (bench/workers/trends.ts): each board's feature tally as a sink, the manifests of 12 earlier runs (~28 kB each, like the demo's) ` +
        `read through the run chain while the rows stream, and the Trends sheet with its native charts (${int(shown)} runs shown). ` +
        `Fresh process per run, \`--max-old-space-size=${HEAP_MB}\`, the two kinds alternating; median of ${options.repeat}.`,
      '',
      table(
        ['run', 'wall time', 'CPU time', 'peak RSS'],
        [
          ['xlsx + CSV', seconds(median(base.wall)), seconds(median(base.cpu)), mb(base.peak)],
          ['xlsx + CSV + trends', seconds(median(withTrends.wall)), seconds(median(withTrends.cpu)), mb(withTrends.peak)],
          ['trends add', `${ratio(timeRatio)} (${((timeRatio - 1) * 100).toFixed(1)} %)`, `${ratio(cpuRatio)}`, mb(extraMb)],
        ],
      ),
    ].join('\n');
    return {
      id: 'trends',
      title: '7. Trends',
      markdown,
      durationMs: performance.now() - started,
      targets: [
        {
          target: `Trends: 12 runs of history add ≤ 15 % to the export's time at ${int(rows)} rows`,
          measured: `${ratio(timeRatio)} wall (CPU ${ratio(cpuRatio)})`,
          met: Number.isFinite(timeRatio) ? timeRatio <= 1.15 : undefined,
          gap: over(timeRatio - 1, 0.15),
        },
        {
          target: `Trends: 12 runs of history add ≤ 50 MB peak RSS at ${int(rows)} rows`,
          measured: `${mb(base.peak)} → ${mb(withTrends.peak)} (${extraMb < 0 ? "−" : "+"}${mb(Math.abs(extraMb))})`,
          met: extraMb <= 50,
          gap: over(Math.max(0, extraMb), 50),
        },
      ],
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
