/**
 * Date parsing for the API's formats (section 2): risks use `DD-Mon-YYYY`, board items `DD Mon, YY`,
 * PI sprint dates are epoch milliseconds. Calendar dates are returned as a Date at 00:00 UTC of that
 * day (the table model's `date` convention); an unparseable value returns undefined so the caller
 * can keep the original text instead of losing it.
 */
const MONTHS: Readonly<Record<string, number>> = {
  jan: 0, feb: 1, mar: 2, apr: 3, may: 4, jun: 5, jul: 6, aug: 7, sep: 8, sept: 8, oct: 9, nov: 10, dec: 11,
};

function calendarDate(year: number, month: number, day: number): Date | undefined {
  const date = new Date(Date.UTC(year, month, day));
  // Rejects 31-Feb and similar, which Date.UTC would roll over silently.
  return date.getUTCFullYear() === year && date.getUTCMonth() === month && date.getUTCDate() === day
    ? date
    : undefined;
}

/** Two-digit years: 00-69 are 2000-2069, 70-99 are 1970-1999 (the POSIX strptime pivot). */
function expandYear(twoDigits: number): number {
  return twoDigits < 70 ? 2000 + twoDigits : 1900 + twoDigits;
}

/** Parses `DD-Mon-YYYY` (risk dates) and `DD Mon, YY` / `DD Mon, YYYY` (board items), and ISO `YYYY-MM-DD`. */
export function parseApiDate(text: string | null | undefined): Date | undefined {
  if (text === null || text === undefined) return undefined;
  const s = text.trim();
  if (s === '') return undefined;
  let m = /^(\d{1,2})[- ]([A-Za-z]{3,4})[- ,]+(\d{2}|\d{4})$/.exec(s);
  if (m) {
    const month = MONTHS[m[2]!.toLowerCase()];
    if (month === undefined) return undefined;
    const yearText = m[3]!;
    const year = yearText.length === 2 ? expandYear(Number(yearText)) : Number(yearText);
    return calendarDate(year, month, Number(m[1]));
  }
  m = /^(\d{4})-(\d{2})-(\d{2})(?:T.*)?$/.exec(s);
  if (m) return calendarDate(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  return undefined;
}

/** The calendar date, in `timeZone`, of an epoch-millisecond instant (sprint start and end). */
export function epochToCalendarDate(epochMs: number | null | undefined, timeZone: string): Date | undefined {
  if (epochMs === null || epochMs === undefined || !Number.isFinite(epochMs)) return undefined;
  const parts = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' })
    .formatToParts(new Date(epochMs));
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value);
  return calendarDate(get('year'), get('month') - 1, get('day'));
}

/** `YYYY-MM-DD` of an instant in a time zone: the `dt=` partition of a run. */
export function isoDateInZone(instant: Date, timeZone: string): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(
    instant,
  );
}

/** Whether `tz` is an IANA time zone this runtime knows (report definitions, schedules). */
export function isTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}
