/**
 * 8. Past one Lambda: the same report on the single path and on the fan-out path (plan → workers in
 * parallel processes → assembler), against a fresh simulator per run with latency on every answer,
 * interleaved A B B A. Each worker's and the assembler's peak RSS is its own process's.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { systemClock } from '../../shared/core/clock';
import { planFanOut } from '../../shared/fan-out/steps';
import { runContextOf } from '../../shared/report/run/context';
import { LocalLedger } from '../../shared/ledger/local-ledger';
import { catalogOf } from '../../shared/definitions/catalog';
import { LocalDirectoryStorage } from '../../shared/storage/local-storage';
import { boardItemRowCount, resolveShape, type SimCredentials, type TenantPreset, type TenantShape } from '../../simulator/index';
import { runWorker, startService } from '../lib/child';
import type { SimStats } from '../workers/sim-server';
import { DEFAULT_API_CONCURRENCY } from '../../shared/core/defaults';
import { int, mb, progress, ratio, seconds, table, type SectionResult, type TargetCheck } from '../lib/common';
import { interleaved, spread, spreadText } from '../lib/interleave';

export interface FanOutOptions {
  readonly repeat: number;
  /** Board items per board (the tenant has FAN_OUT_BOARDS boards, 3 stories per feature). */
  readonly itemsPerBoard?: number;
}

const FAN_OUT_BOARDS = 16;
const LATENCY_MS = 150;
/** The real service's documented cap of items per list page. */
const ITEMS_PAGE_CAP = 50;
const WORKERS = 4;
const BOARDS_PER_WORKER = FAN_OUT_BOARDS / WORKERS;
const LAMBDA_MEMORY_MB = 1_024;
const LAMBDA_SECONDS = 900;
const DEFINITION = { name: 'bench-fan-out', datasets: { risks: {}, boardItems: {} }, formats: ['xlsx', 'csv', 'parquet'] };
const REQUEST = { report: DEFINITION.name, source: 'schedule' as const, scheduledTime: '2026-11-23T06:00:00Z' };

interface Part {
  wallMs: number;
  peakRssMb: number;
}
interface Run {
  wallMs: number;
  single?: Part;
  workers?: Part[];
  assembler?: Part & { replayed: number; fetched: number };
  rows?: number;
  /** Requests the simulator answered in the whole run. */
  requests?: number;
}

/** Runs against a fresh simulator; the run's result gets the number of requests the simulator answered. */
async function withFreshSimulator<T extends Run>(shape: Partial<TenantShape>, run: (credentials: SimCredentials) => Promise<T>): Promise<T> {
  const sim = await startService<{ credentials: SimCredentials }>('workers/sim-server.ts', { tenant: shape, latencyMs: LATENCY_MS, seed: 1, maxItemsPageSize: ITEMS_PAGE_CAP });
  try {
    const result = await run(sim.ready.credentials);
    result.requests = (await sim.service.request<SimStats>({ type: 'stats' })).requests;
    return result;
  } finally {
    await sim.service.close();
  }
}

function part(outcome: { ok: boolean; result?: { wallMs: number } | undefined; peakRssMb: number; stderrTail: string }, what: string): Part {
  if (!outcome.ok || !outcome.result) throw new Error(`${what} failed: ${outcome.stderrTail.split('\n').filter(Boolean).pop() ?? ''}`);
  return { wallMs: outcome.result.wallMs, peakRssMb: outcome.peakRssMb };
}

async function singleRun(shape: Partial<TenantShape>): Promise<Run> {
  return withFreshSimulator(shape, async (credentials) => {
    const dir = await mkdtemp(join(tmpdir(), 'bench-single-'));
    try {
      const started = performance.now();
      const outcome = await runWorker<{ wallMs: number; detail: { status: string } }>(
        'workers/fan-out.ts',
        { mode: 'single', dir, credentials, definition: DEFINITION, request: REQUEST },
        { maxOldSpaceMb: LAMBDA_MEMORY_MB, timeoutMs: 60 * 60_000 },
      );
      const single = part(outcome, 'single path');
      return { wallMs: performance.now() - started, single };
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
}

async function fanOutRun(shape: Partial<TenantShape>, boardsPerWorker: number): Promise<Run> {
  return withFreshSimulator(shape, async (credentials) => {
    const dir = await mkdtemp(join(tmpdir(), 'bench-fan-out-'));
    try {
      const started = performance.now();
      const plan = await planFanOut(REQUEST, {
        definitions: catalogOf({ [DEFINITION.name]: DEFINITION }),
        ...runContextOf({
          clock: systemClock,
          storage: new LocalDirectoryStorage(dir),
          ledger: new LocalLedger(join(dir, '.ledger')),
          planning: { credentials: { getCredentials: () => Promise.resolve(credentials) } },
        }),
      }, boardsPerWorker);
      const common = { dir, credentials, definition: DEFINITION, request: REQUEST, plan: { request: plan.request } };
      const workers = await Promise.all(
        plan.chunks.map(async (boards, i) =>
          part(await runWorker<{ wallMs: number }>('workers/fan-out.ts', { ...common, mode: 'work', boards }, { maxOldSpaceMb: LAMBDA_MEMORY_MB, timeoutMs: 60 * 60_000 }), `worker ${i}`),
        ),
      );
      const assembled = await runWorker<{ wallMs: number; detail: { status: string; answers: { replayed: number; fetched: number } } }>(
        'workers/fan-out.ts',
        { ...common, mode: 'assemble' },
        { maxOldSpaceMb: LAMBDA_MEMORY_MB, timeoutMs: 60 * 60_000 },
      );
      const assembler = part(assembled, 'assembler');
      return { wallMs: performance.now() - started, workers, assembler: { ...assembler, ...assembled.result!.detail.answers } };
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
}

interface PathsMeasured {
  readonly single: Run[];
  readonly fanned: Run[];
  readonly targets: TargetCheck[];
  readonly rows: readonly string[][];
  readonly fanWall: number;
  readonly singleWall: number;
}

/**
 * The single and the fan-out path over one tenant, interleaved; the table rows and the targets.
 * `label` names the tenant in progress lines; `targetName` starts each target's text.
 */
async function measurePaths(
  shape: Partial<TenantShape>,
  boardsPerWorker: number,
  repeat: number,
  label: string,
  targetName: string,
): Promise<PathsMeasured> {
  const results = await interleaved<Run>(
    [
      { label: 'single', run: (round) => (progress(`${label}: single path, round ${round + 1}`), singleRun(shape)) },
      { label: 'fan-out', run: (round) => (progress(`${label}: fan-out path, round ${round + 1}`), fanOutRun(shape, boardsPerWorker)) },
    ],
    repeat,
  );
  const single = results.get('single')!;
  const fanned = results.get('fan-out')!;
  const singleWall = spread(single.map((r) => r.wallMs)).median;
  const fanWall = spread(fanned.map((r) => r.wallMs)).median;
  const workerWalls = fanned.flatMap((r) => r.workers!.map((w) => w.wallMs));
  const workerRss = fanned.flatMap((r) => r.workers!.map((w) => w.peakRssMb));
  const assemblerWalls = fanned.map((r) => r.assembler!.wallMs);
  const assemblerRss = fanned.map((r) => r.assembler!.peakRssMb);
  const singleParts = single.map((r) => r.single!.wallMs);
  const longestPart = Math.max(...workerWalls, ...assemblerWalls);
  const biggestPart = Math.max(...workerRss, ...assemblerRss);
  const workers = fanned[0]?.workers?.length ?? WORKERS;
  const targets: TargetCheck[] = [
    {
      target: `${targetName}: every worker and the assembler within a ${int(LAMBDA_MEMORY_MB)} MB / ${LAMBDA_SECONDS / 60}-minute function`,
      measured: `longest ${seconds(longestPart)}, largest ${mb(biggestPart)}`,
      met: longestPart < LAMBDA_SECONDS * 1000 && biggestPart < LAMBDA_MEMORY_MB,
      gap: `${ratio(longestPart / (LAMBDA_SECONDS * 1000))} of the time, ${ratio(biggestPart / LAMBDA_MEMORY_MB)} of the memory`,
    },
    {
      target: `${targetName}: the whole run no slower than the single path`,
      measured: `${seconds(fanWall)} vs ${seconds(singleWall)} (${ratio(fanWall / singleWall)})`,
      met: fanWall <= singleWall,
      gap: ratio(fanWall / singleWall),
    },
  ];
  const single15 = Math.max(...singleParts) < LAMBDA_SECONDS * 1000 ? 'within' : 'past';
  const rows = [
    ['single', spreadText(single.map((r) => r.wallMs), seconds), `the export (${single15} ${LAMBDA_SECONDS} s)`, spreadText(singleParts, seconds), spreadText(single.map((r) => r.single!.peakRssMb), mb)],
    ['fan-out', spreadText(fanned.map((r) => r.wallMs), seconds), `${workers} workers (each)`, spreadText(workerWalls, seconds), spreadText(workerRss, mb)],
    ['', '', 'assembler', spreadText(assemblerWalls, seconds), spreadText(assemblerRss, mb)],
  ];
  return { single, fanned, targets, rows, fanWall, singleWall };
}

/** The fetch can go no faster than its requests, DEFAULT_API_CONCURRENCY at a time, each LATENCY_MS. */
function latencyBound(m: PathsMeasured): { requests: number; bound: number; wall: number } {
  const requests = spread(m.single.map((r) => r.requests ?? Number.NaN)).median;
  const bound = (requests / DEFAULT_API_CONCURRENCY) * LATENCY_MS;
  return { requests, bound, wall: spread(m.single.map((r) => r.single!.wallMs)).median };
}

/** Issue 22's fetch target, on the whole single-path export (the fetch and the rendering overlap). */
function latencyTarget(m: PathsMeasured, tenant: string): TargetCheck {
  const { bound, wall } = latencyBound(m);
  const r = wall / bound;
  return {
    target: `Single path (${tenant}): the whole export ≤ 1.3× the fetch's latency bound at ${LATENCY_MS} ms and the ${ITEMS_PAGE_CAP}-item cap`,
    measured: `${seconds(wall)} / ${seconds(bound)} = ${ratio(r)}`,
    met: r <= 1.3,
    gap: ratio(r / 1.3),
  };
}

function answersLine(m: PathsMeasured): string {
  const { requests, bound, wall } = latencyBound(m);
  return (
    `The single path made ${int(requests)} requests: the latency bound (requests ÷ ${DEFAULT_API_CONCURRENCY} × ${LATENCY_MS} ms) is ` +
    `${seconds(bound)}, and its export took **${ratio(wall / bound)}** of it. ` +
    `The assembler read ${int(m.fanned[0]?.assembler?.replayed ?? Number.NaN)} answers from the workers and asked the API ` +
    `${int(m.fanned[0]?.assembler?.fetched ?? Number.NaN)} times (risks, boards and PI metadata not fanned out). ` +
    `Fan-out / single = **${ratio(m.fanWall / m.singleWall)}**.`
  );
}

export async function runFanOutSection(options: FanOutOptions): Promise<SectionResult> {
  const started = performance.now();
  const itemsPerBoard = options.itemsPerBoard ?? 2_500;
  const shape: Partial<TenantShape> = { registers: 2, risksPerRegister: 100, collections: 2, boards: FAN_OUT_BOARDS, itemsPerBoard, storiesPerItem: 3 };
  const measured = await measurePaths(shape, BOARDS_PER_WORKER, options.repeat, 'fan-out', 'Fan-out');
  const markdown = [
    `A report of risks and board items (xlsx, CSV, Parquet): ${FAN_OUT_BOARDS} boards × ${int(itemsPerBoard)} features with stories ` +
      `(${int(boardItemRowCount(resolveShape(shape)))} board-item rows), ${LATENCY_MS} ms on every answer of a fresh simulator per run, at most ${ITEMS_PAGE_CAP} items a page (the service's cap). ` +
      `Single path: one process (\`runJob\`). Fan-out: the plan, then ${WORKERS} worker processes at once (${BOARDS_PER_WORKER} boards each, ` +
      `\`fetchBoardAnswers\`), then the assembler process (\`assembleFanOut\`), each with \`--max-old-space-size=${LAMBDA_MEMORY_MB}\`; ` +
      `answers in a local directory. Interleaved A B B A, ${options.repeat} round(s).`,
    '',
    table(['path', 'whole run', 'part', 'time', 'peak RSS'], measured.rows),
    '',
    answersLine(measured),
  ].join('\n');
  return { id: 'fanout', title: '8. Past one Lambda: the fan-out', markdown, targets: measured.targets, durationMs: performance.now() - started };
}

export interface PortfolioOptions {
  readonly repeat: number;
  /** Simulator presets to run, in order (default: portfolio, portfolio-2m). */
  readonly tenants?: readonly TenantPreset[];
}

/**
 * 10. The portfolios of issue 22's measurements, generated by the simulator's presets (`portfolio`:
 * 937,500 board-item rows, `portfolio-2m`: 2,050,000), on both paths. Opt-in: the two take ~15 min on 2 cores.
 */
export async function runPortfolioSection(options: PortfolioOptions): Promise<SectionResult> {
  const started = performance.now();
  const tenants = options.tenants ?? ['portfolio', 'portfolio-2m'];
  const parts: string[] = [];
  const targets: TargetCheck[] = [];
  for (const tenant of tenants) {
    const shape = resolveShape(tenant);
    const boardsPerWorker = Math.ceil(shape.boards / WORKERS);
    const measured = await measurePaths(shape, boardsPerWorker, options.repeat, tenant, `Fan-out (${tenant})`);
    targets.push(...measured.targets, latencyTarget(measured, tenant));
    parts.push(
      `**\`${tenant}\`**: ${shape.boards} boards × ${int(shape.itemsPerBoard)} features, ${int(boardItemRowCount(shape))} board-item rows, ` +
        `${int(shape.registers * shape.risksPerRegister)} risks; fan-out workers of ${boardsPerWorker} board${boardsPerWorker === 1 ? '' : 's'} each.`,
      '',
      table(['path', 'whole run', 'part', 'time', 'peak RSS'], measured.rows),
      '',
      answersLine(measured),
      '',
    );
  }
  const markdown = [
    `A report of risks and board items (xlsx, CSV, Parquet) over the simulator's presets (\`simulator/presets.ts\`), ${LATENCY_MS} ms on every answer ` +
      `of a fresh simulator per run, at most ${ITEMS_PAGE_CAP} items a page (the service's cap); both paths as in section 8 ` +
      `(${WORKERS} worker processes at once, each part with \`--max-old-space-size=${LAMBDA_MEMORY_MB}\`). Interleaved A B B A, ${options.repeat} round(s).`,
    '',
    ...parts,
  ].join('\n');
  return { id: 'portfolio', title: '10. The measured portfolios on both paths', markdown, targets, durationMs: performance.now() - started };
}
