import type { EmailTrends, EmailTrendSeries } from '../../email/trends-section';
import type { RunFigures } from './figures';
import { percent, type Trends } from './series';

/** Runs the e-mail's bar charts show: enough to see a direction, small enough for a phone. */
export const EMAIL_TREND_RUNS = 8;

const HEADLINES: readonly { label: string; unit: EmailTrendSeries['unit']; value: (f: RunFigures) => number | null }[] = [
  { label: 'Open risks', unit: 'count', value: (f) => f.risks?.open ?? null },
  { label: 'Open high or critical risks', unit: 'count', value: (f) => f.risks?.highOrCritical ?? null },
  { label: 'Overdue risks', unit: 'count', value: (f) => f.risks?.overdue ?? null },
  { label: 'Predictability, all PI boards', unit: 'percent', value: (f) => f.predictabilityAll },
  { label: 'OKR progress, average of the strategic themes', unit: 'percent', value: (f) => average(Object.values(f.okrThemes).map((t) => t.progress)) },
  { label: 'Features done by estimate, all boards', unit: 'percent', value: featuresDoneByEstimate },
];

/** The headline series over the last runs, for the e-mail; series no run has are left out. */
export function emailTrends(trends: Trends, runs = EMAIL_TREND_RUNS): EmailTrends {
  const points = trends.points.slice(-runs);
  const series = HEADLINES.map((h) => ({ label: h.label, unit: h.unit, points: points.map((p) => ({ run: p.run, value: h.value(p.figures) })) })).filter(
    (s) => s.points.some((p) => p.value !== null),
  );
  return { note: trends.note, series: trends.runs <= 1 ? [] : series };
}

function average(values: readonly (number | null)[]): number | null {
  const known = values.filter((v): v is number => v !== null);
  return known.length === 0 ? null : known.reduce((a, b) => a + b, 0) / known.length;
}

function featuresDoneByEstimate(f: RunFigures): number | null {
  const boards = Object.values(f.features);
  if (boards.length === 0) return null;
  return percent(boards.reduce((a, b) => a + b.estimateDone, 0), boards.reduce((a, b) => a + b.estimate, 0));
}
