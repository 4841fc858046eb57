/**
 * One way to write each kind of value for people, so the same figure reads the same everywhere:
 * percentages with one decimal, percentage-point deltas as "pp", thousands separators, dates and
 * times in the report's zone, status categories in words. docs/formats.md lists the rules.
 *
 * Two families: the free functions below write the fixed ISO form (file names, the CLI's lines for
 * operators) and the workbook's number formats; `readerFormat` writes what a person reads
 * outside the workbook (the e-mail, the chat messages, the run page, the Summary's texts) in the
 * report's `locale`, built once per run and passed down whole.
 */

import { messagesFor, type MessageId, type MessageValues, type Messages } from './i18n/messages';

/**
 * Excel number formats of the workbook's typed cells; the reader format below writes percentages the
 * same way (`50.1 %`). `date` and `datetime` are the ISO fallback of excelDateFormats.
 */
export const EXCEL_FORMATS = {
  integer: '#,##0',
  percent: '0.0 %',
  date: 'yyyy-mm-dd',
  datetime: 'yyyy-mm-dd hh:mm',
  // LibreOffice's own BOOLEAN format, as it writes it to xlsx: without it LibreOffice shows a TRUE cell of
  // a General column as 1 (a printed Risks sheet read "1" under Open, "FALSE" under Overdue). Excel shows a
  // logical value in its own words whatever the format.
  boolean: '"TRUE";"TRUE";"FALSE"',
} as const;

/** A date as a reader reads it: the same fields for the reader format's texts and the workbook's date cells. */
const DAY_FIELDS = { day: '2-digit', month: '2-digit', year: 'numeric' } as const;
const TIME_FIELDS = { hour: '2-digit', minute: '2-digit' } as const;

/** The workbook's number formats of date and date-time cells in one locale. */
export interface ExcelDateFormats {
  /** `dd.mm.yyyy` (de-DE), `mm/dd/yyyy` (en-US), `dd/mm/yyyy` (en-GB). */
  readonly date: string;
  /** `dd.mm.yyyy", "hh:mm` (de-DE), `mm/dd/yyyy", "hh:mm AM/PM` (en-US). */
  readonly datetime: string;
}

/** Characters a number format shows as themselves (Excel's list); any other literal is quoted. */
const PLAIN_LITERAL = /^[ /:.-]*$/;

/**
 * Intl's pattern of `fields` in `tag` as an Excel format code, or undefined when it has a part a
 * format code cannot say (an era, a calendar's own year). The sample's fields all differ, so each
 * part's type is Intl's own; the Gregorian calendar, because Excel's serials are Gregorian.
 */
function excelPattern(tag: string, fields: Intl.DateTimeFormatOptions): string | undefined {
  const sample = new Date(Date.UTC(2001, 1, 3, 16, 5));
  const parts = new Intl.DateTimeFormat(tag, { ...fields, timeZone: 'UTC', calendar: 'gregory' }).formatToParts(sample);
  let code = '';
  for (const part of parts) {
    switch (part.type) {
      case 'day':
        code += 'dd';
        break;
      case 'month':
        code += 'mm';
        break;
      case 'year':
        code += part.value.length === 2 ? 'yy' : 'yyyy';
        break;
      case 'hour':
        code += 'hh';
        break;
      case 'minute':
        code += 'mm';
        break;
      case 'dayPeriod':
        code += 'AM/PM';
        break;
      case 'literal': {
        // Intl's no-break spaces (`4:05 PM`) are plain spaces in a cell: every font has those.
        const text = part.value.replace(/[\u00A0\u202F]/g, ' ');
        if (text.includes('"')) return undefined;
        code += PLAIN_LITERAL.test(text) ? text : `"${text}"`;
        break;
      }
      default:
        return undefined;
    }
  }
  return code;
}

/**
 * The number formats of the workbook's date and date-time cells in `locale`: the order, separators
 * and clock (24 h or AM/PM) of the reader format's dates, from Intl; ISO (`yyyy-mm-dd`) where the
 * locale's pattern cannot be a format code. Built once per workbook: the cells share their style.
 */
export function excelDateFormats(locale: string): ExcelDateFormats {
  // A tag Intl does not format in is refused when the definition is read; here it falls back to ISO
  // rather than to the runtime's default locale.
  const tag = localeProblem(locale) === undefined ? canonicalLocale(locale) : undefined;
  const date = tag && excelPattern(tag, DAY_FIELDS);
  const datetime = tag && excelPattern(tag, { ...DAY_FIELDS, ...TIME_FIELDS });
  return date && datetime ? { date, datetime } : { date: EXCEL_FORMATS.date, datetime: EXCEL_FORMATS.datetime };
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

/** The definition's `locale` when it names none. */
export const DEFAULT_LOCALE = 'en-GB';

/**
 * Why `tag` is not a locale this runtime formats in (undefined when it is): not a BCP 47 tag
 * (`Intl.getCanonicalLocales` throws), or one Intl has no number formats for.
 */
export function localeProblem(tag: string): string | undefined {
  let canonical: string[];
  try {
    canonical = Intl.getCanonicalLocales(tag);
  } catch {
    return 'is not a BCP 47 language tag';
  }
  if (canonical.length !== 1 || Intl.NumberFormat.supportedLocalesOf(canonical).length === 0) return 'is not a locale this exporter can format numbers and dates in';
  return undefined;
}

/** The tag as Intl writes it (`de-de` → `de-DE`); a tag with a problem (see localeProblem) as given. */
export function canonicalLocale(tag: string): string {
  return localeProblem(tag) === undefined ? (Intl.getCanonicalLocales(tag)[0] ?? tag) : tag;
}

/**
 * How one run writes numbers, percentages and dates for its readers: in its locale's digits,
 * separators and date order (`Intl`), times in its zone. Rules (docs/formats.md):
 * - integers and numbers with the locale's grouping and decimal sign (`2,148` / `2.148` / `2 148`);
 * - a percentage: the locale's number with one decimal, then a space and `%` on every locale
 *   (`50.1 %`, `50,1 %`), as the workbook's number format writes it;
 * - deltas signed with `+` and `−` (U+2212), percentage points as `pp` (`+4,9 pp`);
 * - a date: the locale's numeric day, month and year (`26/11/2026`, `26.11.2026`, `11/26/2026`);
 * - a date-time: that date, the time as the locale writes it (24 h or 12 h) and the zone's short name in
 *   the locale (`26/11/2026, 07:00 CET`, `26.11.2026, 07:00 MEZ`, `11/26/2026, 07:00 AM GMT+1`).
 */
export interface ReaderFormat {
  /** The BCP 47 tag, canonical (`de-DE`). */
  readonly locale: string;
  /** The reader's words in the locale's language (shared/core/i18n): resolved with the format, so one value carries both. */
  readonly messages: Messages;
  /** `messages.t`: the message `id` in the reader's language. */
  t(id: MessageId, values?: MessageValues): string;
  /** `361.4 KiB`, `361,4 KiB`: a byte count in binary units, the number in the locale. */
  bytes(n: number): string;
  /** The IANA zone dates and times are shown in. */
  readonly timeZone: string;
  /** `2,148`: no decimals. */
  integer(n: number): string;
  /** `2,148.25`: at most two decimals, none when whole. */
  number(n: number): string;
  /** `33.5 %` from a percentage on the 0-100 scale; `decimals` more where two figures must differ (percentDecimals). */
  percent(percent: number, decimals?: number): string;
  /** `+4.9 pp`, `−1.0 pp`; a change under 0.05 points with as many decimals as show it (`+0.02 pp`), never `0.0 pp` for one. */
  percentPoints(delta: number): string;
  /** `+12`, `−3`, `0`, `+1.25`. */
  delta(delta: number): string;
  /** `26/11/2026`: the calendar day of an instant in the zone. */
  date(instant: Date): string;
  /** `26/11/2026`: a calendar date carried at 00:00 UTC (never shifted into a zone west of Greenwich). */
  calendarDate(date: Date): string;
  /** `26/11/2026, 07:00 CET`: an instant in the zone, with the zone's short name. */
  dateTime(instant: Date): string;
  /** `26/11`, `26.11.`, `11/26`: the day and month of an instant in the zone, for a chart's axis under a dated range. */
  dayMonth(instant: Date): string;
  /** `07:00`, `7:00 AM`: the time of an instant in the zone, to tell apart two runs of one day. */
  time(instant: Date): string;
  /** `06/11/2026 – 27/11/2026`, `06.–27.11.2026`: the days of two instants in the zone as the locale writes a range. */
  dateRange(from: Date, to: Date): string;
}

/** Most decimals a percentage is given to tell two figures apart (beyond that they count as equal). */
const MAX_PERCENT_DECIMALS = 6;

/**
 * Decimals two percentages need to read differently: one, as everywhere, unless both round to the
 * same text while they differ (44.04 % and 44.01 %), then as many as it takes. A reader never sees
 * "44.0 % → 44.0 %" for a change.
 */
export function percentDecimals(a: number, b: number): number {
  let decimals = 1;
  while (decimals < MAX_PERCENT_DECIMALS && a !== b && a.toFixed(decimals) === b.toFixed(decimals)) decimals++;
  return decimals;
}

/** The reader format of a run: `locale` (a valid tag, see localeProblem) and `timeZone` (IANA). */
export function readerFormat(locale: string, timeZone: string): ReaderFormat {
  const tag = canonicalLocale(locale);
  const integer = new Intl.NumberFormat(tag, { maximumFractionDigits: 0 });
  const number = new Intl.NumberFormat(tag, { maximumFractionDigits: 2 });
  const oneDecimal = new Intl.NumberFormat(tag, { minimumFractionDigits: 1, maximumFractionDigits: 1 });
  const day = DAY_FIELDS;
  const date = new Intl.DateTimeFormat(tag, { ...day, timeZone });
  const calendar = new Intl.DateTimeFormat(tag, { ...day, timeZone: 'UTC' });
  const dateTime = new Intl.DateTimeFormat(tag, { ...day, ...TIME_FIELDS, timeZoneName: 'short', timeZone });
  const dayMonth = new Intl.DateTimeFormat(tag, { day: '2-digit', month: '2-digit', timeZone });
  const time = new Intl.DateTimeFormat(tag, { ...TIME_FIELDS, timeZone });
  const decimal = (decimals: number) => new Intl.NumberFormat(tag, { minimumFractionDigits: decimals, maximumFractionDigits: decimals });
  const sign = (n: number) => (n > 0 ? '+' : n < 0 ? '−' : '');
  const messages = messagesFor(tag);
  return {
    locale: tag,
    messages,
    t: (id, values) => messages.t(id, values),
    bytes: (n) => (n < 1024 ? `${integer.format(n)} B` : n < 1024 * 1024 ? `${oneDecimal.format(n / 1024)} KiB` : `${oneDecimal.format(n / (1024 * 1024))} MiB`),
    timeZone,
    integer: (n) => integer.format(n),
    number: (n) => number.format(n),
    percent: (p, decimals = 1) => `${(decimals === 1 ? oneDecimal : decimal(decimals)).format(p)} %`,
    percentPoints: (d) => {
      const decimals = percentDecimals(Math.abs(d), 0);
      const rounded = Number(d.toFixed(decimals));
      return messages.t('unit.percentPoints', { points: `${sign(rounded)}${(decimals === 1 ? oneDecimal : decimal(decimals)).format(Math.abs(rounded))}` });
    },
    delta: (d) => `${sign(d)}${number.format(Math.abs(d))}`,
    date: (instant) => date.format(instant),
    calendarDate: (d) => calendar.format(d),
    dateTime: (instant) => dateTime.format(instant),
    dayMonth: (instant) => dayMonth.format(instant),
    time: (instant) => time.format(instant),
    dateRange: (from, to) => date.formatRange(from, to),
  };
}
