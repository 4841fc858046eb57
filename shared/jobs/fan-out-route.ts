import { ledgerKey, type Ledger } from '../ledger/ledger';
import { latestPointerSchema, manifestSchema } from '../report/manifest';
import type { Storage } from '../storage/storage';
import { jobRunId } from './export-job';
import type { FanOutStarter } from './fan-out-event';
import type { ExportJobRequest } from './ports';

/**
 * Which path a scheduled run takes: a report whose last run wrote more rows than `rows` is run as
 * a fan-out (too big for one function's 15 minutes at the planning API's pace, docs/deploy.md);
 * every other run stays on the single path. The last run is the published one (`latest`).
 */
export async function lastRunRows(report: string, deps: { ledger: Ledger; storage: Storage }): Promise<number | undefined> {
  const pointer = latestPointerSchema.safeParse((await deps.ledger.get(ledgerKey('latest', report)))?.value);
  if (!pointer.success) return undefined;
  const bytes = await deps.storage.getObject(pointer.data.manifest);
  if (!bytes) return undefined;
  const manifest = manifestSchema.safeParse(JSON.parse(Buffer.from(bytes).toString('utf8')));
  if (!manifest.success) return undefined;
  return Object.values(manifest.data.summary.rows as Record<string, number>).reduce((sum, n) => sum + n, 0);
}

export interface FanOutRoute {
  readonly starter: FanOutStarter;
  /** Rows of the last run above which a run fans out. */
  readonly rows: number;
}

/**
 * Hands a scheduled run of a big report to the fan-out and says so, or answers undefined (the single
 * path runs it). On-demand and inline runs always take the single path.
 */
export async function routeToFanOut(
  request: ExportJobRequest,
  deps: { ledger: Ledger; storage: Storage; now: Date; route: FanOutRoute | undefined },
): Promise<{ status: 'skipped'; reason: string } | undefined> {
  if (!deps.route || request.source !== 'schedule' || request.report === undefined || request.definition !== undefined) return undefined;
  const rows = await lastRunRows(request.report, deps);
  if (rows === undefined || rows <= deps.route.rows) return undefined;
  const runId = jobRunId(request, deps.now);
  const started = await deps.route.starter.start(`${request.report}-${runId}`.slice(0, 80), { ...request, runId });
  return {
    status: 'skipped',
    reason: `${started ? 'handed' : 'already handed'} to the fan-out: the last run wrote ${rows} rows, more than ${deps.route.rows} for one function`,
  };
}
