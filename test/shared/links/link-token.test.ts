import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ConfigError, LinkTokenError } from '../../../shared/core/errors';
import {
  LINK_TOKEN_PUBLIC_MESSAGE,
  MAX_LINK_LIFETIME_SECONDS,
  MAX_LINK_TOKEN_LENGTH,
  createLinkToken,
  linkKeySetSchema,
  linkTokenFailure,
  toVerificationKeys,
  verifyLinkToken,
  type LinkTokenFailure,
  type LinkVerificationKeys,
} from '../../../shared/links/link-token';

const now = new Date('2024-05-06T07:00:00Z');
const in14Days = new Date(now.getTime() + 14 * 86400_000);
const keyA = { id: 'k2024-05', secret: 'a'.repeat(16) + 'secret-material-for-tests-0001' };
const keyB = { id: 'k2024-04', secret: new Uint8Array(32).fill(7) };
const keys: LinkVerificationKeys = { current: keyA };
const claims = { runKey: 'acme-weekly/dt=2024-05-06/run=20240506T070000Z-ab12', file: 'acme-weekly.xlsx', expiresAt: in14Days };

function refusalOf(fn: () => unknown): LinkTokenFailure | undefined {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(LinkTokenError);
    expect((error as Error).message).toBe(LINK_TOKEN_PUBLIC_MESSAGE);
    // The reason is for logs only: not enumerable, so JSON responses built from the error omit it.
    expect(Object.keys(error as object)).not.toContain('reason');
    // Whatever the reason, what a caller can serialise is the same generic refusal.
    expect(JSON.parse(JSON.stringify(error))).toEqual({ name: 'LinkTokenError', retryable: false, publicMessage: LINK_TOKEN_PUBLIC_MESSAGE });
    return linkTokenFailure(error);
  }
  throw new Error('expected a refusal');
}

function tamperPayload(token: string, change: (payload: Record<string, unknown>) => void): string {
  const [body, signature] = token.split('.') as [string, string];
  const payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as Record<string, unknown>;
  change(payload);
  return `${Buffer.from(JSON.stringify(payload)).toString('base64url')}.${signature}`;
}

/** Signs an arbitrary payload with a key, to test checks that run after the signature. */
function forge(payload: unknown, secret: string | Uint8Array): string {
  const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
  return `${body}.${createHmac('sha256', secret).update(body).digest('base64url')}`;
}

describe('link tokens', () => {
  it('round-trips a valid token, URL-safe', () => {
    const token = createLinkToken(claims, keyA, now);
    expect(token).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
    expect(encodeURIComponent(token)).toBe(token);
    expect(verifyLinkToken(token, keys, now)).toEqual({
      v: 1,
      kid: 'k2024-05',
      run: claims.runKey,
      file: 'acme-weekly.xlsx',
      exp: Math.floor(in14Days.getTime() / 1000),
    });
  });

  it('refuses a tampered payload (other file, later expiry)', () => {
    const token = createLinkToken(claims, keyA, now);
    expect(refusalOf(() => verifyLinkToken(tamperPayload(token, (p) => (p.file = 'other.csv')), keys, now))).toBe(
      'bad-signature',
    );
    expect(refusalOf(() => verifyLinkToken(tamperPayload(token, (p) => (p.exp = 9_999_999_999)), keys, now))).toBe(
      'bad-signature',
    );
  });

  it('refuses a tampered signature, including non-canonical spellings', () => {
    const token = createLinkToken(claims, keyA, now);
    const [body, signature] = token.split('.') as [string, string];
    const flipped = signature[0] === 'A' ? 'B' : 'A';
    expect(refusalOf(() => verifyLinkToken(`${body}.${flipped}${signature.slice(1)}`, keys, now))).toBe('bad-signature');
    expect(refusalOf(() => verifyLinkToken(`${body}.${signature.slice(0, -2)}`, keys, now))).toBe('bad-signature');
    expect(refusalOf(() => verifyLinkToken(`${body}.${signature}AA`, keys, now))).toBe('bad-signature');
    // The last character of 43 carries 2 unused bits: another spelling of the same bytes is refused.
    const last = signature.at(-1)!;
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const sibling = alphabet[alphabet.indexOf(last) ^ 1]!;
    expect(Buffer.from(signature.slice(0, -1) + sibling, 'base64url')).toEqual(Buffer.from(signature, 'base64url'));
    expect(refusalOf(() => verifyLinkToken(`${body}.${signature.slice(0, -1)}${sibling}`, keys, now))).toBe(
      'bad-signature',
    );
  });

  it('refuses a token signed with another key under the same kid', () => {
    const token = createLinkToken(claims, { id: keyA.id, secret: 'x'.repeat(40) }, now);
    expect(refusalOf(() => verifyLinkToken(token, keys, now))).toBe('bad-signature');
  });

  it('refuses expired tokens, at the second of expiry', () => {
    const token = createLinkToken(claims, keyA, now);
    const exp = Math.floor(in14Days.getTime() / 1000) * 1000;
    expect(verifyLinkToken(token, keys, new Date(exp - 1))).toBeDefined();
    expect(refusalOf(() => verifyLinkToken(token, keys, new Date(exp)))).toBe('expired');
  });

  it('refuses an unknown kid', () => {
    const token = createLinkToken(claims, { id: 'someone-else', secret: keyA.secret }, now);
    expect(refusalOf(() => verifyLinkToken(token, keys, now))).toBe('unknown-key');
  });

  it('accepts the previous key during the grace period after rotation, then refuses it', () => {
    const oldToken = createLinkToken(claims, keyB, now);
    const rotated = { current: keyA, previous: { ...keyB, retiredAt: new Date(now.getTime() + 86400_000) } };
    expect(verifyLinkToken(oldToken, rotated, new Date(now.getTime() + 2 * 86400_000)).kid).toBe('k2024-04');
    expect(verifyLinkToken(oldToken, { current: keyA, previous: keyB }, now).kid).toBe('k2024-04');
    // Tokens signed with the new key keep working too.
    expect(verifyLinkToken(createLinkToken(claims, keyA, now), rotated, now).kid).toBe('k2024-05');
    const afterGrace = new Date(rotated.previous.retiredAt.getTime() + MAX_LINK_LIFETIME_SECONDS * 1000 + 1000);
    expect(refusalOf(() => verifyLinkToken(oldToken, rotated, afterGrace))).toBe('retired-key');
    // Without the previous key at all, it is unknown.
    expect(refusalOf(() => verifyLinkToken(oldToken, { current: keyA }, now))).toBe('unknown-key');
  });

  it.each([
    ['empty', ''],
    ['no dot', 'abcdef'],
    ['two dots', 'a.b.c'],
    ['bad characters', 'ab+c/d=.efg'],
    ['spaces', 'abc .def'],
    ['payload not JSON', `${Buffer.from('hello').toString('base64url')}.abc`],
    ['payload JSON array', `${Buffer.from('[1]').toString('base64url')}.abc`],
    ['payload without kid', `${Buffer.from('{"v":1}').toString('base64url')}.abc`],
  ])('refuses malformed tokens (%s)', (_name, token) => {
    expect(refusalOf(() => verifyLinkToken(token, keys, now))).toBe('malformed');
  });

  it('refuses oversized tokens before parsing them', () => {
    const token = 'a'.repeat(MAX_LINK_TOKEN_LENGTH + 1);
    expect(refusalOf(() => verifyLinkToken(token, keys, now))).toBe('oversized');
    expect(refusalOf(() => verifyLinkToken(`${'a'.repeat(5000)}.b`, keys, now))).toBe('oversized');
  });

  it('refuses correctly signed payloads that break the schema (paths, version, extra fields)', () => {
    const valid = { v: 1, kid: keyA.id, run: claims.runKey, file: 'a.csv', exp: Math.floor(now.getTime() / 1000) + 86_400 };
    expect(verifyLinkToken(forge(valid, keyA.secret), keys, now).file).toBe('a.csv');
    for (const bad of [
      { ...valid, file: '../../other-report/secret.xlsx' },
      { ...valid, file: '/etc/passwd' },
      { ...valid, run: 'a/../b' },
      { ...valid, file: '' },
      { ...valid, v: 2 },
      { ...valid, exp: '2000000000' },
      { ...valid, admin: true },
    ]) {
      expect(refusalOf(() => verifyLinkToken(forge(bad, keyA.secret), keys, now))).toBe('invalid-payload');
    }
  });

  it('createLinkToken refuses unsafe claims, short keys and unbounded lifetimes', () => {
    expect(() => createLinkToken({ ...claims, file: '../x.csv' }, keyA, now)).toThrow(ConfigError);
    expect(() => createLinkToken({ ...claims, runKey: '/abs' }, keyA, now)).toThrow(ConfigError);
    expect(() => createLinkToken(claims, { id: 'short', secret: 'too-short' }, now)).toThrow(/shorter than 32 bytes/);
    expect(() => createLinkToken({ ...claims, expiresAt: now }, keyA, now)).toThrow(ConfigError);
    expect(() =>
      createLinkToken({ ...claims, expiresAt: new Date(now.getTime() + 91 * 86400_000) }, keyA, now),
    ).toThrow(/90 days/);
    expect(() => createLinkToken({ ...claims, file: 'x'.repeat(300) }, keyA, now)).toThrow(ConfigError);
  });

  it('linkKeySetSchema validates the secret document', () => {
    const doc = {
      current: { id: 'k2', secret: 's'.repeat(40) },
      previous: { id: 'k1', secret: 'p'.repeat(40), retiredAt: '2024-05-01T00:00:00Z' },
    };
    const parsed = toVerificationKeys(linkKeySetSchema.parse(doc));
    expect(parsed.previous?.retiredAt).toEqual(new Date('2024-05-01T00:00:00Z'));
    expect(linkKeySetSchema.safeParse({ current: { id: 'k', secret: 'short' } }).success).toBe(false);
    expect(linkKeySetSchema.safeParse({ ...doc, previous: { ...doc.previous, id: 'k2' } }).success).toBe(false);
    expect(linkKeySetSchema.safeParse({ ...doc, previous: { ...doc.previous, retiredAt: 'yesterday' } }).success).toBe(
      false,
    );
    expect(toVerificationKeys(linkKeySetSchema.parse({ current: doc.current }))).toEqual({ current: doc.current });
  });
});

describe('link-key secret shapes', () => {
  it('reads the flat form Secrets Manager generates as the current key', async () => {
    const { linkKeySetSchema } = await import('../../../shared/links/link-token');
    const flat = linkKeySetSchema.parse({ currentId: 'k1', currentSecret: 's'.repeat(64) });
    expect(flat).toEqual({ current: { id: 'k1', secret: 's'.repeat(64) } });
    const withPrevious = linkKeySetSchema.parse({
      currentId: 'k2', currentSecret: 't'.repeat(40), previousId: 'k1', previousSecret: 's'.repeat(40), previousRetiredAt: '2026-11-01T00:00:00Z',
    });
    expect(withPrevious.previous).toEqual({ id: 'k1', secret: 's'.repeat(40), retiredAt: '2026-11-01T00:00:00Z' });
    expect(() => linkKeySetSchema.parse({ currentId: 'k1', currentSecret: 'short' })).toThrow();
  });
});
