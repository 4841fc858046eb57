import type { RequestEvent } from '../../planning-api/transport/requester';
import type { ProgressEvent } from '../../report/dataset/dataset';
import type { ExportPlan } from '../../report/plan/export-plan';
import { exportReport } from '../../report/run/export-report';
import type { ExportResult } from '../../report/run/run-export';
import type { Wait } from '../../report/run/run-lease';
import type { CredentialsSource } from '../../secrets/credential-refresh';
import type { RunContext } from '../run-context';
import type { ResolvedJob } from './resolve';

/**
 * Stage 2 of a job, export: the run itself, under its lease (report/run/run-attempt.ts), its datasets
 * made from the plan (stages/plan.ts), fetched, written and published, or found complete when an
 * earlier attempt of the same run id published it.
 * The single path and the fan-out's assembler both come here; the assembler only brings a `fetch`
 * that replays its workers' stored answers.
 */
export interface ExportPorts {
  readonly credentials: CredentialsSource;
  /** The planning API's fetch (the slices of a report share a response cache through it; the assembler replays). */
  readonly fetch?: typeof fetch | undefined;
  readonly onRequest?: ((event: RequestEvent) => void) | undefined;
  /** The door's own progress display (the terminal), beside the on-demand job's status. */
  readonly onProgress?: ((event: ProgressEvent) => void) | undefined;
  /**
   * How a retry waits for the lease of an attempt that stopped renewing (killed) to lapse, then takes
   * the run over, instead of stopping as "in progress" (run-lease.ts). The export function passes timers.
   */
  readonly leaseWait?: Wait | undefined;
}

export function exportRun(
  job: ResolvedJob,
  plan: ExportPlan,
  ports: ExportPorts,
  context: RunContext,
  onProgress?: (event: ProgressEvent) => void,
): Promise<ExportResult> {
  return exportReport(job.definition, {
    plan,
    credentials: ports.credentials,
    storage: context.storage,
    ledger: context.ledger,
    log: context.log,
    runId: job.runId,
    trigger: job.trigger,
    runDate: job.runDate,
    now: context.clock,
    settings: context.settings,
    onRequest: ports.onRequest,
    fetch: ports.fetch,
    onProgress: both(ports.onProgress, onProgress),
    leaseWait: ports.leaseWait,
    path: job.request.via === 'fan-out' ? { via: 'fan-out', ...(job.request.routeReason !== undefined && { reason: job.request.routeReason }) } : { via: 'single' },
  });
}

function both(a: ((event: ProgressEvent) => void) | undefined, b: ((event: ProgressEvent) => void) | undefined): ((event: ProgressEvent) => void) | undefined {
  if (!a || !b) return a ?? b;
  return (event) => {
    a(event);
    b(event);
  };
}
