// @tier slow
import { beforeAll, describe, expect, it } from 'vitest';
import { loadInfraConfig } from '../../infra/config';
import { WEBHOOK_SECRET_PREFIX } from '../../shared/core/names';
import { asArray, describeFindings, policyStatements, synthesize, unacknowledgedNagFindings, type Synthesized } from './support';

/** Chat webhooks: the export function reads exactly the secrets the configured reports name. */
let synthesized: Synthesized;
const slack = (secretId: string, key: string) => ({ type: 'slack', webhook: { secretId, key } });

beforeAll(() => {
  synthesized = synthesize(
    loadInfraConfig({
      reports: [
        { definition: { name: 'train-a', datasets: { risks: {} }, delivery: { when: 'changed', channels: [slack('chat/webhooks', 'a'), { type: 'teams', webhook: { secretId: 'chat/webhooks', key: 'a-teams' } }] } }, schedule: null },
        { definition: { name: 'train-b', datasets: { risks: {} }, delivery: { channels: [slack('team-b/hooks', 'b')] } }, schedule: null },
        { definition: { name: 'no-chat', datasets: { risks: {} } }, schedule: null },
        { definition: { name: 'portfolio', datasets: { risks: {} }, deliveries: [{ name: 'train-c', filter: {}, delivery: { channels: [slack('team-c/hooks', 'c')] } }] }, schedule: null },
      ],
      planningSecretName: 'prod/planning-api',
    }),
    { bundle: false },
  );
}, 120_000);

function secretReads(role: 'ExportReport' | 'ExportApi'): string[] {
  return policyStatements(synthesized.template)
    .filter(({ policy }) => policy.startsWith(role))
    .filter(({ statement }) => asArray(statement.Action as string | string[]).includes('secretsmanager:GetSecretValue'))
    .flatMap(({ statement }) => asArray(statement.Resource).map((r) => JSON.stringify(r)))
    .filter((r) => r.includes('hooks'));
}

describe('webhook secrets', () => {
  it('lets export-report read each named webhook secret once, by name, those under the webhook prefix, and export-api none', () => {
    const reads = secretReads('ExportReport');
    expect(reads).toHaveLength(4);
    expect(reads.filter((r) => r.includes('secret:chat/webhooks-??????'))).toHaveLength(1);
    expect(reads.filter((r) => r.includes('secret:team-b/hooks-??????'))).toHaveLength(1);
    // A delivery's channel, too.
    expect(reads.filter((r) => r.includes('secret:team-c/hooks-??????'))).toHaveLength(1);
    // Reports stored without a deploy keep their webhook URLs under the prefix.
    expect(reads.filter((r) => r.includes(`:secret:${WEBHOOK_SECRET_PREFIX}*`))).toHaveLength(1);
    expect(secretReads('ExportApi')).toEqual([]);
  });

  it('refuses a planning credentials secret named under the webhook prefix', () => {
    const config = loadInfraConfig({ reports: [], planningSecretName: `${WEBHOOK_SECRET_PREFIX}planning` });
    expect(() => synthesize(config, { bundle: false })).toThrow(`is named under "${WEBHOOK_SECRET_PREFIX}"`);
  });

  it('puts no webhook URL and no secret value in the template', () => {
    expect(JSON.stringify(synthesized.template.toJSON())).not.toMatch(/hooks\.slack\.com|webhook\.office\.com/);
  });

  it('refuses the planning credentials secret as a webhook secret', () => {
    const config = loadInfraConfig({
      reports: [{ definition: { name: 'x', datasets: { risks: {} }, delivery: { channels: [slack('prod/planning-api', 'baseUrl')] } }, schedule: null }],
      planningSecretName: 'prod/planning-api',
    });
    expect(() => synthesize(config, { bundle: false })).toThrow('delivery.channels names the planning API credentials secret "prod/planning-api" as a webhook secret');
  });

  it('stays cdk-nag clean', () => {
    expect(describeFindings(unacknowledgedNagFindings(synthesized.app))).toEqual([]);
  });
});
