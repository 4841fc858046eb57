import type { ReaderFormat } from '../../core/format';
import type { ChangesDigest } from '../../email/changes-section';
import type { ChangeReport } from './model';
import { topChanges } from './model';
import type { ColumnType } from '../../table/table';

/** How many changes the e-mail lists; the rest are in the Changes sheet. */
export const EMAIL_TOP_CHANGES = 10;

/**
 * A compared value in the reader's locale: numbers grouped and with the locale's decimal mark,
 * percentages with their two decimals (a change of 0.02 points still shows), dates as the locale
 * writes them; null for anything else (text stays as compared).
 */
function readerValue(value: string | number | null, type: ColumnType, format: ReaderFormat): string | null {
  if (value === null) return null;
  if (typeof value === 'number') {
    if (type === 'percent') return `${format.number(value)} %`;
    if (type === 'integer' || type === 'number') return format.number(value);
    return null;
  }
  const instant = type === 'date' && /^\d{4}-\d{2}-\d{2}$/.test(value) ? new Date(`${value}T00:00:00Z`) : type === 'datetime' ? new Date(value) : null;
  if (instant === null || Number.isNaN(instant.getTime())) return null;
  return type === 'date' ? format.calendarDate(instant) : format.dateTime(instant);
}

/** The e-mail's view of a comparison: counts, the top changes, and the date compared with (in the run's locale). */
export function changesDigest(report: ChangeReport, format: ReaderFormat, limit = EMAIL_TOP_CHANGES): ChangesDigest {
  const top = topChanges(report.rows, limit);
  const listed = report.rows.filter((r) => r.kind !== 'note').length;
  return {
    since: report.baseline ? format.date(report.baseline.generatedAt) : null,
    note: report.note,
    counts: report.counts,
    top: top.map((r) => ({
      table: r.tableLabel, kind: r.kind, key: r.key, title: r.title, what: r.what,
      from: r.typed ? readerValue(r.typed.from, r.typed.type, format) ?? r.from : r.from,
      to: r.typed ? readerValue(r.typed.to, r.typed.type, format) ?? r.to : r.to,
    })),
    more: Math.max(0, listed - top.length),
  };
}
