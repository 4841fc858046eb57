import { DeadlineExceededError, errorMessage, LeaseLostError, RetryableExportError, RunInProgressError } from '../core/errors';
import type { ReportDefinition } from '../report/definition/definition';
import type { ManifestFile, ManifestTableFile } from '../report/manifest/manifest';
import type { ExportResult } from '../report/run/result';
import { withProgress, type RunContext } from '../report/run/context';
import { planRun } from '../report/run/plan-run';
import type { PlannedRun, RunDraft } from '../report/run/run';
import { publishedRun } from '../report/run/run-attempt';
import { exportRun } from '../report/run/run-export';
import { createResponseCache } from '../planning-api/transport/response-cache';
import { classifyFailure } from './failure';
import { handOverToFanOut, mayHandOver, routeToFanOut, type FanOutRoute } from './stages/route';
import { trackJobProgress, type JobProgress } from './status/job-progress';
import type { ExportJobRequest } from './request';
import { announceFailure, announceSuccess, type AnnouncePorts, type FailedJob } from './stages/announce';
import { deliverRun, type RunDelivery } from './stages/deliver';
import { alertRun, stepAlerts, type RunAlerts } from './stages/alert';
import { noticeOwners } from './stages/notice';
import type { DeliveryPorts, ExportedJob } from './stages/delivery-ports';
import { jobRunId, planSlices, requestedName, resolveJob, type JobSlice, type ResolvePorts } from './stages/resolve';

/**
 * One job, the same for every door (the export Lambda, the fan-out's assembler, `npm run export`, the
 * demo): resolve → plan → export → deliver → alert → announce → the owners' notices (stages/). A door builds the run context and the
 * ports and calls `runJob`; it never repeats a stage. Retries are idempotent: the run id is the same,
 * a completed run is not exported again, and each message goes out once per run.
 */
export interface JobContext extends RunContext, ResolvePorts, DeliveryPorts, AnnouncePorts {
  /**
   * The stack's fan-out (the route stage's port): a scheduled run of a report too big for one
   * function, and a run that meets the function's deadline on the single path, are handed to it.
   */
  readonly fanOut?: FanOutRoute | undefined;
  /** Told when a run is published (metrics, the command line's account of the files). */
  readonly onComplete?: ((result: ExportResult, durationMs: number) => void) | undefined;
  /** Told of the error behind a failed job (the command line shows its operator the whole message). */
  readonly onFailure?: ((error: unknown) => void) | undefined;
}

/** What a door learns of a published run: small and serialisable (a Step Functions step returns it). */
export interface PublishedRunFacts {
  readonly report: string;
  readonly runFolder: string;
  /** False when an earlier attempt of the run id had published it: nothing was written again. */
  readonly written: boolean;
  readonly latestUpdated: boolean;
  readonly latestProblem: string | undefined;
  readonly files: readonly ManifestFile[];
  readonly tables: readonly ManifestTableFile[];
}

export type JobOutcome =
  | {
      readonly status: 'succeeded';
      readonly runId: string;
      readonly manifestKey: string;
      readonly emailed: boolean;
      readonly delivery: RunDelivery;
      /** What the alert stage did (stages/alert.ts), when the definition names alerts (a sliced report's: its first slice's). */
      readonly alerts?: RunAlerts | undefined;
      readonly run: PublishedRunFacts;
    }
  | { readonly status: 'failed'; readonly reason: string; readonly retryable: boolean }
  /** A duplicate delivery, or another attempt owns the run: nothing was done, nothing reported. */
  | { readonly status: 'skipped'; readonly reason: string };

/** A report with deliveries: the outcome of each slice's run, and the whole in one. */
export type SlicedJobOutcome = JobOutcome & { readonly slices: readonly { readonly report: string; readonly outcome: JobOutcome }[] };

/**
 * Runs a job. Failures are announced (status, ReportFailed, the owners) and returned; a scheduled
 * run's transient failure is thrown as RetryableExportError for the invocation's retry policy.
 */
export async function runJob(request: ExportJobRequest, context: JobContext): Promise<JobOutcome> {
  const routed = await routeToFanOut(request, context, context.fanOut);
  if (routed) {
    context.log.info('run handed to the fan-out', { report: request.report, reason: routed.reason });
    return routed;
  }
  const slices = await planSlices(request, context);
  return slices ? runSlices(request, slices, context) : runOne(request, context);
}

/** The slices one after another, sharing one response cache: the planning API is asked once for what several read. */
async function runSlices(request: ExportJobRequest, slices: readonly JobSlice[], context: JobContext): Promise<SlicedJobOutcome> {
  const cache = createResponseCache(context.planning.fetch);
  const outcomes: { report: string; outcome: JobOutcome }[] = [];
  let retry: RetryableExportError | undefined;
  for (const slice of slices) {
    try {
      const sliceContext = { ...context, definitions: slice.definitions, planning: { ...context.planning, fetch: cache.fetch } };
      outcomes.push({ report: slice.name, outcome: await runOne(slice.request, sliceContext) });
    } catch (error) {
      // One slice's transient failure must not keep the others from their audiences; the retry
      // of the invocation redoes only what did not complete (run ids and message claims are per slice).
      if (!(error instanceof RetryableExportError)) throw error;
      retry ??= error;
      outcomes.push({ report: slice.name, outcome: { status: 'failed', reason: error.message, retryable: true } });
    }
  }
  context.log.info('sliced report done', { report: request.report, slices: outcomes.map((o) => `${o.report}: ${o.outcome.status}`), cache: cache.stats() });
  if (retry) throw retry;
  return { ...combined(outcomes), slices: outcomes };
}

/** All slices succeeded: succeeded (sent if any was sent); else failed, naming each failed slice. */
function combined(outcomes: readonly { report: string; outcome: JobOutcome }[]): JobOutcome {
  const named = (status: JobOutcome['status']) =>
    outcomes.flatMap((o) => (o.outcome.status === status && 'reason' in o.outcome ? [`${o.report}: ${o.outcome.reason}`] : [])).join('; ');
  const failed = outcomes.filter((o) => o.outcome.status === 'failed');
  if (failed.length > 0) {
    return { status: 'failed', reason: named('failed'), retryable: failed.some((o) => o.outcome.status === 'failed' && o.outcome.retryable) };
  }
  const done = outcomes.flatMap((o) => (o.outcome.status === 'succeeded' ? [{ report: o.report, outcome: o.outcome }] : []));
  const first = done[0];
  if (!first) return { status: 'skipped', reason: named('skipped') };
  return {
    ...first.outcome,
    emailed: done.some((o) => o.outcome.emailed),
    delivery: {
      sent: done.some((o) => o.outcome.delivery.sent),
      reason: done.map((o) => `${o.report}: ${o.outcome.delivery.reason}`).join('; '),
      emailed: done.some((o) => o.outcome.delivery.emailed),
      channels: done.flatMap((o) => o.outcome.delivery.channels),
      written: done.flatMap((o) => o.outcome.delivery.written),
    },
  };
}

/**
 * One report's run (the whole report, or one slice of it) as one straight line of stages, each taking
 * the job as the stage before left it and the one context: resolve → plan → export → deliver → alert → announce
 * → the owners' notices (what the stages before it handed on, told once, stages/notice.ts).
 */
async function runOne(request: ExportJobRequest, context: JobContext): Promise<JobOutcome> {
  const started = context.clock();
  const runId = jobRunId(request, started, context.ids);
  if (request.exportId && !(await startOnDemand(request, request.exportId, runId, context))) {
    const current = await context.jobs.get(request.exportId);
    const reason = current
      ? `export ${request.exportId} is already ${current.status}; a repeated delivery does nothing`
      : `there is no export job ${request.exportId}`;
    context.log.warn('export job not started', { exportId: request.exportId, reason });
    return { status: 'skipped', reason };
  }
  let definition: ReportDefinition | undefined;
  let progress: JobProgress | undefined;
  try {
    const draft = await resolveJob(request, runId, context);
    definition = draft.definition;
    progress = request.exportId ? onDemandProgress(request.exportId, draft.definition, context) : undefined;
    // A rerun of a published run goes to its messages without asking the planning API anything.
    const published = await publishedRun(draft, context);
    const exported = published ? { ...draft, request, result: published } : await planAndExport(draft, request, withProgress(context, progress?.onProgress));
    await progress?.settle();
    context.onComplete?.(exported.result, context.clock().getTime() - started.getTime());
    // The alert rules are read first: a reader of both the weekly message and an alert gets one message.
    const stepped = await stepAlerts(exported, context);
    const delivered = { ...exported, ...(await deliverRun(exported, context, stepped.kind === 'read' ? stepped : undefined)) };
    const alerted = { ...delivered, ...(await alertRun(delivered, context, stepped, new Set(delivered.delivery.covered))) };
    await announceSuccess(alerted, context);
    await noticeOwners(alerted, context);
    const { result, delivery, alerts } = alerted;
    context.log.info('export job succeeded', { report: draft.definition.name, runId, emailed: delivery.emailed, delivery: delivery.reason, alerts: alerts.reason });
    return { status: 'succeeded', runId: result.manifest.runId, manifestKey: result.manifestKey, emailed: delivery.emailed, delivery, ...(draft.definition.alerts && { alerts }), run: factsOf(result) };
  } catch (error) {
    await progress?.settle();
    return failed(error, { request, report: definition?.name ?? requestedName(request), runId, definition }, context);
  }
}

/** The plan and export stages of a run not yet published. */
async function planAndExport(draft: RunDraft, request: ExportJobRequest, context: RunContext): Promise<ExportedJob> {
  const planned = await planRun(draft, context);
  return { ...planned, request, result: await exportRun(planned, context) };
}

/**
 * The first two stages of a job alone, for each run it would make (each slice of a report with
 * deliveries): resolve and plan, nothing fetched but the list calls, nothing written, nobody told
 * (`npm run export -- --dry-run`). A plan that fails throws its ReportPlanError.
 */
export async function planJob(request: ExportJobRequest, context: JobContext): Promise<PlannedRun[]> {
  const slices = await planSlices(request, context);
  const runs = slices ? slices.map((slice) => ({ request: slice.request, context: { ...context, definitions: slice.definitions } })) : [{ request, context }];
  const planned: PlannedRun[] = [];
  for (const run of runs) {
    const draft = await resolveJob(run.request, jobRunId(run.request, context.clock(), context.ids), run.context);
    planned.push(await planRun(draft, context));
  }
  return planned;
}

/**
 * queued → running happens once: a second delivery of the same job finds it running or done. The
 * fan-out's assembler of a job the single path handed over finds it running under its own run id.
 */
async function startOnDemand(request: ExportJobRequest, exportId: string, runId: string, context: JobContext): Promise<boolean> {
  if (request.via === 'fan-out') {
    const current = await context.jobs.get(exportId);
    return current?.status === 'running' && current.runId === runId;
  }
  return (await context.jobs.update(exportId, { status: 'running', runId }, context.clock())) !== undefined;
}

function onDemandProgress(exportId: string, definition: ReportDefinition, context: JobContext): JobProgress {
  const datasetsTotal = Object.values(definition.datasets).filter((d) => d !== undefined).length;
  return trackJobProgress(exportId, { jobs: context.jobs, datasetsTotal, clock: context.clock, log: context.log });
}

async function failed(error: unknown, job: FailedJob, context: JobContext): Promise<JobOutcome> {
  const { log } = context;
  if (error instanceof RunInProgressError || error instanceof LeaseLostError) {
    // Another attempt of this run is writing it (a duplicate delivery, or a retry that overlapped)
    // and reports the outcome. No retry is needed here: if that attempt dies, its own invocation is
    // retried, and by then its lease has lapsed (60 s) and the retry takes the run over.
    log.warn('another attempt owns this run; not exporting', { report: job.report, runId: job.runId, reason: error.message });
    return { status: 'skipped', reason: error.message };
  }
  if (error instanceof DeadlineExceededError && mayHandOver(job.request, context.fanOut)) return handOver(error, job, context.fanOut, context);
  context.onFailure?.(error);
  const failure = classifyFailure(error);
  log.error('export job failed', { report: job.report, runId: job.runId, ...failure, error: errorMessage(error) });
  await announceFailure(job, failure, context);
  // On-demand exports end here: their user sees `failed` and can start again, whereas a silent
  // Lambda retry would flip the status back and forth. Scheduled runs have nobody watching, so a
  // transient failure is thrown for the invocation's retry policy (same run id, same keys).
  if (failure.retryable && !job.request.exportId) throw new RetryableExportError(failure.reason, { cause: error });
  return { status: 'failed', reason: failure.reason, retryable: failure.retryable };
}

/**
 * A run that met the function's deadline will not fit one function: rather than fail (and fail
 * again on every retry, every week), it goes to the fan-out at once under the same run id. Nobody
 * is told of a failure; the run's manifest and the run list say which path wrote it and why.
 */
async function handOver(error: DeadlineExceededError, job: FailedJob, route: FanOutRoute, context: JobContext): Promise<JobOutcome> {
  const why = `run ${job.runId} met the function's deadline on the single path (${error.publicMessage})`;
  const outcome = await handOverToFanOut({ ...job.request, report: job.report }, job.runId, why, context, route);
  context.log.warn('run handed to the fan-out: it does not fit one function', { report: job.report, runId: job.runId, reason: outcome.reason });
  return outcome;
}

function factsOf(result: ExportResult): PublishedRunFacts {
  return {
    report: result.manifest.report,
    runFolder: result.runFolder,
    written: result.written,
    latestUpdated: result.latestUpdated,
    latestProblem: result.latestProblem,
    files: result.manifest.files,
    tables: result.manifest.tables ?? [],
  };
}
