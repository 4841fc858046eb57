/**
 * 1. Fetching: the risks and board-items datasets of a large tenant from the simulator with 50 ms
 * added to every response, at the export's default concurrency and at concurrency 1, with the
 * references measured in the same run: the latency lower bound, the same fetch with no latency (the
 * client's own CPU cost), the same number of payload-free requests, and the settings before tuning.
 * The compared runs are interleaved, each against a fresh simulator (comparedRuns).
 */
import { runWorker, startService, type ChildOutcome, type ServiceProcess } from '../lib/child';
import { interleaved, spreadText } from '../lib/interleave';
import { int, mb, median, over, progress, ratio, seconds, table, type SectionResult, type TargetCheck } from '../lib/common';
import type { SimStats } from '../workers/sim-server';
import type { ClientCpuResult } from '../workers/client-cpu';
import { DEFAULT_API_CONCURRENCY } from '../../shared/core/defaults';
import { BOARD_ITEMS_READ_AHEAD, type BoardItemsReadAhead } from '../../shared/report/tables/board-items/board-items-fetch';
import type { SimCredentials, TenantShape } from '../../simulator/index';

export interface FetchOptions {
  readonly repeat: number;
}

export const FETCH_SHAPE: Partial<TenantShape> = {
  registers: 10,
  risksPerRegister: 1_000,
  collections: 1,
  boards: 5,
  itemsPerBoard: 10_000,
  storiesPerItem: 2,
};
export const LATENCY_MS = 50;
/** v1 page size: the API's maximum (and the client's). */
const V1_PAGE = 50;
/** Metadata requests per board: statuses, sprints, teams. */
const METADATA_PER_BOARD = 3;
/** Faults injected into one run: a 429 on a risks page, a 503 and a reset connection on items pages. */
const FAULTS: readonly { status: number | 'reset'; match: 'risks' | 'items' | 'any' }[] = [
  { status: 429, match: 'risks' },
  { status: 503, match: 'items' },
  { status: 'reset', match: 'items' },
];
/** Rounds of the client-CPU measurement (each: JSON.parse, decode + JSON.parse, the client). */
const CPU_ROUNDS = 7;
/** The client's CPU per record may be this many times JSON.parse's at most. */
const CPU_TARGET = 2;
/** Heap of each fetch process: the export Lambda's memory. */
const HEAP_MB = 1_024;
/** Other concurrencies measured once each, to show where the default sits. */
const OTHER_CONCURRENCIES = [4, 16] as const;
/** The settings before the fetch tuning: the API's default page size, one board at a time. */
const BEFORE_TUNING: { boardItemsPageSize: number; readAhead: BoardItemsReadAhead } = {
  boardItemsPageSize: 50,
  readAhead: { boardsInFlight: 1, bytes: 0, currentBoardFeatures: 1_000 },
};

interface FetchResult {
  wallMs: number;
  cpuMs: number;
  rows?: Record<string, number>;
}

/**
 * The fewest requests that can fetch the tenant: v1 lists ceil(n/50) pages (at least one); board
 * items ceil(n/pageSize) pages plus the empty page that ends the list (there is no total), per board.
 */
export function minimumRequests(shape: Partial<TenantShape>, itemsPageSize: number): number {
  const v1 = (n: number) => Math.max(1, Math.ceil(n / V1_PAGE));
  const registers = shape.registers ?? 0;
  const boards = shape.boards ?? 0;
  return (
    v1(registers) +
    registers * v1(shape.risksPerRegister ?? 0) +
    1 +
    boards * (METADATA_PER_BOARD + Math.ceil((shape.itemsPerBoard ?? 0) / itemsPageSize) + 1)
  );
}

interface Run {
  label: string;
  concurrency: number;
  latencyMs: number;
  walls: number[];
  cpu: number[];
  peakRss: number[];
  requests: number[];
  faults: number;
  pageSizes: Set<number>;
  rows: Record<string, number> | undefined;
}

function failure(what: string, outcome: ChildOutcome<unknown>): Error {
  return new Error(`${what} failed (exit ${String(outcome.exitCode)} ${outcome.signal ?? ''}):\n${outcome.stderrTail}`);
}

interface RunSettings {
  readonly faults?: number;
  readonly latencyMs?: number;
  readonly settings?: typeof BEFORE_TUNING;
}

/** A simulator of the fetch tenant in its own process, freshly started, with `latencyMs` per response. */
async function freshSimulator(latencyMs: number): Promise<{ service: ServiceProcess; credentials: SimCredentials }> {
  const { service, ready } = await startService<{ credentials: SimCredentials }>('workers/sim-server.ts', {
    tenant: FETCH_SHAPE,
    latencyMs,
    seed: 1,
  });
  return { service, credentials: ready.credentials };
}

/** One fetch in a fresh process against a fresh simulator: no run inherits another's warm caches. */
async function fetchOnce(label: string, concurrency: number, extra: RunSettings, into: Run): Promise<void> {
  const { service, credentials } = await freshSimulator(into.latencyMs);
  try {
    for (const fault of FAULTS.slice(0, extra.faults ?? 0)) await service.request({ type: 'inject', ...fault });
    const outcome = await runWorker<FetchResult>(
      'workers/fetch.ts',
      { mode: 'datasets', credentials, concurrency, ...extra.settings },
      { maxOldSpaceMb: HEAP_MB },
    );
    if (!outcome.result) throw failure(`fetch ${label}`, outcome);
    const stats = await service.request<SimStats>({ type: 'stats' });
    into.walls.push(outcome.result.wallMs);
    into.cpu.push(outcome.result.cpuMs);
    into.peakRss.push(outcome.peakRssMb);
    into.requests.push(stats.requests);
    for (const size of stats.itemsPageSizes) into.pageSizes.add(size);
    into.rows = outcome.result.rows;
  } finally {
    await service.close();
  }
}

function newRun(label: string, concurrency: number, extra: RunSettings): Run {
  const latencyMs = extra.latencyMs ?? LATENCY_MS;
  return { label, concurrency, latencyMs, walls: [], cpu: [], peakRss: [], requests: [], faults: extra.faults ?? 0, pageSizes: new Set(), rows: undefined };
}

/**
 * The compared runs, interleaved (bench/lib/interleave.ts): the default, the same with injected
 * faults, and the no-latency reference, `repeat` rounds in alternating order, each run against a
 * fresh simulator. Run one after the other, the first got a cold simulator and the later ones a
 * warm machine, which made the faulty twin look faster than the clean run.
 */
async function comparedRuns(concurrency: number, repeat: number): Promise<{ parallel: Run; faulty: Run; noLatency: Run }> {
  const parallel = newRun(`concurrency ${concurrency} (the default)`, concurrency, {});
  const faulty = newRun(`concurrency ${concurrency}, ${FAULTS.length} injected faults`, concurrency, { faults: FAULTS.length });
  const noLatency = newRun(`reference: concurrency ${concurrency}, no latency (the client's CPU)`, concurrency, { latencyMs: 0 });
  const variant = (run: Run, extra: RunSettings) => ({
    label: run.label,
    run: async (round: number) => {
      progress(`fetch: ${run.label} (${round + 1}/${repeat})`);
      await fetchOnce(run.label, concurrency, extra, run);
    },
  });
  await interleaved([variant(parallel, {}), variant(faulty, { faults: FAULTS.length }), variant(noLatency, { latencyMs: 0 })], repeat);
  return { parallel, faulty, noLatency };
}

async function singleRun(label: string, concurrency: number, extra: RunSettings = {}): Promise<Run> {
  const run = newRun(label, concurrency, extra);
  progress(`fetch: ${label}`);
  await fetchOnce(label, concurrency, extra, run);
  return run;
}

/**
 * The client's CPU per record against JSON.parse, apart from the network: the tenant's answers are
 * recorded from a fresh simulator and replayed from memory in a fresh process (workers/client-cpu.ts).
 */
async function measureClientCpu(): Promise<{ markdown: string; target: TargetCheck }> {
  progress('fetch: client CPU per record');
  const { service, credentials } = await freshSimulator(0);
  let outcome: ChildOutcome<ClientCpuResult>;
  try {
    outcome = await runWorker<ClientCpuResult>('workers/client-cpu.ts', { credentials, concurrency: DEFAULT_API_CONCURRENCY, rounds: CPU_ROUNDS }, { maxOldSpaceMb: HEAP_MB });
  } finally {
    await service.close();
  }
  const r = outcome.result;
  if (!r) throw failure('client CPU', outcome);
  const perRecord = (ms: readonly number[]) => (median(ms) * 1000) / r.records;
  const parse = perRecord(r.parseMs);
  const decodeParse = perRecord(r.decodeParseMs);
  const client = perRecord(r.clientMs);
  const us = (v: number) => `${v.toFixed(2)} µs`;
  const row = (label: string, ms: readonly number[]) => [label, spreadText(ms, (v) => `${int(v)} ms`), us(perRecord(ms)), ratio(perRecord(ms) / parse)];
  const markdown = [
    `**Client CPU per record.** The same tenant's answers (${int(r.requests)} answers, ${mb(r.bytes / 2 ** 20)}, ` +
      `${int(r.records)} records: risks, features and stories) recorded once from the simulator and replayed from memory ` +
      `in a fresh process, so only this process's work is counted; ${CPU_ROUNDS} rounds in alternating order, CPU time ` +
      `(\`process.cpuUsage\`), medians with the range:`,
    '',
    table(
      ['measurement', 'CPU', 'per record', '÷ JSON.parse'],
      [
        row('JSON.parse of each answer, already decoded (the floor)', r.parseMs),
        row('decoding each answer (UTF-8) and JSON.parse', r.decodeParseMs),
        row('the export\'s client: transport, decoding, envelopes, validation, paging', r.clientMs),
      ],
    ),
  ].join('\n');
  const target: TargetCheck = {
    target: `Fetch: client CPU per record ≤ ${CPU_TARGET}× the JSON.parse floor`,
    measured: `${us(client)} vs ${us(parse)} (${ratio(client / parse)}); decoding and JSON.parse alone take ${us(decodeParse)} (${ratio(decodeParse / parse)}), the client ${ratio(client / decodeParse)} of that`,
    met: client / parse <= CPU_TARGET,
    gap: over(client / parse, CPU_TARGET),
  };
  return { markdown, target };
}

export async function runFetchSection(options: FetchOptions): Promise<SectionResult> {
  const started = performance.now();
  const concurrency = DEFAULT_API_CONCURRENCY;
  const minimumOf = (run: Run): number => (run.pageSizes.size === 1 ? minimumRequests(FETCH_SHAPE, [...run.pageSizes][0]!) : Number.NaN);
  const { parallel, faulty, noLatency } = await comparedRuns(concurrency, options.repeat);
  const sequential = await singleRun('concurrency 1', 1);
  const others: Run[] = [];
  for (const c of OTHER_CONCURRENCIES) others.push(await singleRun(`concurrency ${c}`, c));
  const before = await singleRun(
    `reference: concurrency ${concurrency}, before tuning (pageSize ${BEFORE_TUNING.boardItemsPageSize}, one board at a time)`,
    concurrency,
    { settings: BEFORE_TUNING },
  );
  const cpu = await measureClientCpu();
  const { service, credentials } = await freshSimulator(LATENCY_MS);
  try {
    const minimum = minimumOf(parallel);
    // The measured floor: as many requests of the cheapest operation, same client and limiter.
    const floors: number[] = [];
    for (let i = 0; i < options.repeat; i++) {
      progress(`fetch: measured floor (${i + 1}/${options.repeat})`);
      const outcome = await runWorker<FetchResult>('workers/fetch.ts', { mode: 'floor', credentials, concurrency, requests: minimum });
      if (!outcome.result) throw failure('fetch floor', outcome);
      floors.push(outcome.result.wallMs);
    }
    const floor = median(floors);

    const bound = (run: Run) => Math.ceil((minimumOf(run) + run.faults) / run.concurrency) * run.latencyMs;
    const wallOf = (run: Run) => median(run.walls);
    const rowOf = (run: Run): string[] => {
      const requests = median(run.requests);
      const lower = bound(run);
      return [
        run.label,
        spreadText(run.walls, seconds),
        [...run.pageSizes].join(', '),
        `${int(requests)}${run.requests.every((r) => r === requests) ? '' : ` (${run.requests.join(', ')})`}`,
        run.faults ? `${int(minimumOf(run))} + ${run.faults}` : int(minimumOf(run)),
        run.latencyMs > 0 ? seconds(lower) : '–',
        run.latencyMs > 0 ? ratio(wallOf(run) / lower) : '–',
        seconds(median(run.cpu)),
        mb(Math.max(...run.peakRss)),
      ];
    };

    const wall = wallOf(parallel);
    const seqWall = wallOf(sequential);
    const lower = bound(parallel);
    const cpuFloor = wallOf(noLatency);
    const rows = parallel.rows ?? {};
    const exact = (run: Run) => run.requests.every((r) => r === minimumOf(run) + run.faults);
    const targets: TargetCheck[] = [
      {
        target: 'Fetch: requests exactly the minimum (+1 per injected fault)',
        measured:
          `${[...new Set(parallel.requests)].join(', ')} (minimum ${int(minimum)}); concurrency 1: ${[...new Set(sequential.requests)].join(', ')}; ` +
          `${FAULTS.length} faults: ${faulty.requests.join(', ')} (${int(minimum)} + ${FAULTS.length})`,
        met: [parallel, sequential, ...others, faulty, noLatency, before].every(exact),
      },
      {
        target: `Fetch: wall time at concurrency ${concurrency} ≤ 1.3× the lower bound`,
        measured: `${seconds(wall)} = ${ratio(wall / lower)} of ceil(${int(minimum)}/${concurrency}) × ${LATENCY_MS} ms = ${seconds(lower)}; the same fetch without latency takes ${seconds(cpuFloor)} (${ratio(cpuFloor / lower)})`,
        met: wall / lower <= 1.3,
        gap: over(wall / lower, 1.3),
      },
      {
        target: `Fetch: concurrency ${concurrency} ≥ 5× faster than concurrency 1`,
        measured: `${seconds(seqWall)} / ${seconds(wall)} = ${ratio(seqWall / wall)}`,
        met: seqWall / wall >= 5,
        gap: `${(seqWall / wall / 5).toFixed(2)}× the speed-up asked for`,
      },
      cpu.target,
    ];

    const markdown = [
      `Tenant: ${FETCH_SHAPE.registers} registers × ${int(FETCH_SHAPE.risksPerRegister!)} risks, ${FETCH_SHAPE.boards} boards × ` +
        `${int(FETCH_SHAPE.itemsPerBoard!)} features × ${FETCH_SHAPE.storiesPerItem} stories (every 7th feature has none); ` +
        `${LATENCY_MS} ms added to every response. The simulator runs in its own process (it has no page-size cap). ` +
        `Each run is a fresh process that fetches through the export's own client (\`createExportClient\`: shared limiter, ` +
        `retries, schemas) and datasets (\`risks\`, \`board-items\`, board items read ahead as many boards as the concurrency, at least ${BOARD_ITEMS_READ_AHEAD.boardsInFlight}, / ` +
        `${int(BOARD_ITEMS_READ_AHEAD.bytes / 2 ** 20)} MiB of answers), building every row and dropping it — nothing is rendered: ` +
        `${int(rows.risks ?? Number.NaN)} risk rows and ${int(rows['board-items'] ?? Number.NaN)} board-item rows.`,
      '',
      `Minimum requests = ceil(registers/50) + Σ ceil(risks/50) + 1 (boards) + per board 3 (statuses, sprints, teams) + ` +
        `ceil(features/pageSize) + 1 (the empty page that ends the list: there is no total), counted by the simulator ` +
        `(\`sim.requests\`, retries included). Lower bound = ceil(requests / concurrency) × ${LATENCY_MS} ms. ` +
        `Measured floor: ${int(minimum)} payload-free requests (list collections) through the same client and limiter at ` +
        `concurrency ${concurrency} take **${seconds(floor)}** (median of ${floors.length}), ${ratio(floor / lower)} the lower bound: ` +
        `latency plus this machine's per-request overhead.`,
      '',
      `The default, its ${FAULTS.length}-fault twin and the no-latency reference run interleaved, ${options.repeat} rounds in ` +
        `alternating order (A B C, C B A, …), each run a fresh fetch process against a freshly started simulator; ` +
        `their wall times are medians with the range. The other runs go once each, also against a fresh simulator.`,
      '',
      table(
        ['run', 'wall time', 'items pageSize', 'requests', 'minimum', 'lower bound', 'wall / bound', 'client CPU', 'peak RSS'],
        [rowOf(parallel), rowOf(sequential), ...others.map(rowOf), rowOf(faulty), rowOf(noLatency), rowOf(before)],
      ),
      '',
      `- Concurrency ${concurrency} over concurrency 1: **${ratio(seqWall / wall)}** faster.`,
      `- Against the settings before tuning, in this run: **${ratio(wallOf(before) / wall)}** faster with ` +
        `${ratio(median(before.requests) / median(parallel.requests))} fewer requests.`,
      `- The same fetch with no latency at all takes ${ratio(cpuFloor / lower)} the latency lower bound: the client's CPU ` +
        `(JSON parsing, validation, rows) on this machine is the larger floor. Wall time / that floor: **${ratio(wall / cpuFloor)}**.`,
      '',
      cpu.markdown,
    ].join('\n');
    return { id: 'fetch', title: '1. Fetching', markdown, targets, durationMs: performance.now() - started };
  } finally {
    await service.close();
  }
}
