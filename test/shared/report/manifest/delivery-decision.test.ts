import { describe, expect, it } from 'vitest';
import { decideDelivery } from '../../../../shared/report/manifest/delivery-decision';
import { parseReportDefinition } from '../../../../shared/report/definition/definition';
import type { ExportResult } from '../../../../shared/report/run/result';

/** A report e-mailed to its readers, with the given `delivery.when`. */
const definition = (when?: string) =>
  parseReportDefinition({ name: 'weekly', datasets: { risks: {} }, email: { to: ['team@example.com'] }, ...(when && { delivery: { when } }) });
const baseline = { runId: 's-20261116T060000Z', generatedAt: new Date('2026-11-16T06:00:00Z'), manifestKey: 'm' };

/** The two parts of a run the decision reads: the comparison's counts and the "Needs attention" rows. */
function run(options: { changed?: number; attention?: number; compared?: boolean }): ExportResult {
  const rows = Array.from({ length: options.attention ?? 0 }, (_, i) => ({ values: ['Risk', `R-${i}`, 'no owner'] }));
  return {
    summary: { title: 'Weekly', sections: [{ heading: 'Needs attention', role: 'attention', lines: [], grid: { columns: [], rows } }] },
    changes: { baseline: options.compared === false ? null : baseline, counts: { added: 0, removed: 0, changed: options.changed ?? 0, scope: 0 } },
  } as unknown as ExportResult;
}

describe('whether a run is delivered', () => {
  it('always sends by default', () => {
    expect(decideDelivery(definition(), run({}))).toEqual({ send: true, when: 'always', reason: 'sent: delivery.when is "always"' });
  });

  it('"changed": sends on changes or a first run, not on an unchanged run', () => {
    expect(decideDelivery(definition('changed'), run({ changed: 1 })).reason).toBe('sent: 1 change since run s-20261116T060000Z (delivery.when is "changed")');
    expect(decideDelivery(definition('changed'), run({ compared: false })).send).toBe(true);
    expect(decideDelivery(definition('changed'), run({ attention: 4 }))).toEqual({
      send: false,
      when: 'changed',
      reason: 'not sent: nothing changed since run s-20261116T060000Z and delivery.when is "changed"',
    });
  });

  it('"alerts-only": never sends the report\'s message, whatever changed or needs attention', () => {
    const alertsOnly = parseReportDefinition({
      name: 'daily', datasets: { risks: {} }, email: { to: ['team@example.com'] }, delivery: { when: 'alerts-only' }, alerts: { rules: [{ event: 'riskRaisedToHighest' }] },
    });
    expect(decideDelivery(alertsOnly, run({ changed: 3, attention: 2 }))).toEqual({
      send: false,
      when: 'alerts-only',
      reason: 'not sent: delivery.when is "alerts-only" (alerts go out when a rule\'s line is crossed)',
    });
  });

  it('"attention": sends when Needs attention lists something, whatever changed', () => {
    expect(decideDelivery(definition('attention'), run({ attention: 2 })).reason).toBe('sent: 2 items need attention (delivery.when is "attention")');
    expect(decideDelivery(definition('attention'), run({ changed: 9 }))).toEqual({
      send: false,
      when: 'attention',
      reason: 'not sent: nothing needs attention and delivery.when is "attention"',
    });
  });

  it('says "not sent" for a report with no recipients and no channels, whatever delivery.when says', () => {
    const unread = parseReportDefinition({ name: 'files-only', datasets: { risks: {} }, delivery: { when: 'always' } });
    expect(decideDelivery(unread, run({ changed: 3, attention: 2 }))).toEqual({
      send: false,
      when: 'always',
      reason: 'not sent: the report has no e-mail recipients and no chat channels',
    });
    const chatOnly = parseReportDefinition({ name: 'chat', datasets: { risks: {} }, delivery: { channels: [{ type: 'slack', webhook: { secretId: 's', key: 'k' } }] } });
    expect(decideDelivery(chatOnly, run({})).send).toBe(true);
  });

  it('sends nothing for a run of a whole report that has deliveries: its audiences get their slices', () => {
    const sliced = parseReportDefinition({ name: 'portfolio', datasets: { risks: {} }, email: { to: ['pmo@example.com'] }, deliveries: [{ name: 'train-a', filter: {} }] });
    expect(decideDelivery(sliced, run({ changed: 3, attention: 2 }))).toEqual({
      send: false,
      when: 'always',
      reason: 'not sent: this report sends per delivery (deliveries); this run exports it whole',
    });
  });
});
