import { PlanningApiClient } from '../../planning-api/client';
import { createLimiter } from '../../planning-api/transport/concurrency';
import { describeSource, type Credentials } from '../../planning-api/credentials';
import type { RequestPace } from '../../planning-api/transport/pace';
import { timerSleep } from '../../core/retry/retry';
import { ledgerKey, type Ledger } from '../../ledger/ledger';
import { ledgerRatePacer } from '../../ledger/rate-pacer';
import type { ExportSettings } from '../definition/export-settings';
import { withCredentialRefresh } from '../../secrets/credential-refresh';
import { planExport } from './export-plan';
import { REGISTRY } from '../registry';
import type { PlanningPorts, RunContext } from './context';
import type { PlannedRun, RunDraft } from './run';

/**
 * The planning API client of one run: one limiter shared by every dataset, and with a tenant rate in
 * the settings and a ledger, the tenant's pace shared with its other runs. Exported so the
 * benchmarks (bench/) fetch through exactly the client a run uses.
 */
export function createExportClient(
  credentials: Credentials,
  context: Pick<RunContext, 'settings' | 'log' | 'clock'> & {
    readonly planning?: Omit<PlanningPorts, 'credentials'> | undefined;
    readonly ledger?: Ledger | undefined;
  },
): PlanningApiClient {
  const { settings } = context;
  const pace = tenantPace(credentials, settings, context);
  return new PlanningApiClient({
    credentials,
    limiter: createLimiter(settings.concurrency),
    pace,
    log: context.log,
    // The export's settings are the client's, resolved once at the door: passed whole.
    settings,
    deadline: settings.deadline,
    onRequest: context.planning?.onRequest,
    fetch: context.planning?.fetch,
    clock: context.clock,
  });
}

/**
 * The pace every run of one planning tenant shares (docs/architecture.md, "A fleet at one hour"): one
 * ledger entry per tenant, the tenant being its address and company prefix, as the API counts it.
 */
export function tenantPace(
  credentials: Pick<Credentials, 'baseUrl' | 'companyPrefix'>,
  settings: Pick<ExportSettings, 'ratePerSecond'>,
  context: Pick<RunContext, 'clock'> & { readonly ledger?: Ledger | undefined },
): RequestPace | undefined {
  if (settings.ratePerSecond === undefined || !context.ledger) return undefined;
  const key = ledgerKey('pace', 'planning', credentials.baseUrl, credentials.companyPrefix);
  return ledgerRatePacer(context.ledger, key, { ratePerSecond: settings.ratePerSecond, now: () => context.clock().getTime(), pause: timerSleep });
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
