import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CredentialsError } from '../../../shared/core/errors';
import { SecretsManagerWebhookSource } from '../../../shared/secrets/secret-source';
import { rejectionOf } from '../../support/rejection';
import { startSecretsManagerStub, type SecretsManagerStub } from '../../support/secrets-manager-stub';
import { doorSettings } from '../../support/door-settings';

const SLACK_URL = 'https://hooks.slack.com/services/T0/B0/VERY-SECRET-PART';

async function errorOf(promise: Promise<unknown>): Promise<Error> {
  const error = await rejectionOf(promise);
  expect(error).toBeInstanceOf(CredentialsError);
  return error;
}

describe('webhook URLs from Secrets Manager', () => {
  let stub: SecretsManagerStub;
  beforeAll(async () => {
    stub = await startSecretsManagerStub({
      'chat/webhooks': JSON.stringify({ rte: SLACK_URL, plain: 'http://hooks.example.test/x', local: 'http://127.0.0.1:9/teams/x' }),
      'chat/broken': 'not json VERY-SECRET-PART',
    });
  });
  afterAll(async () => {
    await stub.close();
  });

  it('reads the field the definition names, once per secret however many channels use it', async () => {
    const source = new SecretsManagerWebhookSource({ client: stub.client, maxAgeSeconds: doorSettings.SECRET_MAX_AGE_SECONDS });
    stub.resetCalls();
    expect(await source.webhookUrl({ secretId: 'chat/webhooks', key: 'rte' })).toBe(SLACK_URL);
    expect(await source.webhookUrl({ secretId: 'chat/webhooks', key: 'local' })).toBe('http://127.0.0.1:9/teams/x');
    expect(stub.calls('chat/webhooks')).toBe(1);
  });

  it('refuses plain http to another host, naming the secret and field but not the value', async () => {
    const error = await errorOf(new SecretsManagerWebhookSource({ client: stub.client, maxAgeSeconds: doorSettings.SECRET_MAX_AGE_SECONDS }).webhookUrl({ secretId: 'chat/webhooks', key: 'plain' }));
    expect(error.message).toBe('secret "chat/webhooks" field "plain" is not an https webhook URL');
  });

  it('reads past the cache when the field is missing, so a channel added to the secret works at once', async () => {
    const source = new SecretsManagerWebhookSource({ client: stub.client, maxAgeSeconds: doorSettings.SECRET_MAX_AGE_SECONDS });
    const missing = await errorOf(source.webhookUrl({ secretId: 'chat/webhooks', key: 'new' }));
    expect(missing.message).toBe('secret "chat/webhooks" has no field "new"');
    stub.setSecret('chat/webhooks', JSON.stringify({ rte: SLACK_URL, new: 'https://example.webhook.office.com/x' }));
    expect(await source.webhookUrl({ secretId: 'chat/webhooks', key: 'new' })).toBe('https://example.webhook.office.com/x');
  });

  it('says a secret is unreadable without quoting it', async () => {
    const error = await errorOf(new SecretsManagerWebhookSource({ client: stub.client, maxAgeSeconds: doorSettings.SECRET_MAX_AGE_SECONDS }).webhookUrl({ secretId: 'chat/broken', key: 'rte' }));
    expect(error.message).toMatch(/^secret "chat\/broken" is not JSON \(the first error at line \d+, column \d+\)$/);
    expect(JSON.stringify({ m: error.message, s: error.stack, c: String(error.cause) })).not.toContain('VERY-SECRET-PART');
  });
});
