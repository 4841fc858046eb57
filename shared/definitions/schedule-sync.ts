import { ReportDefinitionError, ScheduleError, errorMessage } from '../core/errors';
import type { Log } from '../core/logger';
import type { DefinitionStore } from './definition-store';
import { wantedSchedule, type ReportScheduler, type ScheduleSpec } from './report-schedule';

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

/** What the stored object asks of the schedule right now. */
type Wanted = { readonly spec: ScheduleSpec | undefined } | { readonly invalid: ReportDefinitionError };

/** Rounds of write-then-read-again before a sync gives up (a retry of the event starts over). */
const MAX_ROUNDS = 5;

/**
 * Makes one report's schedule match what is stored now. It reads the current object rather than
 * trusting the event that named it, so events that arrive late, twice or out of order all end in
 * the stored state. Syncs may run at once (the function has no reserved concurrency: a new account
 * has none to give), so after writing the schedule it reads the object again and writes again until
 * the two agree: the last schedule any sync writes is then the one the stored object asks for.
 *
 * An object that is not a valid report leaves its schedule as it was and is logged with every
 * problem: `npm run reports -- push` validates first, so only a hand-made upload gets here, and
 * removing a working schedule for a typo would silently stop a report.
 */
export async function syncReportSchedule(report: string, deps: SyncDependencies): Promise<SyncResult> {
  let wanted = await readWanted(report, deps);
  for (let round = 0; round < MAX_ROUNDS; round += 1) {
    if ('invalid' in wanted) {
      deps.log.error('stored report is invalid; its schedule is left as it was', { report, problems: wanted.invalid.issues, error: errorMessage(wanted.invalid) });
      return { report, action: 'invalid', problems: wanted.invalid.issues };
    }
    const action = await apply(report, wanted.spec, deps);
    const now = await readWanted(report, deps);
    if (!('invalid' in now) && sameSchedule(now.spec, wanted.spec)) return { report, action };
    wanted = now;
  }
  throw new ScheduleError(`the stored report "${report}" kept changing while its schedule was synced (${MAX_ROUNDS} rounds); the event's retry syncs it again`, {
    retryable: true,
  });
}

async function readWanted(report: string, deps: SyncDependencies): Promise<Wanted> {
  try {
    return { spec: wantedSchedule(await deps.store.read(report, { fresh: true })) };
  } catch (error) {
    if (error instanceof ReportDefinitionError) return { invalid: error };
    throw error;
  }
}

async function apply(report: string, spec: ScheduleSpec | undefined, deps: SyncDependencies): Promise<SyncAction> {
  if (spec === undefined) {
    const removed = await deps.scheduler.remove(report);
    if (removed) deps.log.info('schedule deleted', { report });
    return removed ? 'deleted' : 'unchanged';
  }
  const action = await deps.scheduler.put(spec);
  deps.log.info(`schedule ${action}`, { report, cron: spec.cron, timeZone: spec.timeZone });
  return action;
}

function sameSchedule(a: ScheduleSpec | undefined, b: ScheduleSpec | undefined): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** Syncs each named report in turn (names repeat when one upload raised several events). */
export async function syncReportSchedules(reports: readonly string[], deps: SyncDependencies): Promise<SyncResult[]> {
  const results: SyncResult[] = [];
  for (const report of new Set(reports)) results.push(await syncReportSchedule(report, deps));
  return results;
}
