/**
 * 6. Changes: what comparing with the previous run adds to an export of 300,000 board-item rows
 * (the budget: at most +25 % time and +100 MB peak RSS). Measured against the same rows through the
 * export's own sinks (xlsx + CSV) without the comparison; fetching is left out, which makes the
 * ratio stricter than against a whole export.
 */
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { runWorker, TMP_DIR } from '../lib/child';
import { int, mb, median, over, progress, ratio, seconds, table, type SectionResult } from '../lib/common';
import type { ChangesKind } from '../workers/changes';

export const CHANGES_ROWS = 300_000;
const HEAP_MB = 1_024;

interface Result {
  wallMs: number;
  cpuMs: number;
  rssStartMb: number;
  changed: number;
  added: number;
  removed: number;
}

export async function runChangesSection(options: { repeat: number; rows?: number }): Promise<SectionResult> {
  const started = performance.now();
  const rows = options.rows ?? CHANGES_ROWS;
  const dir = join(TMP_DIR, `changes-${process.pid}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  try {
    progress(`changes: preparing the baseline (${int(rows)} rows)`);
    const prepared = await runWorker<Result>('workers/changes.ts', { kind: 'prepare', rows, dir }, { maxOldSpaceMb: HEAP_MB });
    if (!prepared.result) throw new Error(`preparing the baseline failed: ${prepared.stderrTail}`);
    const measured: Record<Extract<ChangesKind, 'export' | 'export+changes'>, { wall: number[]; cpu: number[]; peak: number; result?: Result }> = {
      export: { wall: [], cpu: [], peak: 0 },
      'export+changes': { wall: [], cpu: [], peak: 0 },
    };
    // Alternating, so a burst of load on the shared machine hits both kinds alike.
    for (let i = 0; i < options.repeat; i++) {
      for (const kind of ['export', 'export+changes'] as const) {
        progress(`changes: ${kind} ${int(rows)} rows (${i + 1}/${options.repeat})`);
        const outcome = await runWorker<Result>('workers/changes.ts', { kind, rows, dir }, { maxOldSpaceMb: HEAP_MB });
        if (!outcome.result) throw new Error(`${kind} failed: ${outcome.stderrTail}`);
        const m = measured[kind];
        m.wall.push(outcome.result.wallMs);
        m.cpu.push(outcome.result.cpuMs);
        m.peak = Math.max(m.peak, outcome.peakRssMb);
        m.result = outcome.result;
        rmSync(join(dir, 'bench', 'dt=2026-11-23'), { recursive: true, force: true });
      }
    }
    const base = measured.export;
    const withChanges = measured['export+changes'];
    const timeRatio = median(withChanges.wall) / median(base.wall);
    const cpuRatio = median(withChanges.cpu) / median(base.cpu);
    const extraMb = withChanges.peak - base.peak;
    const counts = withChanges.result!;
    const markdown = [
      `${int(rows)} board-item rows (bench/lib/board-item-rows.ts, with hyperlinks) through the xlsx and CSV sinks as runExport drives them, ` +
        `without and with the comparison (bench/workers/changes.ts): this run's snapshot written, the baseline snapshot streamed into the key map, ` +
        `each row compared as it streams, and the second pass over the baseline for the changed and removed rows. ` +
        `The baseline differs by ${int(counts.changed)} changed, ${int(counts.removed)} removed and ${int(counts.added)} added rows. ` +
        `Fresh process per run, \`--max-old-space-size=${HEAP_MB}\`, the two kinds alternating; median of ${options.repeat}.`,
      '',
      table(
        ['run', 'wall time', 'CPU time', 'peak RSS'],
        [
          ['xlsx + CSV', seconds(median(base.wall)), seconds(median(base.cpu)), mb(base.peak)],
          ['xlsx + CSV + comparison', seconds(median(withChanges.wall)), seconds(median(withChanges.cpu)), mb(withChanges.peak)],
          ['comparison adds', `${ratio(timeRatio)} (${((timeRatio - 1) * 100).toFixed(1)} %)`, `${ratio(cpuRatio)}`, mb(extraMb)],
        ],
      ),
    ].join('\n');
    return {
      id: 'changes',
      title: '6. Changes since the last run',
      markdown,
      durationMs: performance.now() - started,
      targets: [
        {
          target: `Changes: comparison adds ≤ 25 % to the export's time at ${int(rows)} rows`,
          measured: `${ratio(timeRatio)} wall (CPU ${ratio(cpuRatio)})`,
          met: Number.isFinite(timeRatio) ? timeRatio <= 1.25 : undefined,
          gap: over(timeRatio - 1, 0.25),
        },
        {
          target: `Changes: comparison adds ≤ 100 MB peak RSS at ${int(rows)} rows`,
          measured: `${mb(base.peak)} → ${mb(withChanges.peak)} (+${mb(extraMb)})`,
          met: extraMb <= 100,
          gap: over(Math.max(0, extraMb), 100),
        },
      ],
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
