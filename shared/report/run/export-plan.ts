import { ReportPlanError } from '../../core/errors';
import { silentLog, type Log } from '../../core/logger';
import type { DatasetEntry, DatasetPlan } from '../dataset/dataset';
import type { PlanIssue } from '../dataset/plan-issue';
import type { ReportDefinition } from '../definition/definition';
import type { PlanningSource } from '../dataset/planning-source';
import { RunLists } from '../dataset/run-lists';
import { DATASETS, datasetsOf } from '../tables/registry';

/**
 * The plan of a run, made before anything is fetched or written (no lease, no file): every selector
 * of every dataset (registers, portfolio and strategic themes, boards, collections; ids, keys and
 * titles) resolved against the cheap list calls alone, each list asked once (run-lists.ts). Every
 * problem is reported at once with its place in the definition, in one ReportPlanError; when there
 * is none, the datasets are made from what the plan resolved and never list again, and the manifest
 * records the same resolved selectors as before.
 */
export interface ExportPlan {
  readonly report: string;
  /** The datasets of the definition in export order, each with its part of the plan. */
  readonly datasets: readonly { readonly name: string; readonly plan: DatasetPlan }[];
  /** What the list calls dropped as repeated entries (the manifest's summary.duplicatesDropped). */
  readonly figures: Record<string, unknown>;
}

export interface PlanOptions {
  readonly log?: Log | undefined;
  /** The tables registry's datasets (a test adds one); default DATASETS. */
  readonly datasets?: readonly DatasetEntry[] | undefined;
  /** The company prefix of the credentials: named when the legacy address refuses it. */
  readonly companyPrefix?: string | undefined;
}

export async function planExport(definition: ReportDefinition, source: PlanningSource, options: PlanOptions = {}): Promise<ExportPlan> {
  const log = options.log ?? silentLog;
  const lists = new RunLists(source, log, options.companyPrefix);
  const entries = datasetsOf(definition.datasets, options.datasets ?? DATASETS);
  // The datasets plan side by side: the lists they share are asked once (run-lists.ts).
  const datasets = await Promise.all(entries.map(async (entry) => ({ name: entry.name, plan: await entry.plan({ definition, lists, log }) })));
  const issues = distinct(datasets.flatMap((d) => d.plan.issues));
  if (issues.length > 0) {
    log.warn('the report cannot run as defined: nothing fetched or written', { report: definition.name, issues: issues.map((i) => i.path) });
    const counted = issues.length === 1 ? 'one problem' : `${issues.length} problems`;
    throw new ReportPlanError(`report "${definition.name}" cannot run as defined (${counted}); nothing was fetched or written:`, issues);
  }
  return { report: definition.name, datasets, figures: lists.figures() };
}

/**
 * Each problem once (a refused company prefix is met by both board datasets), the credentials'
 * first: with them wrong, the selectors that could not be checked are not the point.
 */
function distinct(issues: readonly PlanIssue[]): PlanIssue[] {
  const seen = new Set<string>();
  const once = issues.filter((issue) => {
    const key = `${issue.path}\n${issue.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  const credentials = (issue: PlanIssue) => (issue.path.startsWith('credentials.') ? 0 : 1);
  return once.sort((a, b) => credentials(a) - credentials(b));
}
