import type { RunTrigger } from '../../report/manifest/manifest-changes';
import { parseReportDefinition } from '../../report/definition/definition';
import { deliveriesOf, sliceReportName } from '../../report/definition/slices';
import type { ExportJobRequest } from '../request';
import type { DefinitionCatalog } from '../../definitions/catalog';
import { configuredDefinition, resolveDefinition, type InlinePolicy } from './resolve-definition';
import { lookupReport } from '../../definitions/catalog';
import type { RunIds } from '../../report/run/context';
import type { RunDraft } from '../../report/run/run';
import type { RunPath } from '../../report/manifest/manifest';

/**
 * The resolve stage of a job, the first: which definition runs (a stored report, one given in a
 * file, one delivery of a report, or an inline one), under which run id, compared with which earlier runs, and
 * whether its messages may carry a run link. Decided once here; the later stages only read it.
 */
export interface ResolvePorts {
  /** The configured reports: the definitions store in AWS, a fixed set (a file) on the command line. */
  readonly definitions: DefinitionCatalog;
  /** Whether (and how) inline definitions may run; default: off. */
  readonly inline?: InlinePolicy | undefined;
}

/** Scheduled runs have nobody watching: their owners are told of failures. On-demand callers see the status. */
export function isScheduled(request: ExportJobRequest): boolean {
  return request.exportId === undefined && (request.source === 'schedule' || request.scheduledTime !== undefined);
}

/** The definition came with the request: it chooses neither sender nor subject, and gets no run link. */
export function isInline(request: ExportJobRequest): boolean {
  return request.definition !== undefined;
}

export function runTrigger(request: ExportJobRequest): RunTrigger {
  return isScheduled(request) ? 'scheduled' : 'on-demand';
}

/** A run id that is the same for every attempt of one scheduled run or one API export. */
export function jobRunId(request: ExportJobRequest, at: Date, ids: RunIds): string {
  return sharedRunId(request) ?? ids.newRunId(at);
}

/** The run id the request fixes for all its attempts, or undefined when each attempt makes its own. */
export function sharedRunId(request: ExportJobRequest): string | undefined {
  if (request.runId) return request.runId;
  if (request.exportId) return request.exportId;
  const scheduled = scheduledDate(request);
  return scheduled && `s-${scheduled.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}Z$/, 'Z')}`;
}

/** The report's name before its definition is read, for the failure of a job that cannot be resolved. */
export function requestedName(request: ExportJobRequest): string {
  const definition = request.definition;
  if (request.report !== undefined) return request.report;
  if (definition && typeof definition === 'object' && 'name' in definition && typeof definition.name === 'string') return definition.name;
  return '(unnamed)';
}

/** The resolve stage: the run the request asks for, as a draft for the plan stage (report/run/run.ts). */
export async function resolveJob(request: ExportJobRequest, runId: string, ports: ResolvePorts): Promise<RunDraft> {
  const definition = resolveDefinition(request, await configuredDefinition(request, ports.definitions), ports.inline);
  return { definition, runId, trigger: runTrigger(request), runDate: scheduledDate(request), path: runPath(request) };
}

/** Which path writes the run: a step of the fan-out says so and why it was handed over. */
function runPath(request: ExportJobRequest): RunPath {
  if (request.via !== 'fan-out') return { via: 'single' };
  return { via: 'fan-out', ...(request.routeReason !== undefined && { reason: request.routeReason }) };
}

/** One delivery of a report with deliveries, as a report of its own (report/definition/slices.ts). */
export interface JobSlice {
  readonly name: string;
  readonly request: ExportJobRequest;
  readonly definitions: DefinitionCatalog;
}

/**
 * A scheduled (or manual) run of a configured report with deliveries runs its slices, one after
 * another, each an ordinary run named `<report>--<delivery>` with its own folder, changes, message
 * and failure notices. On-demand exports (an export id, overrides or an inline definition) export
 * the report as a whole: undefined.
 */
export async function planSlices(request: ExportJobRequest, ports: ResolvePorts): Promise<JobSlice[] | undefined> {
  if (request.report === undefined || request.definition !== undefined || request.exportId !== undefined || request.overrides !== undefined) return undefined;
  let base: unknown;
  try {
    base = await ports.definitions.get(request.report);
    if (deliveriesOf(base).length === 0) return undefined;
    parseReportDefinition(base, `report "${request.report}"`);
  } catch {
    // The single run reads it again and reports the problem as every run does.
    return undefined;
  }
  const report = request.report;
  return deliveriesOf(base).map((delivery) => {
    const name = sliceReportName(report, String(delivery.name));
    // The slice's name is looked up again among the stored reports: a report stored under it would share its folder.
    const definitions: DefinitionCatalog = { get: (n) => (n === name ? lookupReport(ports.definitions, n) : Promise.resolve(undefined)) };
    return { name, request: { ...request, report: name }, definitions };
  });
}

function scheduledDate(request: ExportJobRequest): Date | undefined {
  if (!request.scheduledTime) return undefined;
  const at = new Date(request.scheduledTime);
  return Number.isNaN(at.getTime()) ? undefined : at;
}

