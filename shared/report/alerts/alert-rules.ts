import * as z from 'zod';
import { channelTargetSchema } from '../../channels/delivery-option';
import { emailAddress } from '../../email/email-address';
import { DEFINITION_LIMITS } from '../dataset/definition-limits';
import { ALERT_EVENTS, alertEvent } from './alert-events';
import { ALERT_FIGURES, alertFigure } from './alert-figures';

/**
 * `alerts` of a report definition (docs/reports.md, "Alerts"): rules on the glossary's figures
 * (a line a figure goes above or below) and on events of the comparison with the run before, and
 * where to tell when a run crosses one. Each problem is said with its path and what to write instead.
 */
const figureNames = () => ALERT_FIGURES.map((f) => f.name).join(', ');
const eventNames = () => ALERT_EVENTS.map((e) => e.name).join(', ');

/** One rule as written: a figure with its line (`above` or `below`), or an event. */
export interface AlertRule {
  readonly figure?: string | undefined;
  readonly event?: string | undefined;
  readonly above?: number | undefined;
  readonly below?: number | undefined;
  /**
   * The clear margin: once beyond `above`, the figure counts as beyond until it falls below
   * `clearBelow` (for `below`, until it rises above `clearAbove`), so a figure hovering at its line
   * (30, 29, 30, 29 against above 29) is told of once, not every other run.
   */
  readonly clearBelow?: number | undefined;
  readonly clearAbove?: number | undefined;
}

const ruleSchema = z
  .strictObject({
    figure: z.string().optional(),
    event: z.string().optional(),
    above: z.number().finite().optional(),
    below: z.number().finite().optional(),
    clearBelow: z.number().finite().optional(),
    clearAbove: z.number().finite().optional(),
  })
  .superRefine((rule, ctx) => {
    for (const problem of ruleProblems(rule)) ctx.addIssue({ code: 'custom', ...problem });
  });

/** What is wrong with a rule, each with the field it is in. */
function ruleProblems(rule: AlertRule): { path: string[]; message: string }[] {
  const line = rule.above !== undefined ? 'above' : rule.below !== undefined ? 'below' : undefined;
  if (rule.figure === undefined && rule.event === undefined) {
    return [{ path: [], message: `name a figure (${figureNames()}) with above or below, or an event (${eventNames()})` }];
  }
  if (rule.figure !== undefined && rule.event !== undefined) return [{ path: ['event'], message: 'name a figure or an event, not both: write two rules' }];
  if (rule.event !== undefined) {
    if (!alertEvent(rule.event)) return [{ path: ['event'], message: `"${rule.event}" is not an event: choose one of ${eventNames()}` }];
    const margin = rule.clearBelow !== undefined ? 'clearBelow' : rule.clearAbove !== undefined ? 'clearAbove' : undefined;
    const extra = line ?? margin;
    return extra ? [{ path: [extra], message: `an event has no line: leave ${extra} out` }] : [];
  }
  const figure = alertFigure(rule.figure!);
  if (!figure) return [{ path: ['figure'], message: `"${rule.figure}" is not a figure: choose one of ${figureNames()}` }];
  if (rule.above !== undefined && rule.below !== undefined) return [{ path: ['below'], message: 'give one line, above or below: a band is two rules' }];
  if (!line) return [{ path: [], message: `give the line of ${figure.name}: "above": n or "below": n${figure.unit === 'percent' ? ' (a percentage, 0 to 100)' : ''}` }];
  const value = rule[line]!;
  if (figure.unit === 'percent' && (value < 0 || value > 100)) return [{ path: [line], message: `${figure.name} is a percentage: give a line from 0 to 100` }];
  if (figure.unit === 'count' && value < 0) return [{ path: [line], message: `${figure.name} is a count: give a line of 0 or more` }];
  return marginProblems(rule, line);
}

/** A clear margin lies on the right side of its line: `clearBelow` under `above`, `clearAbove` over `below`. */
function marginProblems(rule: AlertRule, line: 'above' | 'below'): { path: string[]; message: string }[] {
  const wrong = line === 'above' ? 'clearAbove' : 'clearBelow';
  if (rule[wrong] !== undefined) {
    const right = line === 'above' ? 'clearBelow' : 'clearAbove';
    return [{ path: [wrong], message: `a rule with "${line}" clears on the other side: write "${right}"` }];
  }
  if (line === 'above' && rule.clearBelow !== undefined && rule.clearBelow >= rule.above!) {
    return [{ path: ['clearBelow'], message: `clearBelow is under the line: give less than ${rule.above}` }];
  }
  if (line === 'below' && rule.clearAbove !== undefined && rule.clearAbove <= rule.below!) {
    return [{ path: ['clearAbove'], message: `clearAbove is over the line: give more than ${rule.below}` }];
  }
  return [];
}

/**
 * The rule's name in the ledger and in messages: `openHighRisks-above-25`, `riskRaisedToHighest`. A
 * clear margin is not part of it: adding one to a rule keeps the rule's state.
 */
export function ruleId(rule: AlertRule): string {
  if (rule.event !== undefined) return rule.event;
  return rule.above !== undefined ? `${rule.figure}-above-${rule.above}` : `${rule.figure}-below-${rule.below}`;
}

/** The rule for people: `openHighRisks above 25`, `predictability below 80 %`, `riskRaisedToHighest`. */
export function describeRule(rule: AlertRule): string {
  if (rule.event !== undefined) return rule.event;
  const unit = alertFigure(rule.figure ?? '')?.unit === 'percent' ? ' %' : '';
  const margin = rule.clearBelow !== undefined ? `, clears below ${rule.clearBelow}${unit}` : rule.clearAbove !== undefined ? `, clears above ${rule.clearAbove}${unit}` : '';
  return `${rule.above !== undefined ? `${rule.figure} above ${rule.above}${unit}` : `${rule.figure} below ${rule.below}${unit}`}${margin}`;
}

const recipientsMessage = `list at most ${DEFINITION_LIMITS.recipients} addresses; use a distribution list`;

export const alertsSchema = z.strictObject({
  rules: z
    .array(ruleSchema)
    .min(1, `list at least one rule, e.g. { "figure": "openHighRisks", "above": 25 }`)
    .max(20, 'at most 20 rules per report')
    .refine((rules) => new Set(rules.map(ruleId)).size === rules.length, 'list each rule once'),
  /** Where to tell; default: the report's e-mail recipients (`email.to`) and chat channels (`delivery.channels`). */
  to: z
    .strictObject({
      email: z.array(emailAddress).min(1, 'list at least one address, or leave email out').max(DEFINITION_LIMITS.recipients, recipientsMessage).optional(),
      channels: z.array(channelTargetSchema).max(10, 'at most 10 channels').optional(),
    })
    .optional(),
});
export type AlertsOption = z.infer<typeof alertsSchema>;

/** What the definition-wide check reads: the alerts and where the report itself tells. */
interface AlertsContext {
  readonly alerts?: AlertsOption | undefined;
  readonly email?: { readonly to: readonly unknown[] } | undefined;
  readonly delivery?: { readonly when: string; readonly channels: readonly unknown[] } | undefined;
  readonly deliveries?: readonly unknown[] | undefined;
}

/**
 * The checks across fields: alerts need somewhere to go, and "alerts-only" delivery needs alerts
 * (otherwise the report would tell nobody anything, silently).
 */
export function alertsFit(definition: AlertsContext, ctx: z.RefinementCtx): void {
  const { alerts } = definition;
  if (definition.delivery?.when === 'alerts-only' && !alerts) {
    ctx.addIssue({ code: 'custom', path: ['delivery', 'when'], message: '"alerts-only" sends nothing but alerts, and the report names none: add alerts.rules, or choose another delivery.when' });
  }
  if (!alerts) return;
  const own = (alerts.to?.email?.length ?? 0) + (alerts.to?.channels?.length ?? 0);
  const report = (definition.email ? 1 : 0) + (definition.delivery?.channels.length ?? 0) + (definition.deliveries?.length ?? 0);
  if (own === 0 && report === 0) {
    ctx.addIssue({ code: 'custom', path: ['alerts', 'to'], message: 'name where to tell (alerts.to.email or alerts.to.channels), or give the report e-mail recipients or chat channels' });
  }
}
