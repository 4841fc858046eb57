import { silentLog, type Log } from '../../core/logger';
import { PlanningApiClient } from '../../planning-api/client';
import type { RequestEvent } from '../../planning-api/transport/requester';
import { createLimiter } from '../../planning-api/transport/concurrency';
import { describeSource, type Credentials } from '../../planning-api/credentials';
import { withCredentialRefresh, type CredentialsSource } from '../../secrets/credential-refresh';
import type { ReportDefinition } from '../definition/definition';
import { resolveExportSettings, type ExportSettings } from '../definition/export-settings';
import { planExport, type ExportPlan } from '../plan/export-plan';
import { runExport, type ExportDependencies, type ExportResult } from './run-export';

export { EXPORT_BOARD_ITEMS_PAGE_SIZE } from '../definition/export-settings';

/**
 * What an export needs besides the definition: the ports, the run's identity (ExportDependencies'
 * run fields, passed through as they are) and the resolved settings.
 */
export type ExportReportOptions = Omit<ExportDependencies, 'source' | 'sourceInfo'> & {
  readonly credentials: CredentialsSource;
  /** Resolved once at the door; default: every setting's default. */
  readonly settings?: ExportSettings | undefined;
  readonly onRequest?: ((event: RequestEvent) => void) | undefined;
  readonly fetch?: typeof fetch | undefined;
};

/** What createExportClient takes besides the settings: hooks of the caller. */
export interface ExportClientHooks {
  readonly log?: Log | undefined;
  readonly onRequest?: ((event: RequestEvent) => void) | undefined;
  readonly fetch?: typeof fetch | undefined;
  /** The run's clock: the settings' deadline is a time on it. */
  readonly now?: (() => Date) | undefined;
}

/**
 * The planning API client of one export: one limiter shared by every dataset. Exported so the
 * benchmarks (bench/) fetch through exactly the client an export uses.
 */
export function createExportClient(
  credentials: Credentials,
  settings: ExportSettings = resolveExportSettings(),
  hooks: ExportClientHooks = {},
): PlanningApiClient {
  return new PlanningApiClient({
    credentials,
    limiter: createLimiter(settings.concurrency),
    log: hooks.log ?? silentLog,
    boardItemsPageSize: settings.boardItemsPageSize,
    timeoutMs: settings.timeoutMs,
    maxResponseBytes: settings.maxResponseBytes,
    maxListPages: settings.maxListPages,
    maxListBytes: settings.maxListBytes,
    deadline: settings.deadline,
    onRequest: hooks.onRequest,
    fetch: hooks.fetch,
    now: hooks.now,
  });
}

/**
 * The whole export behind both doors (command line and Lambdas): credentials → client → runExport.
 * A 401/403 makes the credentials be read once more past the cache (the key may have been rotated)
 * and the export is run again with them; the failed attempt has already removed its partial files and released its lease.
 */
export function exportReport(definition: ReportDefinition, options: ExportReportOptions): Promise<ExportResult> {
  const { credentials: source, settings, onRequest, fetch, ...run } = options;
  const log = run.log ?? silentLog;
  return withCredentialRefresh(source, (credentials) => {
    const client = createExportClient(credentials, settings, { log, onRequest, fetch, now: run.now });
    return runExport(definition, { ...run, log, source: client, sourceInfo: describeSource(credentials) });
  });
}

/** What the plan of a run needs: the credentials, the settings and the hooks of the export's client. */
export type PlanReportOptions = Pick<ExportReportOptions, 'credentials' | 'settings' | 'onRequest' | 'fetch' | 'log' | 'now' | 'registry'>;

/**
 * The plan of a run (export-plan.ts) through exactly the client an export uses: the list calls
 * alone, before the run takes its lease or fetches data. The job's plan stage and the dry run
 * (`npm run export -- --dry-run`) make it; exportReport then takes it as `plan`.
 */
export function planReport(definition: ReportDefinition, options: PlanReportOptions): Promise<ExportPlan> {
  const log = options.log ?? silentLog;
  return withCredentialRefresh(options.credentials, (credentials) => {
    const client = createExportClient(credentials, options.settings, { log, onRequest: options.onRequest, fetch: options.fetch, now: options.now });
    return planExport(definition, client, { log, datasets: options.registry?.datasets, companyPrefix: credentials.companyPrefix });
  });
}
