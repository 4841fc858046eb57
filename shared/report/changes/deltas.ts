import type { ReaderFormat } from '../../core/format';
import type { ReportSummary, SummaryLine, SummarySection } from '../../table/table';
import type { ChangeReport } from './model';

/**
 * The Summary's headline figures with their change since the baseline run: "Open risks 42, +4 since
 * 16/11/2026", written in the run's locale (the e-mail, the chat message and the run page show these texts). A figure is matched by its section heading and label in the baseline's manifest (which
 * keeps the Summary's sections), so any number the Summary shows can carry a delta without the
 * datasets knowing about the comparison. Headline sections are those with role "headline"; a
 * Summary without roles gets deltas on its "Rows" section.
 */
export function withDeltas(summary: ReportSummary, changes: ChangeReport, format: ReaderFormat): ReportSummary {
  if (!changes.baseline || !changes.baselineFigures) return summary;
  const old = baselineNumbers(changes.baselineFigures.sections);
  if (old.size === 0) return summary;
  const since = format.date(changes.baseline.generatedAt);
  const hasRoles = summary.sections.some((s) => s.role !== undefined);
  const isHeadline = (s: SummarySection) => (hasRoles ? s.role === 'headline' : s.heading === 'Rows');
  return {
    ...summary,
    sections: summary.sections.map((section) => {
      if (!isHeadline(section)) return section;
      return {
        ...section,
        lines: section.lines.map((line): SummaryLine => {
          const before = old.get(`${section.heading}\u001f${line.label}`);
          if (typeof line.value !== 'number' || before === undefined) return line;
          const difference = line.value - before;
          const percent = line.type === 'percent';
          return { ...line, delta: deltaText(difference, since, format, percent), change: changeText(difference, format, percent), since };
        }),
      };
    }),
  };
}

/**
 * `+4 since 16/11/2026`; for a percentage, the change in percentage points: `+4.9 pp since
 * 16/11/2026`, a change under 0.1 points with the decimals that show it (`+0.04 pp`), as the
 * changes list shows both values (format.ts, percentDecimals); "unchanged" only when nothing changed.
 */
export function deltaText(difference: number, since: string, format: ReaderFormat, percent = false): string {
  const rounded = roundedChange(difference, percent);
  if (rounded === 0) return format.t('delta.unchanged', { date: since });
  return format.t('delta.since', { delta: percent ? format.percentPoints(rounded) : format.delta(rounded), date: since });
}

/** The change alone, for a column headed by its date (`delta.column`): `+4`, `+4.9 pp`, `unchanged`. */
export function changeText(difference: number, format: ReaderFormat, percent = false): string {
  const rounded = roundedChange(difference, percent);
  if (rounded === 0) return format.t('delta.none');
  return percent ? format.percentPoints(rounded) : format.delta(rounded);
}

// Beyond the last decimal a percentage is shown with, a difference is the arithmetic's, not the data's.
function roundedChange(difference: number, percent: boolean): number {
  return percent ? Number(difference.toFixed(6)) : Math.round(difference * 100) / 100;
}

function baselineNumbers(sections: readonly SummarySection[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const section of sections) {
    for (const line of section.lines) {
      if (typeof line.value === 'number') out.set(`${section.heading}\u001f${line.label}`, line.value);
    }
  }
  return out;
}
