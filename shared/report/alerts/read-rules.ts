import { term, type TermId } from '../../core/glossary';
import type { MessageId } from '../../core/i18n/messages';
import type { ReaderFormat } from '../../core/format';
import type { ChangeReport } from '../changes/model';
import type { ManifestFigures } from '../manifest/manifest-summary';
import { alertEvent, type AlertItem } from './alert-events';
import { alertFigure } from './alert-figures';
import { ruleId, type AlertRule } from './alert-rules';

/**
 * Each rule read against one run: what lies beyond its line. A figure's rule finds one item (`line`)
 * while the figure is beyond it and none while it is on the right side; an event's rule finds the
 * run's items of that event. Pure: the crossing state (crossing-state.ts) decides what is news.
 */
export interface RuleReading {
  /** The rule's name in the ledger (`openHighRisks-above-25`). */
  readonly id: string;
  readonly rule: AlertRule;
  /** The glossary's name of its figure or event. */
  readonly label: string;
  /** What lies beyond the line now; undefined: the run has no value for the figure (its dataset is not read, its PI not scored). */
  readonly items: readonly AlertItem[] | undefined;
  /**
   * Back on the right side of the line but not past the rule's clear margin (29 against above 29,
   * clearBelow 27): what stays beyond the line if the run before was beyond it (crossing-state.ts).
   */
  readonly hold?: readonly AlertItem[];
  /** A figure's value in this run (a figure's rule with a value only). */
  readonly value?: number;
}

/** The figures and comparison a run published: its manifest's `summary` and its ChangeReport. */
export interface RunFigures {
  readonly figures: ManifestFigures;
  readonly changes: Pick<ChangeReport, 'rows'>;
}

/** The key of a figure's one item: the figure is beyond its line. */
export const BEYOND_LINE = 'line';

/**
 * The rules read against `run`, in the words of `format`'s language: the figures' and events' names
 * from the catalogue (`term.<id>`), a figure's line as its sentence ("30, above 29", "30, über 29").
 */
export function readRules(rules: readonly AlertRule[], run: RunFigures, format: ReaderFormat): RuleReading[] {
  const named = (id: TermId) => (format.messages.has(`term.${id}`) ? format.t(`term.${id}` as MessageId) : term(id));
  return rules.map((rule) => {
    const id = ruleId(rule);
    const event = rule.event === undefined ? undefined : alertEvent(rule.event);
    if (event) return { id, rule, label: named(event.term), items: event.read(run.changes) };
    const figure = alertFigure(rule.figure ?? '');
    // The schema refuses such a rule; a stored one it did not see waits rather than fails the run.
    if (!figure) return { id, rule, label: rule.figure ?? id, items: undefined };
    const value = figure.read(run.figures);
    const label = named(figure.term);
    if (value === null) return { id, rule, label, items: undefined };
    const write = (n: number) => (figure.unit === 'percent' ? format.percent(n) : format.number(n));
    const above = rule.above !== undefined;
    const line = write(above ? rule.above : (rule.below ?? 0));
    const beyond = above ? value > rule.above : rule.below !== undefined && value < rule.below;
    if (beyond) return { id, rule, label, value, items: [{ key: BEYOND_LINE, text: format.t(above ? 'alert.valueAbove' : 'alert.valueBelow', { value: write(value), line }) }] };
    const held = rule.clearBelow !== undefined ? value >= rule.clearBelow : rule.clearAbove !== undefined && value <= rule.clearAbove;
    if (!held) return { id, rule, label, value, items: [] };
    const clear = write((rule.clearBelow ?? rule.clearAbove)!);
    return { id, rule, label, value, items: [], hold: [{ key: BEYOND_LINE, text: format.t(above ? 'alert.heldAbove' : 'alert.heldBelow', { value: write(value), line, clear }) }] };
  });
}
