import { ReportDefinitionError, errorMessage } from '../core/errors';
import type { Log } from '../core/logger';
import type { DefinitionStore } from './definition-store';
import { wantedSchedule, type ReportScheduler } from './report-schedule';

export type SyncAction = 'created' | 'updated' | 'deleted' | 'unchanged' | 'invalid';

export interface SyncResult {
  readonly report: string;
  readonly action: SyncAction;
  /** For `invalid`: what is wrong with the stored object, each with its path. */
  readonly problems?: readonly { path: string; message: string }[];
}

export interface SyncDependencies {
  readonly store: DefinitionStore;
  readonly scheduler: ReportScheduler;
  readonly log: Log;
}

/**
 * Makes one report's schedule match what is stored now. It reads the current object rather than
 * trusting the event that named it, so events that arrive late, twice or out of order all end in
 * the stored state (the stack runs one sync at a time, so the last one to run reads the last write).
 *
 * An object that is not a valid report leaves its schedule as it was and is logged with every
 * problem: `npm run reports -- push` validates first, so only a hand-made upload gets here, and
 * removing a working schedule for a typo would silently stop a report.
 */
export async function syncReportSchedule(report: string, deps: SyncDependencies): Promise<SyncResult> {
  let wanted;
  try {
    wanted = wantedSchedule(await deps.store.read(report, { fresh: true }));
  } catch (error) {
    if (!(error instanceof ReportDefinitionError)) throw error;
    deps.log.error('stored report is invalid; its schedule is left as it was', { report, problems: error.issues, error: errorMessage(error) });
    return { report, action: 'invalid', problems: error.issues };
  }
  if (wanted === undefined) {
    const removed = await deps.scheduler.remove(report);
    if (removed) deps.log.info('schedule deleted', { report });
    return { report, action: removed ? 'deleted' : 'unchanged' };
  }
  const action = await deps.scheduler.put(wanted);
  deps.log.info(`schedule ${action}`, { report, cron: wanted.cron, timeZone: wanted.timeZone });
  return { report, action };
}

/** Syncs each named report in turn (names repeat when one upload raised several events). */
export async function syncReportSchedules(reports: readonly string[], deps: SyncDependencies): Promise<SyncResult[]> {
  const results: SyncResult[] = [];
  for (const report of new Set(reports)) results.push(await syncReportSchedule(report, deps));
  return results;
}
