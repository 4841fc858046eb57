import type { ReaderFormat } from '../core/format';
import { alertEvent } from '../report/alerts/alert-events';
import { alertFigure } from '../report/alerts/alert-figures';
import { BEYOND_LINE, type RuleReading } from '../report/alerts/read-rules';
import type { ReportSummary, SummaryLine, SummarySection } from '../table/table';
import type { BeyondNow, OwedLine } from './alert-owed';

/**
 * One message per reader per run (issue 50, item 2): what the run's alert rules say to a reader of
 * the weekly message who is also told of alerts. The lines crossed (this run's news, and what an
 * earlier run could not deliver to that reader) open the message as a banner, and each headline
 * figure beyond one of the reader's lines says so beside it ("30 — above your line of 29"); no
 * separate alert goes to that reader (alert-delivery.ts, `covered`).
 */
export interface RunNews {
  readonly news: readonly OwedLine[];
  readonly beyond: BeyondNow;
  readonly readings: readonly RuleReading[];
}

/** The banner in the reader's language: each line crossed under its figure's or event's name; a figure's with its value and line. */
export function bannerSection(lines: readonly OwedLine[], readings: readonly RuleReading[], format: ReaderFormat): SummarySection | undefined {
  if (lines.length === 0) return undefined;
  const byId = new Map(readings.map((r) => [r.id, r]));
  return {
    heading: format.t('term.linesCrossed'),
    role: 'headline',
    lines: lines.map((line) => {
      const reading = byId.get(line.ruleId);
      const event = reading?.rule.event !== undefined ? alertEvent(reading.rule.event) : undefined;
      if (event) return { label: format.t(`term.${event.term}`), value: line.text };
      const mark = reading && line.key === BEYOND_LINE ? figureMark(reading, format) : undefined;
      return mark ? { label: mark.label, value: `${mark.value} — ${mark.beyond}` } : { label: line.rule, value: line.text };
    }),
  };
}

/** A figure beyond its line, in the reader's words: its name, its value and "above your line of 29". */
function figureMark(reading: RuleReading, format: ReaderFormat): { label: string; value: string; beyond: string } | undefined {
  const figure = alertFigure(reading.rule.figure ?? '');
  if (!figure || reading.value === undefined) return undefined;
  const value = figure.unit === 'percent' ? format.percent(reading.value) : format.number(reading.value);
  return { label: format.t(`term.${figure.term}`), value, beyond: lineWords(reading, figure.unit, format) };
}

/** The summary with each headline figure beyond one of the reader's lines marked beside its value. */
export function markedSummary(summary: ReportSummary, readings: readonly RuleReading[], format: ReaderFormat): ReportSummary {
  const marks = new Map<string, string>();
  for (const reading of readings) {
    const figure = alertFigure(reading.rule.figure ?? '');
    if (!figure || !reading.items?.some((i) => i.key === BEYOND_LINE)) continue;
    marks.set(format.t(`term.${figure.term}`), lineWords(reading, figure.unit, format));
  }
  if (marks.size === 0) return summary;
  const mark = (line: SummaryLine): SummaryLine => {
    const beyond = marks.get(line.label);
    return beyond === undefined ? line : { ...line, beyond, delta: line.delta ? `${beyond} · ${line.delta}` : beyond };
  };
  return { ...summary, sections: summary.sections.map((s) => (s.role === 'headline' ? { ...s, lines: s.lines.map(mark) } : s)) };
}

/** "above your line of 29", "below your line of 80.0 %". */
function lineWords(reading: RuleReading, unit: 'count' | 'percent', format: ReaderFormat): string {
  const write = (n: number) => (unit === 'percent' ? format.percent(n) : format.number(n));
  return reading.rule.above !== undefined ? format.t('alert.aboveYourLine', { line: write(reading.rule.above) }) : format.t('alert.belowYourLine', { line: write(reading.rule.below ?? 0) });
}
