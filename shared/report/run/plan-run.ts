import { PlanningApiClient } from '../../planning-api/client';
import { createLimiter } from '../../planning-api/transport/concurrency';
import { describeSource, type Credentials } from '../../planning-api/credentials';
import { withCredentialRefresh } from '../../secrets/credential-refresh';
import type { RunTrigger } from '../changes/manifest-changes';
import type { ReportDefinition } from '../definition/definition';
import type { Manifest, RunPath } from '../manifest/manifest';
import { planExport, type ExportPlan } from '../plan/export-plan';
import type { PlanningSource } from '../plan/planning-source';
import { REGISTRY } from '../registry';
import type { PlanningPorts, RunContext } from './context';

/** A run as the job resolved it, before anything is asked of the planning API. */
export interface RunDraft {
  readonly definition: ReportDefinition;
  readonly runId: string;
  /** Scheduled runs are compared with scheduled runs, on-demand ones with on-demand ones (docs/changes.md). */
  readonly trigger: RunTrigger;
  /** The `dt=` date of a scheduled run (its schedule's time); undefined: the run's first attempt. */
  readonly runDate: Date | undefined;
  /** Which path writes the run, and why (the manifest's `path`). */
  readonly path: RunPath;
}

/**
 * A run ready to export: its plan (every selector resolved with the list calls alone) and the one
 * planning client the run asks through, which the plan's lists already warmed.
 */
export interface PlannedRun extends RunDraft {
  readonly plan: ExportPlan;
  readonly client: PlanningSource;
  /** The credentials the client holds: a refusal is retried only with others (a rotated key). */
  readonly credentials: Credentials;
  /** Where the data came from, for the manifest: never the API key. */
  readonly sourceInfo: Manifest['source'];
}

/**
 * The planning API client of one run: one limiter shared by every dataset. Exported so the
 * benchmarks (bench/) fetch through exactly the client a run uses.
 */
export function createExportClient(
  credentials: Credentials,
  context: Pick<RunContext, 'settings' | 'log' | 'clock'> & { readonly planning?: Omit<PlanningPorts, 'credentials'> | undefined },
): PlanningApiClient {
  const { settings } = context;
  return new PlanningApiClient({
    credentials,
    limiter: createLimiter(settings.concurrency),
    log: context.log,
    // The export's settings are the client's, resolved once at the door: passed whole.
    settings,
    deadline: settings.deadline,
    onRequest: context.planning?.onRequest,
    fetch: context.planning?.fetch,
    now: context.clock,
  });
}

/**
 * The plan of a run (report/plan/export-plan.ts), before it takes its lease or fetches data: the
 * credentials read, the run's one client made, and the definition's selectors resolved with the list
 * calls alone. A refused key is read once more past the cache (it may have been rotated). A plan that
 * fails throws its ReportPlanError: nothing is fetched or written.
 */
export function planRun<R extends RunDraft>(draft: R, context: RunContext): Promise<R & PlannedRun> {
  return withCredentialRefresh(context.planning.credentials, async (credentials) => {
    const client = createExportClient(credentials, context);
    const datasets = (context.registry ?? REGISTRY).datasets;
    const plan = await planExport(draft.definition, client, { log: context.log, datasets, companyPrefix: credentials.companyPrefix });
    return { ...draft, plan, client, credentials, sourceInfo: describeSource(credentials) };
  });
}
