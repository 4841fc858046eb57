import { CronExpressionParser } from 'cron-parser';
import type { ReportSchedule } from './stored-definition';

/**
 * When a Scheduler cron fires next, evaluated in its time zone as Scheduler does. cron-parser is a
 * five-field Unix cron; Scheduler's differs in three ways that are translated here: a sixth field
 * (year), `?` for "no specific value", and days of the week numbered 1 (Sunday) to 7 (Saturday)
 * instead of 0 to 6. Undefined when the expression uses something cron-parser cannot evaluate
 * (`W`, nearest weekday) or never fires again; the list then shows "—" rather than a wrong date.
 */
export function nextRun(schedule: ReportSchedule, after: Date): Date | undefined {
  const fields = schedule.cron.trim().slice(5, -1).trim().split(/\s+/);
  if (fields.length !== 6) return undefined;
  const [minute, hour, dayOfMonth, month, dayOfWeek, year] = fields as [string, string, string, string, string, string];
  const unix = [minute, hour, unixField(dayOfMonth), month, unixDayOfWeek(dayOfWeek)].join(' ');
  const years = yearFilter(year);
  if (years === undefined) return undefined;
  try {
    const dates = CronExpressionParser.parse(unix, { currentDate: after, tz: schedule.timeZone });
    // A year field can skip occurrences; ten years of weekly runs is plenty to find the next one.
    for (let i = 0; i < 600; i++) {
      const next = dates.next().toDate();
      if (years(next.getUTCFullYear())) return next;
    }
  } catch {
    return undefined;
  }
  return undefined;
}

function unixField(field: string): string {
  return field === '?' ? '*' : field;
}

/** `MON`, `2-6`, `3#2`, `6L`: numbers shift from 1–7 (Sunday first) to 0–6. */
function unixDayOfWeek(field: string): string {
  if (field === '?') return '*';
  return field.replace(/(^|[,\-/])([1-7])(?=$|[,\-#L/])/g, (_m, before: string, day: string) =>
    before === '/' ? `${before}${day}` : `${before}${Number(day) - 1}`,
  );
}

/** A test for the year field (`*`, `2027`, `2026-2028`, `2026,2028`), undefined when unsupported. */
function yearFilter(field: string): ((year: number) => boolean) | undefined {
  if (field === '*') return () => true;
  const parts = field.split(',').map((part) => /^(\d{4})(?:-(\d{4}))?$/.exec(part));
  if (parts.some((p) => p === null)) return undefined;
  const ranges = parts.map((p) => [Number(p![1]), Number(p![2] ?? p![1])] as const);
  return (year) => ranges.some(([from, to]) => year >= from && year <= to);
}
