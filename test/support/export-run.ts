import type { Clock } from '../../shared/core/clock';
import type { Log } from '../../shared/core/logger';
import type { Ledger } from '../../shared/ledger/ledger';
import type { RequestEvent } from '../../shared/planning-api/transport/requester';
import type { RunTrigger } from '../../shared/report/manifest/manifest-changes';
import type { ProgressEvent } from '../../shared/report/dataset/dataset';
import type { ReportDefinition } from '../../shared/report/definition/definition';
import type { ExportSettings } from '../../shared/report/definition/export-settings';
import type { RunPath } from '../../shared/report/manifest/manifest';
import type { Registry } from '../../shared/report/registry';
import { runContextOf, type RunContext } from '../../shared/report/run/context';
import { createExportClient, planRun } from '../../shared/report/run/plan-run';
import type { PlannedRun } from '../../shared/report/run/run';
import { planExport } from '../../shared/report/run/export-plan';
import type { PlanningSource } from '../../shared/report/dataset/planning-source';
import { describeSource, type Credentials } from '../../shared/planning-api/credentials';
import { resolveExportSettings } from '../../shared/report/definition/export-settings';
import { silentLog } from '../../shared/core/logger';
import { systemClock } from '../../shared/core/clock';
import { REGISTRY } from '../../shared/report/registry';
import type { ExportResult } from '../../shared/report/run/result';
import { exportRun } from '../../shared/report/run/run-export';
import type { Wait } from '../../shared/report/run/run-lease';
import type { CredentialsSource } from '../../shared/secrets/credential-refresh';
import type { Storage } from '../../shared/storage/storage';

/** One run of a definition below the job: what the report tests vary, the rest the kit's defaults. */
export interface ExportRunOptions {
  readonly credentials: CredentialsSource;
  readonly storage: Storage;
  readonly ledger: Ledger;
  readonly now: Clock;
  readonly runId?: string;
  readonly trigger?: RunTrigger;
  readonly runDate?: Date;
  readonly path?: RunPath;
  readonly registry?: Registry;
  readonly settings?: ExportSettings;
  readonly fetch?: typeof fetch;
  readonly onRequest?: (event: RequestEvent) => void;
  readonly onProgress?: (event: ProgressEvent) => void;
  readonly log?: Log;
  readonly leaseMs?: number;
  readonly leaseWait?: Wait;
  /** The planning API as the run sees it, in place of the client the plan would make (a test's failing or counting source). */
  readonly source?: PlanningSource;
}

/** The run context of those options, as a door would build it. */
export function exportRunContext(options: ExportRunOptions): RunContext {
  const { credentials, fetch, onRequest, now, runId: _runId, trigger: _trigger, runDate: _runDate, path: _path, source: _source, ...rest } = options;
  return runContextOf({ ...rest, clock: now, planning: { credentials, fetch, onRequest } });
}

/**
 * Plans and exports one run of `definition`, as the job's plan and export stages do (an on-demand
 * run on the single path unless the options say otherwise).
 */
export async function exportDefinition(definition: ReportDefinition, options: ExportRunOptions): Promise<ExportResult> {
  const context = exportRunContext(options);
  return exportRun(await planned(definition, options, context), context);
}

/** The job's plan stage alone for `definition`: nothing fetched but the lists, nothing written. */
export function planDefinition(definition: ReportDefinition, options: ExportRunOptions): Promise<PlannedRun> {
  return planned(definition, options, exportRunContext(options));
}

function planned(definition: ReportDefinition, options: ExportRunOptions, context: RunContext): Promise<PlannedRun> {
  const runId = options.runId ?? context.ids.newRunId(context.clock());
  const draft = { definition, runId, trigger: options.trigger ?? 'on-demand', runDate: options.runDate, path: options.path ?? { via: 'single' } } as const;
  return options.source ? planWith(options.source, draft, context) : planRun(draft, context);
}

/** A planned run over a given source (planRun makes its own client; a test brings one that fails or counts). */
async function planWith(source: PlanningSource, draft: Omit<PlannedRun, 'plan' | 'client' | 'credentials' | 'sourceInfo'>, context: RunContext): Promise<PlannedRun> {
  const credentials = await context.planning.credentials.getCredentials();
  const datasets = (context.registry ?? REGISTRY).datasets;
  const plan = await planExport(draft.definition, source, { log: context.log, datasets, companyPrefix: credentials.companyPrefix });
  return { ...draft, plan, client: source, credentials, sourceInfo: describeSource(credentials) };
}

/** A client as a run makes it, with the default settings (tests that count or break its requests). */
export function testClient(credentials: Credentials, fetch?: typeof globalThis.fetch): PlanningSource {
  return createExportClient(credentials, { settings: resolveExportSettings(), log: silentLog, clock: systemClock, planning: { fetch } });
}

/** Credentials as a door reads them, here always the same. */
export function fixedCredentials(credentials: Credentials): CredentialsSource {
  return { getCredentials: () => Promise.resolve(credentials) };
}
