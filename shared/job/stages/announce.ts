import type { EventPublisher } from '../../events/report-events';
import type { ReportDefinition } from '../../report/definition/definition';
import type { FailureFacts } from '../../messages/notices/failure-notice';
import { finalProgress } from '../status/job-progress';
import type { JobStatusStore } from '../status/job-status';
import type { ExportJobRequest } from '../request';
import type { RunContext } from '../../report/run/context';
import { tableFilesDetail } from './table-event';
import type { RunDelivery } from './deliver';
import type { ExportedJob, MailPorts } from './delivery-ports';
import { isScheduled } from './resolve';
import { noticeOwnersOfFailure } from './notice';
import { tellsOwners, type RunAttempt } from '../attempt';

/**
 * The announce stage of a job (after alert, before the owners' notices): the outcome goes where
 * people and machines look for it. The event bus
 * (ReportExported, ReportFailed), the on-demand job's status (what the run page and the API show),
 * and, for a scheduled run's failure, the owners (notice.ts; a success's notices are that step's,
 * after this one): one e-mail when a report starts failing, a retryable failure only on the run's
 * last attempt (attempt.ts). Announcing never fails a run that was published.
 */
export interface AnnouncePorts extends MailPorts {
  readonly events: EventPublisher;
  readonly jobs: JobStatusStore;
  /** The reports bucket, named in ReportExported so a subscriber can fetch the files. */
  readonly bucket?: string | undefined;
  /** Which attempt of the run this is, from the door (attempt.ts); absent: the only one, a failure is told at once. */
  readonly attempt?: RunAttempt | undefined;
}

/** What is known of a job that failed: the definition may be missing (it could not be resolved). */
export interface FailedJob {
  readonly request: ExportJobRequest;
  readonly report: string;
  readonly runId: string;
  readonly definition: ReportDefinition | undefined;
}

/** What the announce stage reads of the job's context. */
export type AnnounceContext = RunContext & AnnouncePorts;

export async function announceSuccess(job: ExportedJob & { readonly delivery: RunDelivery }, context: AnnounceContext): Promise<void> {
  const { request, definition, result, delivery } = job;
  const { manifest } = result;
  await context.events.publish('ReportExported', {
    report: definition.name,
    runId: manifest.runId,
    ...(request.exportId && { exportId: request.exportId }),
    manifestKey: result.manifestKey,
    ...(context.bucket && { bucket: context.bucket }),
    rows: manifest.summary.rows,
    files: manifest.files.map((f) => ({ path: f.path, format: f.format, bytes: f.bytes, sha256: f.sha256 })),
    ...tableFilesDetail(manifest),
    delivery: { sent: delivery.sent, reason: delivery.reason, channels: delivery.channels.map((c) => ({ type: c.type, status: c.status })) },
  });
  if (request.exportId) {
    const datasetsTotal = Object.values(definition.datasets).filter((d) => d !== undefined).length;
    const progress = finalProgress(manifest.summary.rows, datasetsTotal);
    await context.jobs.update(request.exportId, { status: 'succeeded', manifestKey: result.manifestKey, progress, delivery: delivery.reason }, context.clock());
  }
}

/**
 * Tells every audience of the failure at once; none of them can stop the others. ReportFailed, like the
 * owners' notice, says a run failed for good: a failure no retry mends, or the last attempt's. An
 * operator's rule or alarm on it then counts a failed run once, not once per attempt, and a run whose
 * retry delivers is no failure on the bus.
 */
export async function announceFailure(job: FailedJob, failure: Omit<FailureFacts, 'runId'>, context: AnnounceContext): Promise<void> {
  const { request, definition } = job;
  const final = tellsOwners(failure, context.attempt);
  await Promise.allSettled([
    isScheduled(request) && definition ? tellOwnersOfFailure(definition, { runId: job.runId, ...failure }, final, context) : Promise.resolve(),
    final
      ? context.events.publish('ReportFailed', {
          report: definition?.name ?? job.report,
          runId: job.runId,
          ...(request.exportId && { exportId: request.exportId }),
          ...failure,
        })
      : Promise.resolve(),
    request.exportId
      ? context.jobs.update(
          request.exportId,
          { status: 'failed', error: failure.retryable ? `${failure.reason} (this may pass if you start the export again)` : failure.reason },
          context.clock(),
        )
      : Promise.resolve(),
  ]);
}

/** The owners hear of a retryable failure only when no attempt follows: the next may mend it (a throttle, a blip). */
async function tellOwnersOfFailure(definition: ReportDefinition, failure: FailureFacts, final: boolean, context: AnnounceContext): Promise<void> {
  if (final) return noticeOwnersOfFailure(definition, failure, context);
  context.log.info('a retryable failure: the owners are told only if the last attempt fails too', {
    report: definition.name,
    runId: failure.runId,
    attempt: context.attempt?.number,
  });
}
