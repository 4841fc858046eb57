import { errorMessage } from '../core/errors';
import type { FanOutPart } from '../core/names';
import { planRun } from '../report/run/plan-run';
import { releaseHeldRun } from '../report/run/run-entry';
import type { RunContext } from '../report/run/context';
import { fanOutPart, fanOutUnits } from '../report/tables/registry';
import type { ReportDefinition } from '../report/definition/definition';
import { recordingFetch, replayingFetch, requestHash } from './responses';
import { ASSEMBLER_ATTEMPTS, type FanOutFailure, type FanOutStep } from './event';
import { describeFanOutFailure, publicStepError, toldByTheJob } from './failure';
import type { ExportJobRequest } from '../job/request';
import { attemptOf } from '../job/attempt';
import { runJob, type JobContext, type JobOutcome } from '../job/run-job';
import { announceFailure } from '../job/stages/announce';
import { jobRunId, resolveJob, type ResolvePorts } from '../job/stages/resolve';

/**
 * A report too big for one function (docs/deploy.md, "Past one Lambda"): its board items, the part
 * that grows with the portfolio and is bound by the planning API's latency, are fetched by many
 * workers at once, each for a few boards; one assembler then runs the ordinary export over the
 * answers they stored (fan-out-responses.ts) and publishes, delivers and notifies as every run does.
 *
 * In AWS the steps are a Step Functions state machine (plan → Distributed Map of workers →
 * assemble, and the failure step `failFanOut` for whatever they fail with, infra/constructs/
 * report-fan-out.ts); locally `runFannedOutJob` runs the same steps in process.
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

/** What the plan and the workers need of the job's context: the run context and the reports. */
export type FanOutContext = RunContext & ResolvePorts;

/** Boards per worker: a worker of 1,024 MB and 15 minutes fetches a few of the largest boards easily. */
export const DEFAULT_BOARDS_PER_WORKER = 2;

/**
 * Step 1: the run id, the run's plan (report/run/export-plan.ts: every selector of every dataset checked
 * with the list calls, so a definition that cannot run fails here, before any worker starts), and
 * the boards of the report's board items, in chunks for the workers.
 */
export async function planFanOut(request: ExportJobRequest, context: FanOutContext, boardsPerWorker = DEFAULT_BOARDS_PER_WORKER): Promise<FanOutPlan> {
  const runId = jobRunId(request, context.clock(), context.ids);
  const { definition, plan } = await planRun(await resolveJob(request, runId, context), context);
  const ids = fanOutUnits(plan.datasets);
  const chunks: string[][] = [];
  for (let i = 0; i < ids.length; i += boardsPerWorker) chunks.push(ids.slice(i, i + boardsPerWorker));
  // Every later step knows it is one of the fan-out's: its run is not handed over again.
  return { request: { ...request, report: definition.name, runId, via: 'fan-out' }, chunks };
}

/**
 * Step 2, one worker: reads the board items of `boards` exactly as the export's dataset does (same
 * client, settings and paging) and stores every answer for the assembler. No rows are made.
 */
export async function fetchBoardAnswers(plan: Pick<FanOutPlan, 'request'>, boards: readonly string[], context: FanOutContext): Promise<{ boards: number }> {
  const job = await resolveJob(plan.request, plan.request.runId, context);
  const prefix = answersPrefix(job.definition.name, plan.request.runId);
  const recorder = recordingFetch(context.storage, prefix, context.planning.fetch);
  const recording: RunContext = { ...context, planning: { ...context.planning, fetch: recorder.fetch } };
  const narrowed: ReportDefinition = fanOutPart(job.definition, boards);
  // The worker's boards are planned again (one list of boards), as the assembler's run will.
  const planned = await planRun({ ...job, definition: narrowed }, recording);
  const ctx = { source: planned.client, definition: narrowed, log: context.log, clock: context.clock };
  for (const { plan: boardItems } of planned.plan.datasets) {
    for await (const table of boardItems.create(ctx).tables()) {
      for await (const _batch of table.batches) {
        // Drained page by page without making the rows: the answers are what the worker is for.
      }
    }
  }
  // Every page was drained, so the client accepted every answer stored: only now may the assembler replay them.
  await recorder.accept(requestHash(boards.join('\n')));
  return { boards: boards.length };
}

/**
 * Step 3: the ordinary export job over the stored answers (missing ones are asked of the API), then
 * the scratch answers are removed. Its outcome is the job's: published, delivered, owners told.
 */
export async function assembleFanOut(
  plan: Pick<FanOutPlan, 'request'>,
  context: JobContext,
): Promise<JobOutcome & { readonly answers: { readonly replayed: number; readonly fetched: number } }> {
  const prefix = answersPrefix(plan.request.report, plan.request.runId);
  const replay = replayingFetch(context.storage, prefix, context.planning.fetch);
  // The answers are left to the bucket's one-day lifecycle rule on `_fanout/`: a retried assembler
  // reads them again, and deleting tens of thousands of objects would cost the run more than that.
  const outcome = await runJob(plan.request, { ...context, planning: { ...context.planning, fetch: replay.fetch } });
  return { ...outcome, answers: replay.stats() };
}

/** The local driver: plan, `workers` workers at a time, assemble, in this process. */
export async function runFannedOutJob(
  request: ExportJobRequest,
  context: JobContext,
  options: { readonly boardsPerWorker?: number; readonly workers?: number } = {},
): Promise<Awaited<ReturnType<typeof assembleFanOut>> & { readonly chunks: number }> {
  const plan = await planFanOut(request, context, options.boardsPerWorker);
  const queue = [...plan.chunks];
  // As in the state machine, a worker that fails leaves its boards to the assembler, which asks the API.
  const worker = async (): Promise<void> => {
    for (let chunk = queue.shift(); chunk; chunk = queue.shift()) {
      await fetchBoardAnswers(plan, chunk, context).catch((error: unknown) => {
        context.log.warn('fan-out worker failed; the assembler fetches its boards', { boards: chunk, error: errorMessage(error) });
      });
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, options.workers ?? 4) }, worker));
  return { ...(await assembleFanOut(plan, context)), chunks: plan.chunks.length };
}

export interface FanOutFailureOutcome {
  readonly status: 'failed';
  readonly report: string;
  readonly runId: string;
  readonly failed: FanOutPart;
  /** What failed, in words people may see: the owners' notice, ReportFailed, the execution's cause. */
  readonly reason: string;
  readonly errorType: string;
  readonly retryable: boolean;
  /** The attempt whose lease was released (an assembler that died holding it), or null. */
  readonly released: string | null;
  /** False when the assembler had told its own failure (owners, ReportFailed): not told twice. */
  readonly told: boolean;
}

/**
 * The failure step, where every Catch of the state machine leads (plan, the map, assemble): it gives
 * up the lease a killed assembler still holds, so the next attempt of the run is not blocked, then
 * tells the failure as a failed job does (announceFailure: ReportFailed, and the owners once per
 * failure streak, the same streak as the single path's) unless the assembler's job already told it.
 */
export async function failFanOut(step: Pick<FanOutFailure, 'request' | 'failed' | 'error'>, context: JobContext): Promise<FanOutFailureOutcome> {
  // As the plan ran it: a scheduled run, whether the route or an operator started the execution.
  const request = { ...step.request, source: 'schedule' as const };
  const { report, runId } = request;
  const failure = describeFanOutFailure(step.failed, step.error);
  // First: whatever fails after this, a retry of the run or the next week's run is not blocked.
  const released = await releaseHeldRun(context, { report, runId });
  const told = !toldByTheJob(step.failed, step.error);
  if (told) {
    // The definition names the owners; when it cannot be read (which may be why the plan failed) only the event is published.
    const definition = await resolveJob(request, runId, context).then(
      (job) => job.definition,
      (error: unknown) => {
        context.log.warn('the failed fan-out\'s report cannot be read; its owners are not told', { report, error: errorMessage(error) });
        return undefined;
      },
    );
    await announceFailure({ request, report: definition?.name ?? report, runId, definition }, failure, context);
  }
  context.log.error('fan-out failed', { report, runId, failed: step.failed, error: step.error.Error, reason: failure.reason, released: released?.attempt, told });
  return { status: 'failed', report, runId, failed: step.failed, ...failure, released: released?.attempt ?? null, told };
}

/**
 * One step of the state machine, in the export function (lambdas/export-report/handler.ts). A step's
 * error reaches the state machine as publicStepError: the failure step quotes it to the owners.
 */
export async function runFanOutStep(step: FanOutStep, context: JobContext): Promise<unknown> {
  try {
    return await runStep(step, context);
  } catch (error) {
    context.log.error('fan-out step failed', { step: step.fanOut, error: errorMessage(error) });
    throw publicStepError(error);
  }
}

function runStep(step: FanOutStep, context: JobContext): Promise<unknown> {
  switch (step.fanOut) {
    case 'plan': {
      const { fanOut: _step, ...request } = step;
      return planFanOut(request, context);
    }
    case 'work':
      return fetchBoardAnswers({ request: step.request }, step.boards, context);
    case 'assemble':
      // The state machine retries the assembler's retryable failure: only its last try tells the owners (without a count: at once).
      return assembleFanOut({ request: step.request }, step.attempt === undefined ? context : { ...context, attempt: attemptOf(step.attempt + 1, ASSEMBLER_ATTEMPTS) });
    case 'fail':
      return failFanOut(step, context);
  }
}
