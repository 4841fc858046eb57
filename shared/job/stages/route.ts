import { fanOutReason, noteOutgrown, type RouteHistory } from '../../report/run/run-route';
import type { RunContext } from '../../report/run/context';
import { jobRunId } from './resolve';
import type { ExportJobRequest } from '../request';

export interface FanOutRoute {
  readonly starter: FanOutStarter;
  /** Rows of the last run above which a run fans out. */
  readonly rows: number;
}

/**
 * The route stage, the first of a job (run-job.ts): hands a scheduled run of a big report to the
 * fan-out and says so, or answers undefined (the single path runs it). On-demand and inline runs
 * always take the single path. The deadline hand-over (handOverToFanOut) is the route's other door.
 * The report's history (run-route.ts) answers the one question; a retry waits out a silent holder's
 * lease with the context's `leaseWait`, as the lease itself does.
 */
export async function routeToFanOut(
  request: ExportJobRequest,
  context: RouteHistory & Pick<RunContext, 'ids'>,
  route: FanOutRoute | undefined,
): Promise<{ status: 'skipped'; reason: string } | undefined> {
  // A step of the fan-out (its assembler runs the job) is already on the route it was handed to.
  if (!route || request.via === 'fan-out' || request.source !== 'schedule' || request.report === undefined || request.definition !== undefined) return undefined;
  const runId = jobRunId(request, context.clock(), context.ids);
  const reason = await fanOutReason({ report: request.report, runId }, route.rows, context);
  if (!reason) return undefined;
  return startFanOut({ ...request, report: request.report }, runId, reason, route);
}

/**
 * Whether a run that met its deadline on the single path may be handed to the fan-out: a configured
 * report (an inline definition has no stored name for the state machine to read), not already a
 * step of it, where the stack has one.
 */
export function mayHandOver(request: ExportJobRequest, route: FanOutRoute | undefined): route is FanOutRoute {
  return route !== undefined && request.via !== 'fan-out' && request.report !== undefined && request.definition === undefined;
}

/**
 * Hands a run that will not fit one function to the fan-out, the same week: notes the report as
 * outgrown (its next runs start on the fan-out) and starts the state machine with the same run id.
 * The attempt that met its deadline has released the run; the assembler takes it over and removes
 * what that attempt left, as every retry does.
 */
export async function handOverToFanOut(
  request: ExportJobRequest & { readonly report: string },
  runId: string,
  why: string,
  context: Pick<RouteHistory, 'ledger' | 'clock'>,
  route: FanOutRoute,
): Promise<{ status: 'skipped'; reason: string }> {
  await noteOutgrown({ report: request.report, runId }, context.clock().toISOString(), context);
  return startFanOut(request, runId, why, route);
}

async function startFanOut(request: ExportJobRequest & { readonly report: string }, runId: string, why: string, route: FanOutRoute): Promise<{ status: 'skipped'; reason: string }> {
  const input = { ...request, runId, via: 'fan-out' as const, routeReason: why };
  const started = await route.starter.start(`${request.report}-${runId}`.slice(0, 80), input);
  return { status: 'skipped', reason: `${started ? 'handed' : 'already handed'} to the fan-out: ${why}` };
}

/** Starts a fan-out's state machine for a run (the port; its adapter is fan-out/step-functions-starter.ts). */
export interface FanOutStarter {
  /** Starts it once per run: a second start of the same run finds the first and returns false. */
  start(name: string, input: Record<string, unknown>): Promise<boolean>;
}
