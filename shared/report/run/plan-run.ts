import { PlanningApiClient } from '../../planning-api/client';
import { createLimiter } from '../../planning-api/transport/concurrency';
import { describeSource, type Credentials } from '../../planning-api/credentials';
import { withCredentialRefresh } from '../../secrets/credential-refresh';
import { planExport } from './export-plan';
import { REGISTRY } from '../registry';
import type { PlanningPorts, RunContext } from './context';
import type { PlannedRun, RunDraft } from './run';

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
 * The plan stage: the draft grown into the planned run (run.ts; report/run/export-plan.ts), before it takes its lease or fetches data: the
 * credentials read, the run's one client made, and the definition's selectors resolved with the list
 * calls alone. A refused key is read once more past the cache (it may have been rotated). A plan that
 * fails throws its ReportPlanError: nothing is fetched or written.
 */
export function planRun(draft: RunDraft, context: RunContext): Promise<PlannedRun> {
  return withCredentialRefresh(context.planning.credentials, async (credentials) => {
    const client = createExportClient(credentials, context);
    const datasets = (context.registry ?? REGISTRY).datasets;
    const plan = await planExport(draft.definition, client, { log: context.log, datasets, companyPrefix: credentials.companyPrefix });
    return { ...draft, plan, client, credentials, sourceInfo: describeSource(credentials) };
  });
}
