/**
 * 3. End to end: a 100,000-row board-items export from the simulator (50 ms latency) through both
 * renderers into s3rver, in a child process whose heap is capped like the export Lambda's memory.
 */
import { runWorker, startService } from '../lib/child';
import { int, mb, mib, over, progress, ratio, seconds, table, type SectionResult, type TargetCheck } from '../lib/common';
import { LATENCY_MS } from './fetch';
import type { SimCredentials, TenantShape } from '../../simulator/index';

/** 5 boards × 5,600 features; 4,800 of each board's features have 3 stories: 20,000 rows a board. */
export const E2E_SHAPE: Partial<TenantShape> = {
  registers: 1,
  risksPerRegister: 1,
  collections: 1,
  boards: 5,
  itemsPerBoard: 5_600,
  storiesPerItem: 3,
};
/** The export Lambda's memory (cdk.json exportMemoryMb). */
export const LAMBDA_MEMORY_MB = 1_024;

interface E2eResult {
  wallMs: number;
  cpuMs: number;
  rows: Record<string, number>;
  files: { path: string; bytes: number }[];
}

export async function runE2eSection(): Promise<SectionResult> {
  const started = performance.now();
  const sim = await startService<{ credentials: SimCredentials }>('workers/sim-server.ts', {
    tenant: E2E_SHAPE,
    latencyMs: LATENCY_MS,
    seed: 1,
  });
  const s3 = await startService<{ endpoint: string; bucket: string }>('workers/s3-server.ts', { bucket: 'bench-reports' });
  try {
    const credentials = sim.ready.credentials;
    progress('e2e: export to s3rver');
    const e2e = await runWorker<E2eResult>(
      'workers/e2e.ts',
      { credentials, endpoint: s3.ready.endpoint, bucket: s3.ready.bucket, runId: `bench-${Date.now()}` },
      { maxOldSpaceMb: LAMBDA_MEMORY_MB },
    );
    const rows = e2e.result?.rows['board-items'] ?? Number.NaN;

    // References in the same run: the same fetch without rendering, and the renderers without fetching.
    progress('e2e: reference: fetch only');
    const fetchOnly = await runWorker<{ wallMs: number }>(
      'workers/fetch.ts',
      { mode: 'datasets', credentials, concurrency: 8, datasets: ['boardItems'] },
      { maxOldSpaceMb: LAMBDA_MEMORY_MB },
    );
    const renders: Record<'xlsx' | 'csv' | 'parquet', number> = { xlsx: Number.NaN, csv: Number.NaN, parquet: Number.NaN };
    for (const kind of ['xlsx', 'csv', 'parquet'] as const) {
      progress(`e2e: reference: ${kind} of ${int(rows)} rows only`);
      const outcome = await runWorker<{ wallMs: number }>(
        'workers/render.ts',
        { kind, rows: Number.isFinite(rows) ? rows : 100_000, links: true, file: `/dev/null` },
        { maxOldSpaceMb: LAMBDA_MEMORY_MB },
      );
      renders[kind] = outcome.result?.wallMs ?? Number.NaN;
    }
    const parts = (fetchOnly.result?.wallMs ?? Number.NaN) + renders.xlsx + renders.csv + renders.parquet;
    const wall = e2e.result?.wallMs ?? Number.NaN;

    const targets: TargetCheck[] = [
      {
        target: `End to end: ${int(rows)} rows fit in ${int(LAMBDA_MEMORY_MB)} MB`,
        measured: e2e.ok
          ? `peak RSS ${mb(e2e.peakRssMb)} = ${ratio(e2e.peakRssMb / LAMBDA_MEMORY_MB)} of ${int(LAMBDA_MEMORY_MB)} MB`
          : `failed (exit ${String(e2e.exitCode)}): ${e2e.stderrTail.split('\n').filter(Boolean).pop() ?? ''}`,
        met: e2e.ok ? e2e.peakRssMb < LAMBDA_MEMORY_MB : false,
        gap: e2e.ok ? over(e2e.peakRssMb, LAMBDA_MEMORY_MB) : 'did not complete',
      },
      {
        target: `End to end with xlsx, CSV and Parquet: at least 3× headroom in ${int(LAMBDA_MEMORY_MB)} MB`,
        measured: e2e.ok ? `${int(LAMBDA_MEMORY_MB)} MB / ${mb(e2e.peakRssMb)} = ${ratio(LAMBDA_MEMORY_MB / e2e.peakRssMb)}` : 'did not complete',
        met: e2e.ok ? LAMBDA_MEMORY_MB / e2e.peakRssMb >= 3 : false,
        gap: e2e.ok ? over(e2e.peakRssMb, LAMBDA_MEMORY_MB / 3) : 'did not complete',
      },
    ];
    const files = e2e.result?.files ?? [];
    const markdown = [
      `Tenant: ${E2E_SHAPE.boards} boards × ${int(E2E_SHAPE.itemsPerBoard!)} features × ${E2E_SHAPE.storiesPerItem} stories ` +
        `(every 7th feature has none) = ${int(rows)} board-item rows; ${LATENCY_MS} ms added to every API response. ` +
        `\`exportReport\` with the \`boardItems\` dataset, xlsx, CSV and Parquet, into s3rver through \`S3Storage\` (multipart uploads), ` +
        `then manifest.json and latest.json. The simulator and s3rver run in their own processes; the export runs in a child ` +
        `with \`--max-old-space-size=${LAMBDA_MEMORY_MB}\` (the export Lambda's memory), and its peak RSS is what the Lambda would be charged.`,
      '',
      table(
        ['run', 'wall time', 'peak RSS', 'notes'],
        [
          [
            'export to S3 (fetch + xlsx + CSV + Parquet + upload + manifest)',
            seconds(wall),
            mb(e2e.peakRssMb),
            files.map((f) => `${f.path} ${mib(f.bytes)}`).join(', '),
          ],
          ['reference: the same fetch, rows dropped', seconds(fetchOnly.result?.wallMs ?? Number.NaN), mb(fetchOnly.peakRssMb), ''],
          ['reference: xlsx of as many synthetic rows, no fetch', seconds(renders.xlsx), '', 'bench/lib/board-item-rows.ts'],
          ['reference: CSV of as many synthetic rows, no fetch', seconds(renders.csv), '', ''],
          ['reference: Parquet of as many synthetic rows, no fetch', seconds(renders.parquet), '', ''],
        ],
      ),
      '',
      `End to end / (fetch + xlsx + CSV + Parquet measured apart) = **${ratio(wall / parts)}** (below 1: fetching, rendering and ` +
        `uploading overlap). Peak RSS / Lambda memory = **${ratio(e2e.peakRssMb / LAMBDA_MEMORY_MB)}**.`,
    ].join('\n');
    return { id: 'e2e', title: '3. End to end', markdown, targets, durationMs: performance.now() - started };
  } finally {
    await Promise.all([sim.service.close(), s3.service.close()]);
  }
}
