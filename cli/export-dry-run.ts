import type { RequestEvent } from '../shared/planning-api/transport/requester';
import type { ExportJobRequest } from '../shared/job/request';
import { planJob, type JobContext } from '../shared/job/run-job';
import type { PlannedRun } from '../shared/report/run/run';
import { plannedWrites } from '../shared/report/run/planned-writes';
import { describeCandidate } from '../shared/report/dataset/selector-titles';
import type { Storage } from '../shared/storage/storage';

/** Where the run id goes in the names of a run that will choose its own. */
const RUN_ID_PLACEHOLDER = '<run id>';

/**
 * `npm run export -- --dry-run`: the job's resolve and plan stages alone (run-job.ts, planJob), then
 * what the run would fetch and write. Only the list calls are made; nothing is written (no lease, no
 * ledger entry, no file) and nobody is told. A plan that fails throws its ReportPlanError, listing
 * every problem.
 */
export async function printDryRun(
  request: ExportJobRequest,
  context: JobContext,
  out: NodeJS.WritableStream,
  storage: Storage,
): Promise<void> {
  const requests: RequestEvent[] = [];
  const planned = await planJob(request, { ...context, planning: { ...context.planning, onRequest: (event) => requests.push(event) } });
  const runDate = context.clock();
  for (const run of planned) {
    out.write(describePlan(run, requests.length, storage, { runId: request.runId ?? RUN_ID_PLACEHOLDER, runDate }));
  }
}

interface Totals {
  requests: number;
  exact: boolean;
}

/** What one run would fetch and write, for people. */
function describePlan(planned: PlannedRun, listRequests: number, storage: Storage, run: { runId: string; runDate: Date }): string {
  const { plan } = planned;
  const job = planned;
  const totals: Totals = { requests: 0, exact: true };
  const fetches = plan.datasets.flatMap(({ name, plan: dataset }) => {
    totals.requests += dataset.estimate.requests;
    totals.exact &&= dataset.estimate.exact;
    const reads = dataset.reads.flatMap((read) => [
      `  ${name.padEnd(14)}${read.records.length} ${read.noun}${read.records.length === 1 ? '' : 's'}`,
      ...read.records.map((record) => `                  ${describeCandidate(record)}`),
    ]);
    const { requests, exact, how } = dataset.estimate;
    return [...reads, `                ${exact ? '' : 'at least '}${requests} request${requests === 1 ? '' : 's'}: ${how}`];
  });
  const writes = plannedWrites(job.definition, run);
  const inFolder = (key: string) => (key.startsWith(`${writes.runFolder}/`) ? key.slice(writes.runFolder.length + 1) : key);
  const lines = [
    `dry run of "${job.definition.name}": the plan holds; nothing was fetched but the lists, nothing written`,
    '',
    'would fetch',
    ...fetches,
    `  ${'lists'.padEnd(14)}${listRequests} request${listRequests === 1 ? '' : 's'}: the lists the plan read just now (registers, themes, boards, collections); a run reads them once, before its data`,
    `  ${'in all'.padEnd(14)}${totals.exact ? '' : 'at least '}${listRequests + totals.requests} requests`,
    '',
    `would write to ${storage.describe()}`,
    `  run folder  ${writes.runFolder}/${run.runId === RUN_ID_PLACEHOLDER ? ' (the run chooses its id when it starts; --run-id fixes it)' : ''}`,
    ...writes.formats.map(({ format, keys }) => `  ${format.padEnd(10)}  ${keys.map(inFolder).join('\n              ')}`),
    `  ${'with'.padEnd(10)}  ${writes.always.map(inFolder).join('\n              ')}`,
    '',
  ];
  return `${lines.join('\n')}\n`;
}
