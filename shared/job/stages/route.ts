import * as z from 'zod';
import { ledgerKey, type Ledger } from '../../ledger/ledger';
import { ledgerRecord } from '../../ledger/ledger-record';
import { latestPointerSchema, manifestSchema } from '../../report/manifest/manifest';
import { abandonedAttempt, lapsingLease, timerWait, type Wait } from '../../report/run/run-lease';
import type { Storage } from '../../storage/storage';
import type { RunContext } from '../../report/run/context';
import { jobRunId } from './resolve';
import type { ExportJobRequest } from '../request';

/**
 * A report whose run died on the single path keeps fanning out this long, then tries the single
 * path again: a report that shrank gets its cheaper path back within a month, and one that did not
 * costs one dead attempt a month (the function's retry of that run fans out).
 */
export const OUTGROWN_DAYS = 35;

/** The ledger's note that a report outgrew one function (`route/<report>`). */
const outgrownSchema = z.object({
  runId: z.string(),
  /** When the dead attempt's lease lapsed. */
  at: z.iso.datetime(),
  until: z.iso.datetime(),
});

/**
 * Rows of a report's last published run (`latest`), or undefined when it has none (or its manifest
 * cannot be read).
 */
export async function lastRunRows(report: string, deps: { ledger: Ledger; storage: Storage }): Promise<number | undefined> {
  const pointer = latestPointerSchema.safeParse((await deps.ledger.get(ledgerKey('latest', report)))?.value);
  if (!pointer.success) return undefined;
  const bytes = await deps.storage.getObject(pointer.data.manifest);
  if (!bytes) return undefined;
  const manifest = manifestSchema.safeParse(JSON.parse(Buffer.from(bytes).toString('utf8')));
  if (!manifest.success) return undefined;
  return Object.values(manifest.data.summary.rows).reduce((sum, n) => sum + n, 0);
}

export interface FanOutRoute {
  readonly starter: FanOutStarter;
  /** Rows of the last run above which a run fans out. */
  readonly rows: number;
  /** How the route waits for a silent attempt's lease to lapse; default: timers (tests move their clock). */
  readonly wait?: Wait | undefined;
}

interface RouteDeps {
  readonly ledger: Ledger;
  readonly storage: Storage;
  readonly now: Date;
}

/** The route's view of the run context: the ledger, the storage and the time of the decision. */
function routeDeps(context: RunContext): RouteDeps {
  return { ledger: context.ledger, storage: context.storage, now: context.clock() };
}

/**
 * Why a scheduled run of `report` should fan out, or undefined (the single path runs it), in order:
 * 1. its last published run wrote more than `rows` rows (too big for one function's 15 minutes at
 *    the planning API's pace, docs/deploy.md);
 * 2. an earlier attempt of this very run died holding its lease (out of time or memory): the
 *    function's retry must not die the same way. The report is noted as outgrown, so
 * 3. its later runs fan out too, for OUTGROWN_DAYS, though none of its runs ever published.
 */
async function fanOutReason(report: string, runId: string, rows: number, deps: RouteDeps): Promise<string | undefined> {
  const written = await lastRunRows(report, deps);
  if (written !== undefined && written > rows) return `the last run wrote ${written} rows, more than ${rows} for one function`;
  const dead = await abandonedAttempt(deps.ledger, report, runId, deps.now);
  if (dead) {
    await noteOutgrown(report, runId, dead.lapsedAt, deps);
    return `an earlier attempt of this run stopped without finishing (out of time or memory; its lease lapsed at ${dead.lapsedAt})`;
  }
  const outgrown = outgrownSchema.safeParse((await deps.ledger.get(ledgerKey('route', report)))?.value);
  if (outgrown.success && new Date(outgrown.data.until) > deps.now) {
    return `run ${outgrown.data.runId} of this report did not fit one function (${outgrown.data.at}); its runs fan out until ${outgrown.data.until}`;
  }
  return undefined;
}

/** Notes (or renews) that `report` outgrew one function; a lost race means another attempt noted it. */
async function noteOutgrown(report: string, runId: string, at: string, deps: RouteDeps): Promise<void> {
  const key = ledgerKey('route', report);
  const until = new Date(deps.now.getTime() + OUTGROWN_DAYS * 86_400_000);
  await ledgerRecord(deps.ledger, key, outgrownSchema, { what: `the outgrown note of "${report}"`, invalid: 'absent' })
    .change(() => ({ runId, at, until: until.toISOString() }), { rounds: 1, lost: 'answer', expiresAt: until });
}

/**
 * The route stage, the first of a job (run-job.ts): hands a scheduled run of a big report to the
 * fan-out and says so, or answers undefined (the single path runs it). On-demand and inline runs
 * always take the single path. The deadline hand-over (handOverToFanOut) is the route's other door.
 */
export async function routeToFanOut(
  request: ExportJobRequest,
  context: RunContext,
  route: FanOutRoute | undefined,
): Promise<{ status: 'skipped'; reason: string } | undefined> {
  // A step of the fan-out (its assembler runs the job) is already on the route it was handed to.
  if (!route || request.via === 'fan-out' || request.source !== 'schedule' || request.report === undefined || request.definition !== undefined) return undefined;
  const runId = jobRunId(request, context.clock(), context.ids);
  // A retry that comes while a killed attempt's lease is still lapsing waits for the lapse, so it
  // is routed as the retry of a dead attempt rather than refused as "in progress".
  const lapse = await lapsingLease(context.ledger, request.report, runId, context.clock());
  if (lapse !== undefined) await (route.wait ?? timerWait)(lapse);
  const deps = routeDeps(context);
  const reason = await fanOutReason(request.report, runId, route.rows, deps);
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
  context: RunContext,
  route: FanOutRoute,
): Promise<{ status: 'skipped'; reason: string }> {
  const deps = routeDeps(context);
  await noteOutgrown(request.report, runId, deps.now.toISOString(), deps);
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
