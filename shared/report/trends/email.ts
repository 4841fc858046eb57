import type { EmailTrends, EmailTrendSeries } from '../../email/trends-section';
import type { RunFigures } from './figures';
import { percent, type Trends } from './series';
import { messagesFor, type MessageId, type Messages } from '../../core/i18n/messages';
import { okrProgress } from '../summary/okr-figures';

/** Runs the e-mail's bar charts show: enough to see a direction, small enough for a phone. */
export const EMAIL_TREND_RUNS = 8;

/** The report's headline figures, each by its one name (glossary.ts): the whole report, all boards and themes. */
const HEADLINES: readonly { label: MessageId; unit: EmailTrendSeries['unit']; value: (f: RunFigures) => number | null }[] = [
  { label: 'term.openRisks', unit: 'count', value: (f) => f.risks?.open ?? null },
  { label: 'term.severeRisks', unit: 'count', value: (f) => f.risks?.highOrCritical ?? null },
  { label: 'term.overdueRisks', unit: 'count', value: (f) => f.risks?.overdue ?? null },
  { label: 'term.predictability', unit: 'percent', value: (f) => f.predictabilityAll },
  { label: 'term.okrProgress', unit: 'percent', value: (f) => okrProgress(Object.values(f.okrThemes).map((t) => t.progress)) },
  { label: 'term.doneByEstimate', unit: 'percent', value: featuresDoneByEstimate },
];

/** The headline series over the last runs, for the e-mail, named in the reader's words; series no run has are left out. */
export function emailTrends(trends: Trends, runs = EMAIL_TREND_RUNS, messages: Messages = messagesFor('en')): EmailTrends {
  const points = trends.points.slice(-runs);
  const series = HEADLINES.map((h) => ({ label: messages.t(h.label), unit: h.unit, points: points.map((p) => ({ run: p.run, at: p.at, value: h.value(p.figures) })) })).filter(
    (s) => s.points.some((p) => p.value !== null),
  );
  return { note: trends.note, series: trends.runs <= 1 ? [] : series };
}

function featuresDoneByEstimate(f: RunFigures): number | null {
  const boards = Object.values(f.features);
  if (boards.length === 0) return null;
  return percent(boards.reduce((a, b) => a + b.estimateDone, 0), boards.reduce((a, b) => a + b.estimate, 0));
}
