import { describe, expect, it } from 'vitest';
import { ConfigError, LinkTokenError } from '../../../shared/core/errors';
import { createLinkToken, linkTokenFailure, LINK_TOKEN_PUBLIC_MESSAGE, sealToken, verifyLinkToken } from '../../../shared/links/link-token';
import { createRunLinkToken, RUN_LINK_ID_PATTERN, verifyRunLinkToken } from '../../../shared/links/run-link-token';

const now = new Date('2026-11-23T06:00:00Z');
const in30Days = new Date(now.getTime() + 30 * 86400_000);
const current = { id: 'k2', secret: 'b'.repeat(48) };
const previous = { id: 'k1', secret: 'a'.repeat(48) };

function reasonOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(LinkTokenError);
    expect((error as Error).message).toBe(LINK_TOKEN_PUBLIC_MESSAGE);
    return linkTokenFailure(error);
  }
  throw new Error('expected a refusal');
}

describe('run-link tokens', () => {
  it('round-trips the report, a random id and the expiry', () => {
    const a = createRunLinkToken({ report: 'acme-weekly', expiresAt: in30Days }, current, now);
    const b = createRunLinkToken({ report: 'acme-weekly', expiresAt: in30Days }, current, now);
    expect(a.id).toMatch(RUN_LINK_ID_PATTERN);
    expect(a.id).not.toBe(b.id);
    expect(a.expiresAt.toISOString()).toBe(in30Days.toISOString());
    const claims = verifyRunLinkToken(a.token, { current }, now);
    expect(claims).toMatchObject({ use: 'run', report: 'acme-weekly', jti: a.id, kid: 'k2' });
  });

  it('rotates like download links: a token of the previous key stays valid, an unknown key does not', () => {
    const old = createRunLinkToken({ report: 'acme-weekly', expiresAt: in30Days }, previous, now);
    expect(verifyRunLinkToken(old.token, { current, previous }, now).report).toBe('acme-weekly');
    expect(reasonOf(() => verifyRunLinkToken(old.token, { current }, now))).toBe('unknown-key');
    const retired = { ...previous, retiredAt: new Date(now.getTime() - 91 * 86400_000) };
    expect(reasonOf(() => verifyRunLinkToken(old.token, { current, previous: retired }, now))).toBe('retired-key');
  });

  it('refuses tampered, expired and malformed tokens with one public message', () => {
    const { token } = createRunLinkToken({ report: 'acme-weekly', expiresAt: in30Days }, current, now);
    const [body, signature] = token.split('.') as [string, string];
    const payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as Record<string, unknown>;
    const otherReport = Buffer.from(JSON.stringify({ ...payload, report: 'other' })).toString('base64url');
    expect(reasonOf(() => verifyRunLinkToken(`${otherReport}.${signature}`, { current }, now))).toBe('bad-signature');
    expect(reasonOf(() => verifyRunLinkToken(token, { current }, new Date(in30Days.getTime() + 1)))).toBe('expired');
    expect(reasonOf(() => verifyRunLinkToken('not-a-token', { current }, now))).toBe('malformed');
  });

  it('is not interchangeable with a download-link token, in either direction', () => {
    const download = createLinkToken({ runKey: 'acme-weekly/dt=2026-11-23/run=x', file: 'acme-weekly.xlsx', expiresAt: in30Days }, current, now);
    expect(reasonOf(() => verifyRunLinkToken(download, { current }, now))).toBe('invalid-payload');
  });

  it('refuses to create a link for more than 90 days, in the past, or for a malformed report name', () => {
    expect(() => createRunLinkToken({ report: 'acme-weekly', expiresAt: new Date(now.getTime() + 91 * 86400_000) }, current, now)).toThrow(ConfigError);
    expect(() => createRunLinkToken({ report: 'acme-weekly', expiresAt: now }, current, now)).toThrow(/future/);
    expect(() => createRunLinkToken({ report: '../etc', expiresAt: in30Days }, current, now)).toThrow(/report/);
    expect(() => createRunLinkToken({ report: 'acme', expiresAt: in30Days }, { id: 'short', secret: 'x' }, now)).toThrow(/shorter/);
  });
});

describe('download-link verifier and run tokens', () => {
  it('refuses a run-link token as a download link', () => {
    const { token } = createRunLinkToken({ report: 'acme-weekly', expiresAt: in30Days }, current, now);
    expect(reasonOf(() => verifyLinkToken(token, { current }, now))).toBe('invalid-payload');
  });

  it('refuses at verification a correctly signed token that expires further out than 90 days (10 years)', () => {
    const keys = { current };
    const exp = Math.floor(now.getTime() / 1000) + 10 * 365 * 86400;
    const run = sealToken({ v: 1, use: 'run', kid: current.id, report: 'acme-weekly', jti: 'A'.repeat(22), exp }, current);
    expect(reasonOf(() => verifyRunLinkToken(run, keys, now))).toBe('invalid-payload');
    const download = sealToken({ v: 1, kid: current.id, run: 'acme-weekly/dt=2026-11-23/run=r1', file: 'risks.csv', exp }, current);
    expect(reasonOf(() => verifyLinkToken(download, keys, now))).toBe('invalid-payload');
    // Exactly 90 days is still a link this exporter issues.
    const longest = sealToken({ v: 1, use: 'run', kid: current.id, report: 'acme-weekly', jti: 'A'.repeat(22), exp: Math.floor(now.getTime() / 1000) + 90 * 86400 }, current);
    expect(verifyRunLinkToken(longest, keys, now).report).toBe('acme-weekly');
  });
});
