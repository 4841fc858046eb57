import type { ReaderFormat } from '../../core/format';
import type { ChangesDigest } from '../../email/changes-section';
import type { ChangeReport } from './model';
import { topChanges } from './model';

/** How many changes the e-mail lists; the rest are in the Changes sheet. */
export const EMAIL_TOP_CHANGES = 10;

/** The e-mail's view of a comparison: counts, the top changes, and the date compared with (in the run's locale). */
export function changesDigest(report: ChangeReport, format: ReaderFormat, limit = EMAIL_TOP_CHANGES): ChangesDigest {
  const top = topChanges(report.rows, limit);
  const listed = report.rows.filter((r) => r.kind !== 'note').length;
  return {
    since: report.baseline ? format.date(report.baseline.generatedAt) : null,
    note: report.note,
    counts: report.counts,
    top: top.map((r) => ({ table: r.tableLabel, kind: r.kind, key: r.key, title: r.title, what: r.what, from: r.from, to: r.to })),
    more: Math.max(0, listed - top.length),
  };
}
