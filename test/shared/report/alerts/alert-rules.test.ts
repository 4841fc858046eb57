import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { parseReportDefinition } from '../../../../shared/report/definition/definition';
import { describeRule, ruleId } from '../../../../shared/report/alerts/alert-rules';
import { ALERT_EVENTS } from '../../../../shared/report/alerts/alert-events';
import { ALERT_FIGURES } from '../../../../shared/report/alerts/alert-figures';
import { definitionIssues } from '../../../support/definition-issues';

const issuesOf = (input: unknown) => definitionIssues(() => parseReportDefinition(input));

const report = (alerts: unknown, more: Record<string, unknown> = {}) => ({
  name: 'train-a',
  datasets: { risks: {} },
  email: { to: ['rte@example.com'] },
  alerts,
  ...more,
});

describe('alerts in a report definition', () => {
  it('accepts rules on figures and events, sent to the report\'s own recipients unless it says where', () => {
    const parsed = parseReportDefinition(
      report({ rules: [{ figure: 'openHighRisks', above: 25 }, { figure: 'predictability', below: 80 }, { event: 'riskRaisedToHighest' }] }),
    );
    expect(parsed.alerts?.rules.map(ruleId)).toEqual(['openHighRisks-above-25', 'predictability-below-80', 'riskRaisedToHighest']);
    expect(parsed.alerts?.rules.map(describeRule)).toEqual(['openHighRisks above 25', 'predictability below 80 %', 'riskRaisedToHighest']);
    const own = parseReportDefinition(
      report(
        { rules: [{ event: 'objectiveDropped' }], to: { email: ['pmo@example.com'], channels: [{ type: 'slack', webhook: { secretId: 'hooks', key: 'pmo' } }] } },
        { delivery: { when: 'alerts-only' } },
      ),
    );
    expect(own.alerts?.to?.email).toEqual(['pmo@example.com']);
    expect(own.delivery?.when).toBe('alerts-only');
  });

  it('says what is wrong with each rule, with its path and what to write instead', () => {
    expect(
      issuesOf(
        report({
          rules: [
            { figure: 'openHighRisk', above: 25 },
            { figure: 'predictability' },
            { figure: 'predictability', above: 100, below: 80 },
            { figure: 'predictability', below: 800 },
            { figure: 'openRisks', above: -1 },
            { event: 'riskRaisedToHighest', above: 1 },
            { event: 'riskRaised' },
            {},
            { figure: 'openRisks', event: 'objectiveDropped', above: 1 },
            { figure: 'openRisks', abov: 3 },
          ],
        }),
      ),
    ).toEqual([
      { path: 'alerts.rules.0.figure', message: expect.stringMatching(/^"openHighRisk" is not a figure: choose one of openRisks, openHighRisks, overdueRisks, predictability, /) as string },
      { path: 'alerts.rules.1', message: 'give the line of predictability: "above": n or "below": n (a percentage, 0 to 100)' },
      { path: 'alerts.rules.2.below', message: 'give one line, above or below: a band is two rules' },
      { path: 'alerts.rules.3.below', message: 'predictability is a percentage: give a line from 0 to 100' },
      { path: 'alerts.rules.4.above', message: 'openRisks is a count: give a line of 0 or more' },
      { path: 'alerts.rules.5.above', message: 'an event has no line: leave above out' },
      { path: 'alerts.rules.6.event', message: '"riskRaised" is not an event: choose one of riskRaisedToHighest, objectiveDropped' },
      { path: 'alerts.rules.7', message: expect.stringMatching(/^name a figure \(openRisks, .*\) with above or below, or an event \(riskRaisedToHighest, objectiveDropped\)$/) as string },
      { path: 'alerts.rules.8.event', message: 'name a figure or an event, not both: write two rules' },
      { path: 'alerts.rules.9', message: 'unknown field "abov" (did you mean "above"?): check the spelling; the fields here are figure, event, above, below, clearBelow and clearAbove' },
      { path: 'alerts.rules.9', message: 'give the line of openRisks: "above": n or "below": n' },
    ]);
  });

  it('takes a clear margin on the right side of its line, and keeps the rule\'s name (and so its state) without it', () => {
    const parsed = parseReportDefinition(
      report({ rules: [{ figure: 'openHighRisks', above: 29, clearBelow: 27 }, { figure: 'predictability', below: 80, clearAbove: 85 }] }),
    );
    expect(parsed.alerts?.rules.map(ruleId)).toEqual(['openHighRisks-above-29', 'predictability-below-80']);
    expect(parsed.alerts?.rules.map(describeRule)).toEqual(['openHighRisks above 29, clears below 27', 'predictability below 80 %, clears above 85 %']);
    expect(
      issuesOf(
        report({
          rules: [
            { figure: 'openHighRisks', above: 29, clearBelow: 29 },
            { figure: 'predictability', below: 80, clearAbove: 70 },
            { figure: 'openRisks', above: 29, clearAbove: 31 },
            { event: 'objectiveDropped', clearBelow: 1 },
          ],
        }),
      ),
    ).toEqual([
      { path: 'alerts.rules.0.clearBelow', message: 'clearBelow is under the line: give less than 29' },
      { path: 'alerts.rules.1.clearAbove', message: 'clearAbove is over the line: give more than 80' },
      { path: 'alerts.rules.2.clearAbove', message: 'a rule with "above" clears on the other side: write "clearBelow"' },
      { path: 'alerts.rules.3.clearBelow', message: 'an event has no line: leave clearBelow out' },
    ]);
  });

  it('refuses an empty or repeated rule list, and alerts that go nowhere', () => {
    expect(issuesOf(report({ rules: [] }))).toEqual([{ path: 'alerts.rules', message: 'list at least one rule, e.g. { "figure": "openHighRisks", "above": 25 }' }]);
    expect(issuesOf(report({ rules: [{ event: 'objectiveDropped' }, { event: 'objectiveDropped' }] }))).toEqual([
      { path: 'alerts.rules', message: 'list each rule once' },
    ]);
    expect(issuesOf({ name: 'quiet', datasets: { risks: {} }, alerts: { rules: [{ event: 'objectiveDropped' }] } })).toEqual([
      { path: 'alerts.to', message: 'name where to tell (alerts.to.email or alerts.to.channels), or give the report e-mail recipients or chat channels' },
    ]);
    expect(issuesOf(report({ rules: [{ event: 'objectiveDropped' }], to: { email: [] } }))).toEqual([
      { path: 'alerts.to.email', message: 'list at least one address, or leave email out' },
    ]);
  });

  it('refuses "alerts-only" delivery without alerts, since the report would tell nobody anything', () => {
    expect(issuesOf({ name: 'quiet', datasets: { risks: {} }, email: { to: ['rte@example.com'] }, delivery: { when: 'alerts-only' } })).toEqual([
      {
        path: 'delivery.when',
        message: '"alerts-only" sends nothing but alerts, and the report names none: add alerts.rules, or choose another delivery.when',
      },
    ]);
    expect(issuesOf({ name: 'quiet', datasets: { risks: {} }, delivery: { when: 'sometimes' } })).toEqual([
      { path: 'delivery.when', message: '"sometimes" is not one of always, changed, attention or alerts-only' },
    ]);
  });
});

describe('docs/reports.md, "Alerts"', () => {
  it('documents every figure and event a rule may name', async () => {
    const doc = await readFile(new URL('../../../../docs/reports.md', import.meta.url), 'utf8');
    const table = doc.slice(doc.indexOf('<!-- alert rules'), doc.indexOf('- **Once per crossing.**'));
    const named = [...table.matchAll(/\{ "(?:figure|event)": "(\w+)"/g)].map((m) => m[1]);
    expect(named).toEqual([...ALERT_FIGURES.map((f) => f.name), ...ALERT_EVENTS.map((e) => e.name)]);
  });
});
