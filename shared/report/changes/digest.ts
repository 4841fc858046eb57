import { percentDecimals, type ReaderFormat } from '../../core/format';
import { changesSection, type ChangesDigest } from '../../email/changes-section';
import type { ReportSummary } from '../../table/table';
import { inRoleOrder } from '../summary/compose';
import type { ChangeReport } from './model';
import { topChanges } from './model';
import type { ColumnType } from '../../table/table';
import { comparedInstant } from './specs';
import { columnLabel, tableSheetName } from '../sheet-names';

/** How many changes a reader's page lists (the e-mail, the chat messages, the Summary, the PDF); the rest are in the Changes sheet. */
export const EMAIL_TOP_CHANGES = 10;

/**
 * A compared value in the reader's locale: numbers grouped and with the locale's decimal mark,
 * percentages with one decimal or as many as tell the two apart (`decimals`, so a change of 0.02
 * points still shows), dates as the locale writes them; null for anything else (text stays as compared).
 */
function readerValue(value: string | number | null, type: ColumnType, format: ReaderFormat, decimals: number): string | null {
  if (value === null) return null;
  if (typeof value === 'number') {
    if (type === 'percent') return format.percent(value, decimals);
    if (type === 'integer' || type === 'number') return format.number(value);
    return null;
  }
  const instant = comparedInstant(value, type);
  if (instant === null) return null;
  return type === 'date' ? format.calendarDate(instant) : format.dateTime(instant);
}

/** A reader's view of a comparison: counts, the top changes, what the cut left out, and the date compared with (in the run's locale). */
export function changesDigest(report: ChangeReport, format: ReaderFormat, limit = EMAIL_TOP_CHANGES): ChangesDigest {
  const { top, leftOut } = topChanges(report.rows, limit);
  return {
    since: report.baseline ? format.date(report.baseline.generatedAt) : null,
    note: report.note,
    counts: report.counts,
    top: top.map((r) => {
      const t = r.typed;
      const decimals = typeof t?.from === 'number' && typeof t.to === 'number' ? percentDecimals(t.from, t.to) : 1;
      return {
        // The table and the field as the workbook names them in the report's language.
        table: tableSheetName(r.table, r.tableLabel, format.messages), kind: r.kind, key: r.key, title: r.title,
        what: r.what === r.kind ? format.t('changes.kind', { kind: r.kind }) : columnLabel(r.what, format.messages),
        from: t ? (readerValue(t.from, t.type, format, decimals) ?? r.from) : r.from,
        to: t ? (readerValue(t.to, t.type, format, decimals) ?? r.to) : r.to,
      };
    }),
    // Worded by the reader's messages (`changes.leftOut.<weight>`) where the digest is shown.
    leftOut: [...leftOut].map(([weight, count]) => ({ count, weight })),
  };
}

/**
 * The Summary with its "What changed since <date>" section (role `changes`, after "Needs attention"):
 * built once per run from the ranked digest, so the Summary sheet, the PDF, the e-mail, the chat
 * messages and the run page list the same changes in the same order.
 */
export function withWhatChanged(summary: ReportSummary, report: ChangeReport, format: ReaderFormat): ReportSummary {
  const section = changesSection(changesDigest(report, format), format);
  return { ...summary, sections: inRoleOrder([...summary.sections.filter((s) => s.role !== 'changes'), section]) };
}
