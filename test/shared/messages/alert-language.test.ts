import { describe, expect, it } from 'vitest';
import { alertMessage } from '../../../shared/messages/alert-delivery';
import { alertEmail } from '../../../shared/messages/alert-email';
import { slackAlertPayload } from '../../../shared/channels/slack';
import { parseReportDefinition } from '../../../shared/report/definition/definition';
import type { ExportResult } from '../../../shared/report/run/result';
import { readRules } from '../../../shared/report/alerts/read-rules';
import { readerFormat } from '../../../shared/core/format';
import { readHtml } from '../../support/read-html';

/**
 * The alert in each target's language: a report in English with a German reader gets the lines
 * crossed, the title and the furniture in German, the same figures; the English reader as before.
 */
const definition = parseReportDefinition({
  name: 'weekly', title: 'Train A', timeZone: 'Europe/Berlin', locale: 'en-GB', datasets: { risks: {} },
  email: { to: ['en@example.test', { address: 'de@example.test', locale: 'de-DE' }] },
  alerts: { rules: [{ figure: 'openHighRisks', above: 29 }, { figure: 'overdueRisks', above: 1000 }] },
});
const result = {
  manifest: { runId: 's-1', generatedAt: '2026-11-23T06:00:00.000Z', files: [], summary: { openRisks: { open: 60, highOrCritical: 30, overdue: 14, withoutOwner: 12 } } },
  summary: { title: 'Train A', sections: [] },
  changes: { rows: [] },
} as unknown as ExportResult;
// The lines as the run read them: in the report's language.
const lines = readRules(definition.alerts!.rules, { figures: result.manifest.summary, changes: { rows: [] } }, readerFormat('en-GB', 'Europe/Berlin'))
  .flatMap((r) => (r.items ?? []).map((i) => ({ ruleId: r.id, key: i.key, rule: r.label, text: i.text })));

describe("the alert in its target's language", () => {
  it('writes the lines crossed, the title and the furniture in German for a German reader', () => {
    const email = alertEmail(alertMessage(definition, result, lines, undefined, 'de-DE'), 'weekly', 'de@example.test', { from: 'r@example.test' });
    expect(email.subject).toBe('Warnung: Train A: Offene hohe oder kritische Risiken: 30, über 29');
    expect(email.text).toContain('- Offene hohe oder kritische Risiken: 30, über 29');
    expect(email.text).not.toMatch(/above|Open high/);
  });

  it('declares the language its words are in, as the report\'s e-mail does', () => {
    const german = alertEmail(alertMessage(definition, result, lines, undefined, 'de-DE'), 'weekly', 'de@example.test', { from: 'r@example.test' });
    const english = alertEmail(alertMessage(definition, result, lines, undefined), 'weekly', 'en@example.test', { from: 'r@example.test' });
    expect(readHtml(german.html).lang).toBe('de-DE');
    expect(readHtml(german.html).text).toContain('Offene hohe oder kritische Risiken');
    expect(readHtml(english.html).lang).toBe('en-GB');
  });

  it('reads as before in the report\'s own language', () => {
    const email = alertEmail(alertMessage(definition, result, lines, undefined), 'weekly', 'en@example.test', { from: 'r@example.test' });
    expect(email.subject).toBe('Alert: Train A: Open high or critical risks: 30, above 29');
  });

  it("sets the language's colon and its 'and n more' in the subject, the lines and Slack's notification", () => {
    const two = [...lines, { ruleId: 'x', key: 'line', rule: 'Overdue risks', text: '14, above 10' }];
    const french = alertMessage(definition, result, two, undefined, 'fr-FR');
    const email = alertEmail(french, 'weekly', 'fr@example.test', { from: 'r@example.test' });
    expect(email.subject).toMatch(/^[^:]+ : Train A : .+ : 30, au-dessus de 29 et 1 de plus$/);
    expect(email.text).toMatch(/^- .+ : 30, au-dessus de 29$/m);
    const slack = slackAlertPayload(french);
    expect(slack.text).toMatch(/ : 30, au-dessus de 29 et 1 de plus$/);
    expect(slack.text).not.toMatch(/ and 1 more/);
    expect(JSON.stringify(slack.blocks)).toContain('* : 30, au-dessus de 29');
  });

  it('keeps an owed line the run no longer finds in the words it was read in', () => {
    const owed = [{ ruleId: 'overdueRisks-above-1000', key: 'line', rule: 'Overdue risks', text: '1,200, above 1,000' }];
    expect(alertMessage(definition, result, owed, undefined, 'fr-FR').lines).toEqual(owed);
  });
});
