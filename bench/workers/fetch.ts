/**
 * Fetch measurement (one process per run): the risks and board-items datasets through the real
 * client, limiter and dataset code, iterating every row without rendering it.
 *
 * mode 'datasets': what an export fetches. mode 'floor': `requests` calls of the cheapest operation
 * (list collections) through the same client and limiter: the measured floor of that many requests
 * at that concurrency on this machine (latency plus HTTP and scheduling overhead, no payload).
 */
import { toArray } from '../../shared/core/async-iterables';
import { systemClock } from '../../shared/core/clock';
import { reportResult, workerInput } from '../lib/worker';
import { silentLog } from '../../shared/core/logger';
import type { Credentials } from '../../shared/planning-api/credentials';
import { createExportClient } from '../../shared/report/run/plan-run';
import { resolveExportSettings } from '../../shared/report/definition/export-settings';
import type { DatasetContext } from '../../shared/report/dataset/dataset';
import { parseReportDefinition } from '../../shared/report/definition/definition';
import { boardItemsDataset } from '../../shared/report/tables/board-items/board-items';
import type { BoardItemsReadAhead } from '../../shared/report/tables/board-items/board-items-fetch';
import { risksDataset } from '../../shared/report/tables/risks/risks';

interface Input {
  mode: 'datasets' | 'floor';
  credentials: Credentials;
  concurrency: number;
  /** floor mode: how many requests. */
  requests?: number;
  /** datasets mode: which datasets (default both). */
  datasets?: ('risks' | 'boardItems')[];
  /** Overrides of the export's settings, for reference runs (default: what an export uses). */
  boardItemsPageSize?: number;
  readAhead?: BoardItemsReadAhead;
}

const input = workerInput<Input>();
const client = createExportClient(input.credentials, {
  settings: resolveExportSettings({ concurrency: input.concurrency, boardItemsPageSize: input.boardItemsPageSize }),
  log: silentLog,
  clock: systemClock,
});

const cpuStart = process.cpuUsage();
const started = performance.now();
if (input.mode === 'floor') {
  let left = input.requests ?? 0;
  const worker = async (): Promise<void> => {
    while (left > 0) {
      left--;
      await client.listCollections();
    }
  };
  await Promise.all(Array.from({ length: input.concurrency }, worker));
  const cpu = process.cpuUsage(cpuStart);
  reportResult({ wallMs: performance.now() - started, cpuMs: (cpu.user + cpu.system) / 1000 });
} else {
  const wanted = input.datasets ?? ['risks', 'boardItems'];
  const definition = parseReportDefinition({
    name: 'bench-fetch',
    datasets: Object.fromEntries(wanted.map((d) => [d, {}])),
    formats: ['csv'],
  });
  const ctx: DatasetContext = { source: client, definition, log: silentLog, clock: systemClock };
  // Created up front, then consumed one table after the other, as runExport does.
  // Every visible register and board, as the run's plan resolves a definition without selectors.
  const datasets = [
    ...(wanted.includes('risks') ? [risksDataset(ctx, await toArray(client.listRiskRegisters()))] : []),
    ...(wanted.includes('boardItems') ? [boardItemsDataset(ctx, await client.listBoards(), input.readAhead)] : []),
  ];
  // Board items start fetching with the run, within their read-ahead, as runExport has them.
  for (const dataset of datasets) dataset.prefetch?.();
  const rows: Record<string, number> = {};
  let firstRowMs: number | undefined;
  for (const dataset of datasets) {
    for await (const { table, batches } of dataset.tables()) {
      let n = 0;
      for await (const batch of batches) {
        for (const _row of batch) {
          firstRowMs ??= performance.now() - started;
          n++;
        }
      }
      rows[table.name] = n;
    }
  }
  const wallMs = performance.now() - started;
  const cpu = process.cpuUsage(cpuStart);
  reportResult({ wallMs, cpuMs: (cpu.user + cpu.system) / 1000, rows, firstRowMs });
}
