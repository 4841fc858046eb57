import type { ReportSchedule, StoredDefinition } from './stored-definition';

/**
 * The schedules of stored reports, one per report in the stack's schedule group. The logic here
 * decides what a report's schedule should be; an adapter (EventBridge Scheduler) knows where it
 * points (the export function, the role Scheduler assumes, the dead-letter queue).
 */

/** What a report's schedule is made of, whatever runs it. */
export interface ScheduleSpec {
  /** The schedule's name: the report's (a slug of at most 64 characters fits Scheduler's names). */
  readonly name: string;
  readonly cron: string;
  readonly timeZone: string;
  /** Scheduler's flexible time window, in minutes; absent: the run starts at its minute. */
  readonly windowMinutes?: number;
  readonly description: string;
  /** The export job request, as JSON, with Scheduler's context placeholders. */
  readonly input: string;
}

/** A schedule as the scheduler holds it. */
export interface ScheduledReport {
  readonly name: string;
  readonly cron: string;
  readonly timeZone: string;
  readonly enabled: boolean;
}

/** The schedules port. */
export interface ReportScheduler {
  /** Creates the schedule, or replaces the one of that name. */
  put(spec: ScheduleSpec): Promise<'created' | 'updated'>;
  /** Removes it; false when there was none. */
  remove(name: string): Promise<boolean>;
  /** The schedule of that name, or undefined. */
  get(name: string): Promise<ScheduledReport | undefined>;
}

/**
 * Scheduler fills these in per invocation: retries of one run keep the same scheduled time, so the
 * export derives the same run id and a retry is idempotent.
 */
export const SCHEDULED_TIME = '<aws.scheduler.scheduled-time>';
export const EXECUTION_ID = '<aws.scheduler.execution-id>';

/** The payload a scheduled invocation hands the export function (its ExportJobRequest). */
export function schedulePayload(report: string): Record<string, string> {
  return { report, source: 'schedule', scheduledTime: SCHEDULED_TIME, executionId: EXECUTION_ID };
}

export function scheduleSpecOf(report: string, schedule: ReportSchedule): ScheduleSpec {
  return {
    name: report,
    cron: schedule.cron.trim(),
    timeZone: schedule.timeZone,
    ...(schedule.windowMinutes !== undefined && { windowMinutes: schedule.windowMinutes }),
    description: `planning-report-exporter: export "${report}" ${schedule.cron.trim()} ${schedule.timeZone}${
      schedule.windowMinutes === undefined ? '' : ` within ${schedule.windowMinutes} min`
    }`,
    input: JSON.stringify(schedulePayload(report)),
  };
}

/** What a stored report says its schedule should be (undefined: on demand only). */
export function wantedSchedule(stored: StoredDefinition | undefined): ScheduleSpec | undefined {
  return stored?.schedule ? scheduleSpecOf(stored.parsed.name, stored.schedule) : undefined;
}
