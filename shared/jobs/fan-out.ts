import { errorMessage } from '../core/errors';
import { createExportClient } from '../report/export-report';
import { boardItemsDataset } from '../report/tables/board-items';
import { selectBoards } from '../report/tables/boards';
import type { ReportDefinition } from '../report/definition';
import { recordingFetch, replayingFetch } from './fan-out-responses';
import type { FanOutStep } from './fan-out-event';
import type { ExportJobRequest } from './ports';
import { configuredDefinition, resolveDefinition } from './resolve-definition';
import { runJob, type JobDependencies, type JobOutcome } from './run-job';
import type { RunContext } from './run-context';
import { jobRunId, type ResolvePorts } from './stages/resolve';
import type { ExportPorts } from './stages/export';

/**
 * A report too big for one function (docs/deploy.md, "Past one Lambda"): its board items, the part
 * that grows with the portfolio and is bound by the planning API's latency, are fetched by many
 * workers at once, each for a few boards; one assembler then runs the ordinary export over the
 * answers they stored (fan-out-responses.ts) and publishes, delivers and notifies as every run does.
 *
 * In AWS the steps are a Step Functions state machine (plan → Distributed Map of workers →
 * assemble, infra/constructs/report-fan-out.ts); locally `runFannedOutJob` runs the same steps in process.
 * Workers write only scratch answers under `_fanout/<report>/<run id>/`, never the run's files: the
 * run is written and published by the assembler alone, under the run's lease, with its fencing.
 */
export const FAN_OUT_PREFIX = '_fanout';

export function answersPrefix(report: string, runId: string): string {
  return `${FAN_OUT_PREFIX}/${report}/${runId}/`;
}

export interface FanOutPlan {
  /** The job request every step gets, with the run id fixed. */
  readonly request: ExportJobRequest & { readonly report: string; readonly runId: string };
  /** Board ids per worker. */
  readonly chunks: readonly (readonly string[])[];
}

/** What the plan and the workers need: the run context, the reports, and the planning API's credentials. */
export type FanOutDependencies = Pick<ResolvePorts, 'definitions'> & Pick<ExportPorts, 'credentials' | 'fetch'> & { readonly context: RunContext };

/** Boards per worker: a worker of 1,024 MB and 15 minutes fetches a few of the largest boards easily. */
export const DEFAULT_BOARDS_PER_WORKER = 2;

/** Step 1: the run id and the boards of the report's board items, in chunks for the workers. */
export async function planFanOut(request: ExportJobRequest, deps: FanOutDependencies, boardsPerWorker = DEFAULT_BOARDS_PER_WORKER): Promise<FanOutPlan> {
  const definition = await definitionOf(request, deps);
  const { context } = deps;
  const runId = jobRunId(request, context.clock(), context.ids);
  const selection = definition.datasets.boardItems;
  let ids: string[] = [];
  if (selection) {
    const client = createExportClient(await deps.credentials.getCredentials(), context.settings, { log: context.log, fetch: deps.fetch, now: context.clock });
    ids = (await selectBoards(client, selection, 'boardItems', context.log)).map((b) => b.id);
  }
  const chunks: string[][] = [];
  for (let i = 0; i < ids.length; i += boardsPerWorker) chunks.push(ids.slice(i, i + boardsPerWorker));
  // Every later step knows it is one of the fan-out's: its run is not handed over again.
  return { request: { ...request, report: definition.name, runId, via: 'fan-out' }, chunks };
}

/**
 * Step 2, one worker: reads the board items of `boards` exactly as the export's dataset does (same
 * client, settings and paging) and stores every answer for the assembler. No rows are made.
 */
export async function fetchBoardAnswers(plan: Pick<FanOutPlan, 'request'>, boards: readonly string[], deps: FanOutDependencies): Promise<{ boards: number }> {
  const definition = await definitionOf(plan.request, deps);
  const prefix = answersPrefix(definition.name, plan.request.runId);
  const { context } = deps;
  const client = createExportClient(await deps.credentials.getCredentials(), context.settings, {
    log: context.log,
    fetch: recordingFetch(context.storage, prefix, deps.fetch),
    now: context.clock,
  });
  const narrowed: ReportDefinition = { ...definition, datasets: { boardItems: { boards: [...boards] } } };
  const dataset = boardItemsDataset({ source: client, definition: narrowed, log: context.log, now: context.clock });
  for await (const table of dataset.tables()) {
    for await (const _batch of table.batches) {
      // Drained page by page without making the rows: the answers are what the worker is for.
    }
  }
  return { boards: boards.length };
}

/**
 * Step 3: the ordinary export job over the stored answers (missing ones are asked of the API), then
 * the scratch answers are removed. Its outcome is the job's: published, delivered, owners told.
 */
export async function assembleFanOut(
  plan: Pick<FanOutPlan, 'request'>,
  deps: JobDependencies,
): Promise<JobOutcome & { readonly answers: { readonly replayed: number; readonly fetched: number } }> {
  const prefix = answersPrefix(plan.request.report, plan.request.runId);
  const replay = replayingFetch(deps.context.storage, prefix, deps.fetch);
  // The answers are left to the bucket's one-day lifecycle rule on `_fanout/`: a retried assembler
  // reads them again, and deleting tens of thousands of objects would cost the run more than that.
  const outcome = await runJob(plan.request, { ...deps, fetch: replay.fetch });
  return { ...outcome, answers: replay.stats() };
}

/** The local driver: plan, `workers` workers at a time, assemble, in this process. */
export async function runFannedOutJob(
  request: ExportJobRequest,
  deps: JobDependencies,
  options: { readonly boardsPerWorker?: number; readonly workers?: number } = {},
): Promise<Awaited<ReturnType<typeof assembleFanOut>> & { readonly chunks: number }> {
  const plan = await planFanOut(request, deps, options.boardsPerWorker);
  const queue = [...plan.chunks];
  // As in the state machine, a worker that fails leaves its boards to the assembler, which asks the API.
  const worker = async (): Promise<void> => {
    for (let chunk = queue.shift(); chunk; chunk = queue.shift()) {
      await fetchBoardAnswers(plan, chunk, deps).catch((error: unknown) => {
        deps.context.log.warn('fan-out worker failed; the assembler fetches its boards', { boards: chunk, error: errorMessage(error) });
      });
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, options.workers ?? 4) }, worker));
  return { ...(await assembleFanOut(plan, deps)), chunks: plan.chunks.length };
}

async function definitionOf(request: ExportJobRequest, deps: Pick<FanOutDependencies, 'definitions'>): Promise<ReportDefinition> {
  return resolveDefinition(request, await configuredDefinition(request, deps.definitions));
}

/** One step of the state machine, in the export function (lambdas/export-report/handler.ts). */
export async function runFanOutStep(step: FanOutStep, deps: JobDependencies): Promise<unknown> {
  switch (step.fanOut) {
    case 'plan': {
      const { fanOut: _step, ...request } = step;
      return planFanOut(request, deps);
    }
    case 'work':
      return fetchBoardAnswers({ request: step.request }, step.boards, deps);
    case 'assemble':
      return assembleFanOut({ request: step.request }, deps);
  }
}
