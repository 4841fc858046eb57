import type { OutgoingEmail } from '../email/ses-mailer';
import type { LinkVerificationKeys } from '../links/link-token';
import type { Storage } from '../storage/storage';
import { DEFAULT_DEADLINE_MARGIN_MS } from '../core/defaults';
import { errorMessage, ExporterError, LeaseLostError, RetryableExportError, RunInProgressError } from '../core/errors';
import type { Ledger } from '../ledger/ledger';
import type { Log } from '../core/logger';
import type { RequestEvent } from '../planning-api/requester';
import type { ReportDefinition } from '../report/definition';
import { exportReport } from '../report/export-report';
import { resolveExportSettings, type ExportSettings } from '../report/export-settings';
import { newRunId } from '../report/run-id';
import type { ExportResult } from '../report/run-export';
import type { CredentialsSource } from '../secrets/credential-refresh';
import { classifyFailure } from './failure';
import { noticeFailure, noticeRecovery, ownersOf, type FailureFacts } from './failure-notice';
import { finalProgress, trackJobProgress, type JobProgress } from './job-progress';
import type { JobStatusStore } from './job-status';
import type { EventPublisher } from '../events/report-events';
import { catalogOf, type DefinitionCatalog, type ExportJobRequest } from './ports';
import { buildReportEmail } from './report-email';
import { messageRunKey, sendOnce } from './message-claim';
import { decideDelivery } from '../report/delivery-decision';
import { deliverRunToChannels, type ChannelJobDependencies } from './report-channels';
import type { ChannelResult } from '../channels/deliver';
import { configuredDefinition, resolveDefinition, type InlinePolicy } from './resolve-definition';
import { createResponseCache } from '../planning-api/response-cache';
import { parseReportDefinition } from '../report/definition';
import { deliveriesOf, sliceDefinition } from '../report/slices';
import { tableFilesDetail } from './table-event';

export interface ExportJobDependencies {
  readonly definitions: DefinitionCatalog;
  readonly credentials: CredentialsSource;
  readonly storage: Storage;
  /** The run ledger (leases and latest); `jobs` keeps its state in the same ledger. */
  readonly ledger: Ledger;
  readonly jobs: JobStatusStore;
  readonly events: EventPublisher;
  readonly log: Log;
  /** Needed only for definitions with e-mail recipients. */
  readonly mail?: {
    readonly send: (email: OutgoingEmail) => Promise<unknown>;
    readonly from: string | undefined;
    readonly linkBaseUrl: string;
    readonly linkKeys: () => Promise<LinkVerificationKeys>;
  };
  /** Needed only for definitions with chat channels (`delivery.channels`). */
  readonly channels?: ChannelJobDependencies;
  readonly bucket?: string;
  readonly now?: () => Date;
  /**
   * Resolved by the handler; its deadline is the Lambda's remaining time less a margin
   * (exportDeadline), so the run fails cleanly and reports before the invocation would be killed.
   */
  readonly settings?: ExportSettings;
  /** Whether (and how) inline definitions may run; default: off. */
  readonly inline?: InlinePolicy;
  readonly onRequest?: (event: RequestEvent) => void;
  readonly onComplete?: (result: ExportResult, durationMs: number) => void;
  /** The planning API's fetch (the slices of a report share a response cache through it). */
  readonly fetch?: typeof fetch;
}

/** Whether the run's message went out (`delivery.when`), why, and how each chat channel fared. */
export interface RunDelivery {
  readonly sent: boolean;
  readonly reason: string;
  readonly channels: readonly ChannelResult[];
}

export type ExportJobOutcome =
  | {
      readonly status: 'succeeded';
      readonly runId: string;
      readonly manifestKey: string;
      readonly emailed: boolean;
      readonly delivery: RunDelivery;
    }
  | { readonly status: 'failed'; readonly reason: string; readonly retryable: boolean }
  /** A duplicate delivery, or another attempt owns the run: nothing was done, nothing reported. */
  | { readonly status: 'skipped'; readonly reason: string };

/** A report with deliveries: the outcome of each slice's run, and the whole in one (runSlices). */
export type SlicedJobOutcome = ExportJobOutcome & { readonly slices: readonly { readonly report: string; readonly outcome: ExportJobOutcome }[] };


/**
 * The deadline of an export in a Lambda: its remaining time less a margin for reporting the failure
 * (status, event, e-mail). The margin is at most a fifth of what is left, so a short invocation still
 * gets most of its time for the export.
 */
export function exportDeadline(nowMs: number, remainingMs: number): number {
  return nowMs + remainingMs - Math.min(DEFAULT_DEADLINE_MARGIN_MS, Math.floor(remainingMs / 5));
}

/**
 * The export settings of a job in a Lambda, resolved once from the function's configuration, with
 * the deadline that leaves time to report a failure (exportDeadline).
 */
export function jobExportSettings(
  config: { readonly API_CONCURRENCY: number; readonly API_TIMEOUT_MS: number; readonly API_MAX_RESPONSE_BYTES: number },
  nowMs: number,
  remainingMs: number,
): ExportSettings {
  return resolveExportSettings({
    concurrency: config.API_CONCURRENCY,
    timeoutMs: config.API_TIMEOUT_MS,
    maxResponseBytes: config.API_MAX_RESPONSE_BYTES,
    deadline: exportDeadline(nowMs, remainingMs),
  });
}

/** A run id that is the same for every attempt of one scheduled run or one API export. */
export function jobRunId(request: ExportJobRequest, now: Date): string {
  if (request.runId) return request.runId;
  if (request.exportId) return request.exportId;
  if (request.scheduledTime) {
    const at = new Date(request.scheduledTime);
    if (!Number.isNaN(at.getTime())) return `s-${at.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}Z$/, 'Z')}`;
  }
  return newRunId(now);
}

/**
 * One export job: resolve the definition, export, e-mail the recipients, announce the result on the
 * event bus and keep the on-demand status up to date. Failures are recorded (status, ReportFailed
 * event) and returned; a scheduled run's transient failure is thrown as RetryableExportError.
 * Retries are idempotent: the run id is the same, a completed run is not exported again, and the
 * e-mail goes out once per run (claimed in the ledger first, message-claim.ts): a retry sends it
 * only if no earlier attempt did.
 */
export async function runExportJob(request: ExportJobRequest, deps: ExportJobDependencies): Promise<ExportJobOutcome> {
  const slices = await plannedSlices(request, deps);
  return slices ? runSlices(request, slices, deps) : runOneExport(request, deps);
}

/**
 * A scheduled (or manual) run of a configured report with deliveries runs its slices, one after
 * another, each an ordinary run named `<report>--<delivery>` with its own folder, changes, message
 * and failure notices. They share one response cache, so the planning API is asked once for what
 * several slices read. On-demand exports (an export id, overrides or an inline definition) export
 * the report as a whole.
 */
async function plannedSlices(request: ExportJobRequest, deps: ExportJobDependencies): Promise<{ name: string; definition: unknown }[] | undefined> {
  if (request.report === undefined || request.definition !== undefined || request.exportId !== undefined || request.overrides !== undefined) return undefined;
  let base: unknown;
  try {
    base = await deps.definitions.get(request.report);
    if (deliveriesOf(base).length === 0) return undefined;
    parseReportDefinition(base, `report "${request.report}"`);
  } catch {
    // The single run reads it again and reports the problem as every run does.
    return undefined;
  }
  return deliveriesOf(base).map((delivery) => {
    const definition = sliceDefinition(base, delivery);
    return { name: String(definition.name), definition };
  });
}

async function runSlices(request: ExportJobRequest, slices: readonly { name: string; definition: unknown }[], deps: ExportJobDependencies): Promise<SlicedJobOutcome> {
  const cache = createResponseCache(deps.fetch);
  const outcomes: { report: string; outcome: ExportJobOutcome }[] = [];
  let retry: RetryableExportError | undefined;
  for (const slice of slices) {
    const sliceDeps = { ...deps, definitions: catalogOf({ [slice.name]: slice.definition }), fetch: cache.fetch };
    try {
      outcomes.push({ report: slice.name, outcome: await runOneExport({ ...request, report: slice.name }, sliceDeps) });
    } catch (error) {
      // One slice's transient failure must not keep the others from their audiences; the retry
      // of the invocation redoes only what did not complete (run ids and message claims are per slice).
      if (!(error instanceof RetryableExportError)) throw error;
      retry ??= error;
      outcomes.push({ report: slice.name, outcome: { status: 'failed', reason: error.message, retryable: true } });
    }
  }
  deps.log.info('sliced report done', { report: request.report, slices: outcomes.map((o) => `${o.report}: ${o.outcome.status}`), cache: cache.stats() });
  if (retry) throw retry;
  return { ...combined(outcomes), slices: outcomes };
}

/** All slices succeeded: succeeded (sent if any was sent); else failed, naming each failed slice. */
function combined(outcomes: readonly { report: string; outcome: ExportJobOutcome }[]): ExportJobOutcome {
  const failed = outcomes.filter((o) => o.outcome.status === 'failed');
  if (failed.length > 0) {
    return {
      status: 'failed',
      reason: failed.map((o) => `${o.report}: ${o.outcome.status === 'failed' ? o.outcome.reason : ''}`).join('; '),
      retryable: failed.some((o) => o.outcome.status === 'failed' && o.outcome.retryable),
    };
  }
  const done = outcomes.flatMap((o) => (o.outcome.status === 'succeeded' ? [{ report: o.report, outcome: o.outcome }] : []));
  const first = done[0];
  if (!first) return { status: 'skipped', reason: outcomes.map((o) => `${o.report}: ${o.outcome.status === 'skipped' ? o.outcome.reason : ''}`).join('; ') };
  return {
    status: 'succeeded',
    runId: first.outcome.runId,
    manifestKey: first.outcome.manifestKey,
    emailed: done.some((o) => o.outcome.emailed),
    delivery: {
      sent: done.some((o) => o.outcome.delivery.sent),
      reason: done.map((o) => `${o.report}: ${o.outcome.delivery.reason}`).join('; '),
      channels: done.flatMap((o) => o.outcome.delivery.channels),
    },
  };
}

/** One report's run: resolve, export, deliver, report (the whole report, or one slice of it). */
async function runOneExport(request: ExportJobRequest, deps: ExportJobDependencies): Promise<ExportJobOutcome> {
  const now = deps.now ?? (() => new Date());
  const started = now();
  const reportName = request.report ?? nameOf(request.definition);
  const runId = jobRunId(request, started);
  const log = deps.log;
  if (request.exportId) {
    // queued → running happens once: a second delivery of the same job finds it running or done.
    const running = await deps.jobs.update(request.exportId, { status: 'running', runId }, started);
    if (!running) {
      const current = await deps.jobs.get(request.exportId);
      const reason = current
        ? `export ${request.exportId} is already ${current.status}; a repeated delivery does nothing`
        : `there is no export job ${request.exportId}`;
      log.warn('export job not started', { exportId: request.exportId, reason });
      return { status: 'skipped', reason };
    }
  }

  let definition: ReportDefinition | undefined;
  let progress: JobProgress | undefined;
  try {
    definition = resolveDefinition(request, await configuredDefinition(request, deps.definitions), deps.inline);
    const datasetsTotal = Object.values(definition.datasets).filter((d) => d !== undefined).length;
    if (request.exportId) progress = trackJobProgress(request.exportId, { jobs: deps.jobs, datasetsTotal, now, log });
    const scheduled = request.scheduledTime ? new Date(request.scheduledTime) : undefined;
    const result = await exportReport(definition, {
      credentials: deps.credentials,
      storage: deps.storage,
      ledger: deps.ledger,
      log,
      runId,
      trigger: runTrigger(request),
      runDate: scheduled && !Number.isNaN(scheduled.getTime()) ? scheduled : undefined,
      now: deps.now,
      settings: deps.settings,
      onRequest: deps.onRequest,
      fetch: deps.fetch,
      onProgress: progress?.onProgress,
    });
    await progress?.settle();
    deps.onComplete?.(result, now().getTime() - started.getTime());

    const { emailed, delivery } = await deliverRun(definition, result, request, deps, now());
    await reportSuccess(definition, result, request, deps, { datasetsTotal, now, delivery });
    if (isScheduled(request)) await notifyOwners(definition, { runId }, deps, now());
    log.info('export job succeeded', { report: definition.name, runId, emailed, delivery: delivery.reason });
    return { status: 'succeeded', runId: result.manifest.runId, manifestKey: result.manifestKey, emailed, delivery };
  } catch (error) {
    await progress?.settle();
    if (error instanceof RunInProgressError || error instanceof LeaseLostError) {
      // Another attempt of this run is writing it (a duplicate delivery, or a retry that overlapped)
      // and reports the outcome. No retry is needed here: if that attempt dies, its own invocation is
      // retried, and by then its lease has lapsed (60 s) and the retry takes the run over.
      log.warn('another attempt owns this run; not exporting', { report: reportName, runId, reason: error.message });
      return { status: 'skipped', reason: error.message };
    }
    const failure = classifyFailure(error);
    log.error('export job failed', {
      report: reportName,
      runId,
      errorType: failure.errorType,
      reason: failure.reason,
      retryable: failure.retryable,
      error: errorMessage(error),
    });
    await Promise.allSettled([
      isScheduled(request) && definition ? notifyOwners(definition, { runId, ...failure }, deps, now()) : Promise.resolve(),
      deps.events.publish('ReportFailed', {
        report: definition?.name ?? reportName,
        runId,
        ...(request.exportId && { exportId: request.exportId }),
        ...failure,
      }),
      request.exportId
        ? deps.jobs.update(
            request.exportId,
            { status: 'failed', error: failure.retryable ? `${failure.reason} (this may pass if you start the export again)` : failure.reason },
            now(),
          )
        : Promise.resolve(),
    ]);
    // On-demand exports end here: their user sees `failed` and can start again, whereas a silent
    // Lambda retry would flip the status back and forth. Scheduled runs have nobody watching, so a
    // transient failure is thrown for the invocation's retry policy (same run id, same keys).
    if (failure.retryable && !request.exportId) throw new RetryableExportError(failure.reason, { cause: error });
    return { status: 'failed', reason: failure.reason, retryable: failure.retryable };
  }
}

/**
 * Sends the run's message when `delivery.when` allows: chat channels first (they never throw), then
 * the e-mail, whose failure still fails the job as before.
 */
async function deliverRun(
  definition: ReportDefinition,
  result: ExportResult,
  request: ExportJobRequest,
  deps: ExportJobDependencies,
  at: Date,
): Promise<{ emailed: boolean; delivery: RunDelivery }> {
  const decision = decideDelivery(definition, result);
  const channels = decision.send ? await deliverRunToChannels(definition, result, channelContext(request, deps, at)) : [];
  const emailed = decision.send && (await emailRecipients(definition, result, request, deps, at));
  return { emailed, delivery: { sent: decision.send, reason: decision.reason, channels } };
}

function channelContext(request: ExportJobRequest, deps: ExportJobDependencies, at: Date): Parameters<typeof deliverRunToChannels>[2] {
  return {
    channels: deps.channels,
    links: deps.mail && { baseUrl: deps.mail.linkBaseUrl, keys: deps.mail.linkKeys },
    freshCopyLink: request.definition === undefined,
    deadline: deps.settings?.deadline,
    ledger: deps.ledger,
    log: deps.log,
    now: at,
    mail: deps.mail,
  };
}

/** E-mails the report to the definition's recipients; false when it has none. */
async function emailRecipients(
  definition: ReportDefinition,
  result: ExportResult,
  request: ExportJobRequest,
  deps: ExportJobDependencies,
  now: Date,
): Promise<boolean> {
  const email = definition.email;
  if (!email) return false;
  const mail = deps.mail;
  if (!mail) throw new ExporterError('this report has e-mail recipients but no mail sender is configured (MAIL_FROM)');
  const keys = await mail.linkKeys();
  const from = email.from ?? mail.from;
  if (!from) throw new ExporterError('this report has e-mail recipients but no sender: set email.from or MAIL_FROM');
  const message = await buildReportEmail({ ...definition, email }, result, {
    from,
    linkBaseUrl: mail.linkBaseUrl,
    key: keys.current,
    now,
    storage: deps.storage,
    freshCopyLink: request.definition === undefined,
    inline: request.definition !== undefined,
  });
  // Claimed before it is sent: a retry or a repeated delivery of the run finds the claim and skips.
  const outcome = await sendOnce(
    { ledger: deps.ledger, runKey: messageRunKey(definition.name, result.manifest.runId), channel: 'email', log: deps.log, now },
    () => mail.send(message),
  );
  return outcome === 'sent';
}

/** Announces the stored run on the event bus (ReportExported) and marks an on-demand job succeeded. */
async function reportSuccess(
  definition: ReportDefinition,
  result: ExportResult,
  request: ExportJobRequest,
  deps: ExportJobDependencies,
  job: { readonly datasetsTotal: number; readonly now: () => Date; readonly delivery: RunDelivery },
): Promise<void> {
  await deps.events.publish('ReportExported', {
    report: definition.name,
    runId: result.manifest.runId,
    ...(request.exportId && { exportId: request.exportId }),
    manifestKey: result.manifestKey,
    ...(deps.bucket && { bucket: deps.bucket }),
    rows: result.manifest.summary.rows,
    files: result.manifest.files.map((f) => ({ path: f.path, format: f.format, bytes: f.bytes, sha256: f.sha256 })),
    ...tableFilesDetail(result.manifest),
    delivery: { ...job.delivery, channels: job.delivery.channels.map((c) => ({ type: c.type, status: c.status })) },
  });
  if (request.exportId) {
    const done = finalProgress(result.manifest.summary.rows, job.datasetsTotal);
    await deps.jobs.update(request.exportId, { status: 'succeeded', manifestKey: result.manifestKey, progress: done, delivery: job.delivery.reason }, job.now());
  }
}

/** Scheduled runs have nobody watching: their owners are told of failures. On-demand callers see the status. */
function isScheduled(request: ExportJobRequest): boolean {
  return request.exportId === undefined && (request.source === 'schedule' || request.scheduledTime !== undefined);
}

/**
 * Tells the owners that the report started failing or works again (once per streak, see
 * failure-notice.ts). Never fails the job: a lost notification is logged, the export stands.
 */
async function notifyOwners(
  definition: ReportDefinition,
  outcome: { runId: string } | FailureFacts,
  deps: ExportJobDependencies,
  at: Date,
): Promise<void> {
  const from = definition.email?.from ?? deps.mail?.from;
  if (!deps.mail || !from) {
    if (ownersOf(definition).length > 0) deps.log.warn('no mail sender configured: the owners cannot be told', { report: definition.name });
    return;
  }
  const noticeDeps = { ledger: deps.ledger, send: deps.mail.send, from, log: deps.log, now: at };
  try {
    if ('reason' in outcome) await noticeFailure(definition, outcome, noticeDeps);
    else await noticeRecovery(definition, outcome.runId, noticeDeps);
  } catch (error) {
    deps.log.error('failure notification failed', { report: definition.name, error: errorMessage(error) });
  }
}

/** Scheduled runs are compared with the previous scheduled run, on-demand ones with on-demand ones (docs/changes.md). */
export function runTrigger(request: ExportJobRequest): 'scheduled' | 'on-demand' {
  return isScheduled(request) ? 'scheduled' : 'on-demand';
}

function nameOf(definition: unknown): string {
  if (definition && typeof definition === 'object' && 'name' in definition && typeof definition.name === 'string') {
    return definition.name;
  }
  return '(unnamed)';
}
