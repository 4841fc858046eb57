import type { TermId } from '../../core/glossary';
import type { ManifestFigures } from '../manifest/manifest-summary';
import { okrProgress } from '../summary/okr-figures';

/**
 * The figures an alert rule may draw a line on (`alerts.rules[].figure`), read from the figures the
 * run already computed and published in its manifest (manifest-summary.ts), so an alert says the
 * number the e-mail and the Summary say, under the glossary's name. A new figure is one entry here:
 * the definition schema, `reports validate`, `reports list` and docs/reports.md take the list.
 */
export interface AlertFigure {
  /** The name a rule uses: `{ "figure": "openHighRisks", "above": 25 }`. */
  readonly name: string;
  /** Its name for readers (shared/core/glossary.ts). */
  readonly term: TermId;
  /** How the value and the line are written: a whole count, or a percentage on the 0-100 scale. */
  readonly unit: 'count' | 'percent';
  /** What the figure is, for `reports validate` and the docs. */
  readonly about: string;
  /** The run's value, or null when the run has none (the dataset is not read, or not yet scored): the rule waits. */
  readonly read: (figures: ManifestFigures) => number | null;
}

export const ALERT_FIGURES = [
  { name: 'openRisks', term: 'openRisks', unit: 'count', about: 'open risks', read: (f) => f.openRisks?.open ?? null },
  { name: 'openHighRisks', term: 'severeRisks', unit: 'count', about: 'open high or critical risks', read: (f) => f.openRisks?.highOrCritical ?? null },
  { name: 'overdueRisks', term: 'overdueRisks', unit: 'count', about: 'open risks past their resolution date', read: (f) => f.openRisks?.overdue ?? null },
  {
    name: 'predictability',
    term: 'predictability',
    unit: 'percent',
    about: 'PI predictability of all boards, once their PIs are scored (before that the rule waits)',
    // Before the IP sprint business value is still being scored: a line under 80 % would be "crossed" all PI long.
    read: (f) => (f.piPredictability?.all.scored === true ? f.piPredictability.all.predictability : null),
  },
  {
    name: 'okrProgress',
    term: 'okrProgress',
    unit: 'percent',
    about: 'OKR progress, the average of the strategic themes',
    read: (f) => (f.okr ? okrProgress(Object.values(f.okr.themeProgress)) : null),
  },
  {
    name: 'featuresDoneByEstimate',
    term: 'doneByEstimate',
    unit: 'percent',
    about: 'features done by estimate over all boards',
    read: (f) => {
      const boards = Object.values(f.featureCompletion ?? {});
      const estimate = boards.reduce((n, b) => n + b.estimate, 0);
      return estimate > 0 ? (100 * boards.reduce((n, b) => n + b.estimateDone, 0)) / estimate : null;
    },
  },
] as const satisfies readonly AlertFigure[];

export type AlertFigureName = (typeof ALERT_FIGURES)[number]['name'];

export function alertFigure(name: string): AlertFigure | undefined {
  return ALERT_FIGURES.find((f) => f.name === name);
}
