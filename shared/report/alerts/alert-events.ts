import type { TermId } from '../../core/glossary';
import { isSeverityChange, type ChangeReport, type ChangeRow } from '../changes/model';
import { severityRank } from '../summary/vocabulary';

/**
 * The events an alert rule may name (`alerts.rules[].event`), read from the run's comparison with
 * the run before (docs/changes.md): each event is the rows of one kind of change. A new event is one
 * entry here, like a figure in alert-figures.ts.
 */
export interface AlertItem {
  /** Names the item across runs (`risks:SEC-7`): the item is told of once while it keeps appearing. */
  readonly key: string;
  /** For readers: `SEC-7 Payment gateway could exceed the budget: Low → Critical`. */
  readonly text: string;
}

export interface AlertEvent {
  /** The name a rule uses: `{ "event": "riskRaisedToHighest" }`. */
  readonly name: string;
  readonly term: TermId;
  /** What the event is, for `reports validate` and the docs. */
  readonly about: string;
  readonly read: (changes: Pick<ChangeReport, 'rows'>) => AlertItem[];
}

const itemKey = (row: ChangeRow) => `${row.table}:${row.key ?? row.title ?? ''}`;
const named = (row: ChangeRow) => [row.key, row.title].filter((part) => part !== null && part !== '').join(' ');

export const ALERT_EVENTS = [
  {
    name: 'riskRaisedToHighest',
    term: 'riskRaisedToHighest',
    about: 'a risk whose level rose to the most severe (critical, extreme, severe, very high)',
    read: ({ rows }) =>
      rows
        .filter((r) => r.table === 'risks' && isSeverityChange(r) && severityRank(r.to) === 0 && severityRank(r.from) > 0)
        .map((r) => ({ key: itemKey(r), text: `${named(r)}: ${r.from ?? '–'} → ${r.to ?? '–'}` })),
  },
  {
    name: 'objectiveDropped',
    term: 'objectiveDropped',
    about: 'a PI objective the run before had and this run does not',
    read: ({ rows }) =>
      rows
        .filter((r) => r.table === 'pi-objectives' && r.kind === 'removed')
        .map((r) => ({ key: itemKey(r), text: r.context ? `${named(r)} (${r.context})` : named(r) })),
  },
] as const satisfies readonly AlertEvent[];

export type AlertEventName = (typeof ALERT_EVENTS)[number]['name'];

export function alertEvent(name: string): AlertEvent | undefined {
  return ALERT_EVENTS.find((e) => e.name === name);
}
