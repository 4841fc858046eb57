import { describe, expect, it } from 'vitest';
import type { ConfiguredReport } from '../../infra/config';
import { webhookSecretNames } from '../../infra/constructs/webhook-secrets';

const slack = (secretId: string) => ({ type: 'slack', webhook: { secretId, key: 'k' } });
const report = (definition: Record<string, unknown>): ConfiguredReport =>
  ({ definition: { name: 'r', datasets: { risks: {} }, ...definition }, schedule: null, origin: 'test' });

describe('the webhook secrets a configured report names', () => {
  it('include the chat channels its alerts go to (alerts.to.channels), each once', () => {
    expect(
      webhookSecretNames([
        report({ delivery: { channels: [slack('chat/report')] }, alerts: { rules: [{ event: 'objectiveDropped' }], to: { channels: [slack('chat/alerts'), slack('chat/report')] } } }),
        report({ alerts: { rules: [{ event: 'objectiveDropped' }], to: { email: ['pmo@example.com'] } } }),
      ]),
    ).toEqual(['chat/alerts', 'chat/report']);
  });
});
