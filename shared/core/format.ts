/**
 * One way to write each kind of value for people, used by every surface (Summary, data sheets,
 * Changes, CSV for people, e-mail, run page) so the same figure reads the same everywhere:
 * percentages with one decimal, percentage-point deltas as "pp", thousands separators, dates and
 * times in the report's zone, status categories in words. docs/formats.md lists the rules.
 */

const INTEGER = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
const NUMBER = new Intl.NumberFormat('en-US', { maximumFractionDigits: 2 });
const ONE_DECIMAL = new Intl.NumberFormat('en-US', { minimumFractionDigits: 1, maximumFractionDigits: 1 });

/** Excel number formats that write the same text as the functions below (percent cells hold fractions). */
export const EXCEL_FORMATS = {
  integer: '#,##0',
  percent: '0.0 %',
  date: 'yyyy-mm-dd',
  datetime: 'yyyy-mm-dd hh:mm',
} as const;

/** `2,148` */
export function formatInteger(n: number): string {
  return INTEGER.format(n);
}

/** `2,148.25`: at most two decimals, none when whole. */
export function formatNumber(n: number): string {
  return NUMBER.format(n);
}

/** `33.5 %` from a percentage on the 0-100 scale (values over 100 stay as they are: `104.2 %`). */
export function formatPercent(percent: number): string {
  return `${ONE_DECIMAL.format(percent)} %`;
}

/** `+4.9 pp`, `−1.0 pp`, `0.0 pp`: a change of a percentage, in percentage points. */
export function formatPercentPoints(delta: number): string {
  const rounded = Math.round(delta * 10) / 10;
  const sign = rounded > 0 ? '+' : rounded < 0 ? '−' : '';
  return `${sign}${ONE_DECIMAL.format(Math.abs(rounded))} pp`;
}

/** `+12`, `−3`, `0`: a change of a count. */
export function formatDelta(delta: number): string {
  const sign = delta > 0 ? '+' : delta < 0 ? '−' : '';
  return `${sign}${NUMBER.format(Math.abs(delta))}`;
}

function zoneParts(instant: Date, timeZone: string, withTime: boolean): Record<string, string> {
  const format = new Intl.DateTimeFormat('en-US', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    ...(withTime && { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' as const }),
  });
  return Object.fromEntries(format.formatToParts(instant).map((p) => [p.type, p.value]));
}

/** `2026-11-23`: the calendar day of an instant in the report's zone. */
export function formatDateInZone(instant: Date, timeZone: string): string {
  const p = zoneParts(instant, timeZone, false);
  return `${p.year}-${p.month}-${p.day}`;
}

/** `2026-11-23`: a calendar date carried at 00:00 UTC (never shifted into a zone west of Greenwich). */
export function formatCalendarDate(date: Date): string {
  return date.toISOString().slice(0, 10);
}

/** `2026-11-23 07:00 CET`: an instant in the report's zone, with the zone's short name. */
export function formatDateTime(instant: Date, timeZone: string): string {
  const p = zoneParts(instant, timeZone, true);
  return `${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute} ${zoneName(instant, timeZone)}`;
}

function zoneName(instant: Date, timeZone: string): string {
  const part = new Intl.DateTimeFormat('en-GB', { timeZone, timeZoneName: 'short' })
    .formatToParts(instant)
    .find((p) => p.type === 'timeZoneName');
  return part?.value ?? timeZone;
}

const CATEGORY_WORDS: Readonly<Record<string, string>> = {
  todo: 'To do',
  inprogress: 'In progress',
  done: 'Done',
};

/** `InProgress` → `In progress`, `ToDo` → `To do`; other words split at capitals, first letter kept. */
export function statusCategoryText(category: string): string {
  const known = CATEGORY_WORDS[category.replace(/[\s_-]/g, '').toLowerCase()];
  if (known) return known;
  const words = category.replace(/([a-z])([A-Z])/g, '$1 $2').replace(/_/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1).toLowerCase();
}
