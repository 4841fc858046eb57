import type { ExportPlan } from '../../report/plan/export-plan';
import { planReport } from '../../report/run/export-report';
import type { RunContext } from '../run-context';
import type { ExportPorts } from './export';
import type { ResolvedJob } from './resolve';

/**
 * The plan of a job, between resolve and export (stages 1 and 2): the definition, the credentials,
 * the company prefix and every selector of every dataset, resolved with the planning API's list
 * calls alone (report/plan/export-plan.ts), before the run takes its lease or fetches any data. A
 * definition that cannot run fails here with every problem at once (ReportPlanError, not retried)
 * and nothing is written. The export stage then makes its datasets from the plan: no list is asked
 * twice.
 */
export function planRun(job: ResolvedJob, ports: Pick<ExportPorts, 'credentials' | 'fetch' | 'onRequest'>, context: RunContext): Promise<ExportPlan> {
  return planReport(job.definition, {
    credentials: ports.credentials,
    settings: context.settings,
    onRequest: ports.onRequest,
    fetch: ports.fetch,
    log: context.log,
    now: context.clock,
  });
}
