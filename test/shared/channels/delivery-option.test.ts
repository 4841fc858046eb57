import { describe, expect, it } from 'vitest';
import { ReportDefinitionError } from '../../../shared/core/errors';
import { parseReportDefinition } from '../../../shared/report/definition/definition';

const base = { name: 'weekly', datasets: { risks: {} } };
const slack = { type: 'slack', webhook: { secretId: 'chat/webhooks', key: 'rte' } };

function problems(input: unknown): { path: string; message: string }[] {
  try {
    parseReportDefinition(input);
  } catch (error) {
    expect(error).toBeInstanceOf(ReportDefinitionError);
    return [...(error as ReportDefinitionError).issues];
  }
  throw new Error('the definition was accepted');
}

describe('delivery in a report definition', () => {
  it('defaults to sending always, to no chat channel, and leaves definitions without it unchanged', () => {
    expect(parseReportDefinition(base).delivery).toBeUndefined();
    expect(parseReportDefinition({ ...base, delivery: {} }).delivery).toEqual({ when: 'always', channels: [] });
    expect(parseReportDefinition({ ...base, delivery: { when: 'changed', channels: [slack] } }).delivery).toEqual({ when: 'changed', channels: [slack] });
  });

  it('names the allowed values of when and of a channel type', () => {
    expect(problems({ ...base, delivery: { when: 'sometimes' } })).toEqual([{ path: 'delivery.when', message: '"sometimes" is not one of always, changed, attention or alerts-only' }]);
    expect(problems({ ...base, delivery: { channels: [{ ...slack, type: 'discord' }] } })).toEqual([
      { path: 'delivery.channels.0.type', message: 'must be one of slack, teams' },
    ]);
  });

  it('refuses a webhook URL in the definition: only a secret name and a field', () => {
    const url = 'https://hooks.slack.com/services/T0/B0/xyz';
    expect(problems({ ...base, delivery: { channels: [{ type: 'slack', webhook: { url } }] } }).map((p) => p.path)).toEqual(
      expect.arrayContaining(['delivery.channels.0.webhook', 'delivery.channels.0.webhook.secretId', 'delivery.channels.0.webhook.key']),
    );
    expect(problems({ ...base, delivery: { channels: [{ type: 'slack', webhook: { secretId: url, key: 'k' } }] } })).toEqual([
      { path: 'delivery.channels.0.webhook.secretId', message: 'must be a Secrets Manager secret name (letters, digits and /_+=.@-), not a URL or an ARN' },
    ]);
  });

  it('lists each channel once', () => {
    expect(problems({ ...base, delivery: { channels: [slack, slack] } })).toEqual([{ path: 'delivery.channels', message: 'list each channel once' }]);
  });
});
