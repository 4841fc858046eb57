import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { AuthenticationError, CredentialsError } from '../../../shared/core/errors';
import {
  SecretsManagerCredentialsSource,
  SecretsManagerLinkKeySource,
} from '../../../shared/secrets/secret-source';
import { withCredentialRefresh } from '../../../shared/secrets/credential-refresh';
import { startSecretsManagerStub, type SecretsManagerStub } from '../../support/secrets-manager-stub';
import { testCredentials } from '../../support/credentials';
import { rejectionOf } from '../../support/rejection';
import { doorSettings } from '../../support/door-settings';

const API_KEY = 'sk-live-VERY-SECRET-0123456789';
const ROTATED_KEY = 'sk-live-ROTATED-9876543210';
const credentials = testCredentials(API_KEY);
const json = (value: unknown) => JSON.stringify(value);

/** Message, cause chain and serialised form: none may contain the secret. */
function everythingSaidAbout(error: Error): string {
  const parts: string[] = [];
  let current: unknown = error;
  while (current instanceof Error) {
    parts.push(current.message, String(current.stack), JSON.stringify(current));
    current = current.cause;
  }
  return parts.join('\n');
}

describe('SecretsManagerCredentialsSource against a Secrets Manager stub', () => {
  let stub: SecretsManagerStub;

  beforeAll(async () => {
    stub = await startSecretsManagerStub();
  });
  afterAll(async () => {
    await stub.close();
  });
  beforeEach(() => {
    stub.setSecret('prod/planning', json(credentials));
    stub.resetCalls();
  });

  it('reads and validates the credentials', async () => {
    const source = new SecretsManagerCredentialsSource({ secretId: 'prod/planning', client: stub.client, maxAgeSeconds: doorSettings.SECRET_MAX_AGE_SECONDS });
    expect(await source.getCredentials()).toEqual(credentials);
    expect(stub.calls('prod/planning')).toBe(1);
  });

  it('caches within maxAge: a second call makes no request', async () => {
    const source = new SecretsManagerCredentialsSource({ secretId: 'prod/planning', client: stub.client, maxAgeSeconds: doorSettings.SECRET_MAX_AGE_SECONDS });
    await source.getCredentials();
    await source.getCredentials();
    await source.getCredentials();
    expect(stub.calls('prod/planning')).toBe(1);
  });

  it('fetches again after maxAge, and on forceFetch', async () => {
    const source = new SecretsManagerCredentialsSource({
      secretId: 'prod/planning',
      client: stub.client,
      maxAgeSeconds: 1,
    });
    await source.getCredentials();
    stub.setSecret('prod/planning', json({ ...credentials, apiKey: ROTATED_KEY }));
    expect((await source.getCredentials()).apiKey).toBe(API_KEY);
    // The cache's clock moves on by more than maxAge; nothing waits for it.
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(Date.now() + 1_100);
      expect((await source.getCredentials()).apiKey).toBe(ROTATED_KEY);
    } finally {
      vi.useRealTimers();
    }
    expect(stub.calls('prod/planning')).toBe(2);
    await source.getCredentials({ forceFetch: true });
    expect(stub.calls('prod/planning')).toBe(3);
  });

  it('missing secret → CredentialsError naming it', async () => {
    const source = new SecretsManagerCredentialsSource({ secretId: 'prod/missing', client: stub.client, maxAgeSeconds: doorSettings.SECRET_MAX_AGE_SECONDS });
    const error = await rejectionOf(source.getCredentials());
    expect(error).toBeInstanceOf(CredentialsError);
    expect(error.message).toBe('secret "prod/missing" was not found');
  });

  it('not JSON → CredentialsError, and the value is nowhere in the error', async () => {
    stub.setSecret('prod/planning', `apiKey=${API_KEY}`);
    const source = new SecretsManagerCredentialsSource({ secretId: 'prod/planning', client: stub.client, maxAgeSeconds: doorSettings.SECRET_MAX_AGE_SECONDS });
    const error = await rejectionOf(source.getCredentials());
    expect(error).toBeInstanceOf(CredentialsError);
    expect(error.message).toBe('secret "prod/planning" is not JSON (the first error at line 1, column 1)');
    expect(everythingSaidAbout(error)).not.toContain(API_KEY);
  });

  it('missing and invalid fields are named, values are not', async () => {
    const { apiKey: _omitted, ...withoutKey } = credentials;
    stub.setSecret('prod/planning', json(withoutKey));
    const source = new SecretsManagerCredentialsSource({ secretId: 'prod/planning', client: stub.client, maxAgeSeconds: doorSettings.SECRET_MAX_AGE_SECONDS });
    expect((await rejectionOf(source.getCredentials())).message).toBe('secret "prod/planning" is missing field apiKey');

    stub.setSecret('prod/planning', json({ ...withoutKey, email: '' }));
    expect((await rejectionOf(source.getCredentials({ forceFetch: true }))).message).toBe(
      'secret "prod/planning" is missing fields email, apiKey',
    );

    stub.setSecret('prod/planning', json({ ...credentials, baseUrl: `not a url ${API_KEY}` }));
    const invalid = await rejectionOf(source.getCredentials({ forceFetch: true }));
    expect(invalid.message).toBe(
      'secret "prod/planning" has invalid field baseUrl: baseUrl must be an absolute URL such as https://acme.example.com',
    );
    expect(everythingSaidAbout(invalid)).not.toContain(API_KEY);

    stub.setSecret('prod/planning', json([API_KEY]));
    expect((await rejectionOf(source.getCredentials({ forceFetch: true }))).message).toBe(
      'secret "prod/planning" is not a JSON object',
    );
  });

  it('service failures name the secret', async () => {
    stub.failNext(1);
    const source = new SecretsManagerCredentialsSource({ secretId: 'prod/planning', client: stub.client, maxAgeSeconds: doorSettings.SECRET_MAX_AGE_SECONDS });
    const error = await rejectionOf(source.getCredentials());
    expect(error).toBeInstanceOf(CredentialsError);
    expect(error.message).toMatch(/^could not read secret "prod\/planning": InternalServiceError/);
  });
});

describe('withCredentialRefresh', () => {
  let stub: SecretsManagerStub;
  let source: SecretsManagerCredentialsSource;

  beforeAll(async () => {
    stub = await startSecretsManagerStub();
  });
  afterAll(async () => {
    await stub.close();
  });
  beforeEach(() => {
    stub.setSecret('prod/planning', json(credentials));
    stub.resetCalls();
    source = new SecretsManagerCredentialsSource({ secretId: 'prod/planning', client: stub.client, maxAgeSeconds: doorSettings.SECRET_MAX_AGE_SECONDS });
  });

  const unauthorized = () => new AuthenticationError('planning API answered 401', { operation: 'listRisks', status: 401 });

  it('returns the result without refetching when fn succeeds', async () => {
    expect(await withCredentialRefresh(source, (c) => Promise.resolve(c.email))).toBe(credentials.email);
    expect(stub.calls()).toBe(1);
  });

  it('after a 401, refetches past the cache and retries once with rotated credentials', async () => {
    await source.getCredentials(); // warm the cache with the old key
    stub.setSecret('prod/planning', json({ ...credentials, apiKey: ROTATED_KEY }));
    const seen: string[] = [];
    const result = await withCredentialRefresh(source, (c) => {
      seen.push(c.apiKey);
      return c.apiKey === ROTATED_KEY ? Promise.resolve('ok') : Promise.reject(unauthorized());
    });
    expect(result).toBe('ok');
    expect(seen).toEqual([API_KEY, ROTATED_KEY]);
    expect(stub.calls()).toBe(2);
  });

  it('rethrows the 401 when the secret did not change (no pointless retry)', async () => {
    let attempts = 0;
    const error = await rejectionOf(
      withCredentialRefresh(source, () => {
        attempts += 1;
        return Promise.reject(unauthorized());
      }),
    );
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(attempts).toBe(1);
    expect(stub.calls()).toBe(2);
  });

  it('retries only once even if the new credentials fail too', async () => {
    await source.getCredentials();
    stub.setSecret('prod/planning', json({ ...credentials, apiKey: ROTATED_KEY }));
    let attempts = 0;
    const error = await rejectionOf(
      withCredentialRefresh(source, () => {
        attempts += 1;
        return Promise.reject(unauthorized());
      }),
    );
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(attempts).toBe(2);
  });

  it('does not refetch for other errors', async () => {
    const error = await rejectionOf(withCredentialRefresh(source, () => Promise.reject(new Error('boom'))));
    expect(error.message).toBe('boom');
    expect(stub.calls()).toBe(1);
  });
});

describe('SecretsManagerLinkKeySource', () => {
  let stub: SecretsManagerStub;

  beforeAll(async () => {
    stub = await startSecretsManagerStub({
      'prod/link-keys': json({
        current: { id: 'k2', secret: 'c'.repeat(40) },
        previous: { id: 'k1', secret: 'p'.repeat(40), retiredAt: '2024-05-01T00:00:00Z' },
      }),
      'prod/link-keys-bad': json({ current: { id: 'k2', secret: 'short' } }),
    });
  });
  afterAll(async () => {
    await stub.close();
  });

  it('reads the key set, with retiredAt as a Date, and caches it', async () => {
    const source = new SecretsManagerLinkKeySource({ secretId: 'prod/link-keys', client: stub.client, maxAgeSeconds: doorSettings.SECRET_MAX_AGE_SECONDS });
    const keys = await source.getKeys();
    expect(keys).toEqual({
      current: { id: 'k2', secret: 'c'.repeat(40) },
      previous: { id: 'k1', secret: 'p'.repeat(40), retiredAt: new Date('2024-05-01T00:00:00Z') },
    });
    await source.getKeys();
    expect(stub.calls('prod/link-keys')).toBe(1);
  });

  it('names bad fields without values', async () => {
    const source = new SecretsManagerLinkKeySource({ secretId: 'prod/link-keys-bad', client: stub.client, maxAgeSeconds: doorSettings.SECRET_MAX_AGE_SECONDS });
    const error = await rejectionOf(source.getKeys());
    expect(error).toBeInstanceOf(CredentialsError);
    expect(error.message).toBe(
      'secret "prod/link-keys-bad" has invalid field current.secret: must be at least 32 characters (random)',
    );
    expect(error.message).not.toContain('short');
  });
});
