import { formatDelta, formatPercentPoints } from '../../core/format';
import type { ReportSummary, SummaryLine, SummarySection } from '../../table/table';
import type { ChangeReport } from './model';

/**
 * The Summary's headline figures with their change since the baseline run: "Open risks 42, +4 since
 * 16 Nov". A figure is matched by its section heading and label in the baseline's manifest (which
 * keeps the Summary's sections), so any number the Summary shows can carry a delta without the
 * datasets knowing about the comparison. Headline sections are those with role "headline"; a
 * Summary without roles gets deltas on its "Rows" section.
 */
export function withDeltas(summary: ReportSummary, changes: ChangeReport, timeZone: string): ReportSummary {
  if (!changes.baseline || !changes.baselineFigures) return summary;
  const old = baselineNumbers(changes.baselineFigures.sections);
  if (old.size === 0) return summary;
  const since = shortDate(changes.baseline.generatedAt, timeZone);
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
          return { ...line, delta: deltaText(line.value - before, since, line.type === 'percent') };
        }),
      };
    }),
  };
}

/** `+4 since 16 Nov`; for a percentage, the change in percentage points: `+4.9 pp since 16 Nov`. */
export function deltaText(difference: number, since: string, percent = false): string {
  const rounded = Math.round(difference * (percent ? 10 : 100)) / (percent ? 10 : 100);
  if (rounded === 0) return `unchanged since ${since}`;
  return `${percent ? formatPercentPoints(rounded) : formatDelta(rounded)} since ${since}`;
}

/** "16 Nov" in the report's zone (with the year when it is not this run's year, see the caller). */
export function shortDate(date: Date, timeZone: string): string {
  return new Intl.DateTimeFormat('en-GB', { timeZone, day: 'numeric', month: 'short' }).format(date);
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
