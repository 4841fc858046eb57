import { describe, expect, it } from 'vitest';
import { createRunPageToken, RUN_PAGE_TOKEN_SECONDS, verifyRunPageToken } from '../../../shared/links/run-page-token';

const now = new Date('2026-11-23T06:00:00Z');
const current = { id: 'k2', secret: 'b'.repeat(48) };
const previous = { id: 'k1', secret: 'a'.repeat(48) };
const keys = { current, previous };
const RUN = 'eyJ2IjoxfQ.c2lnbmF0dXJl';

describe('run page tokens (the fresh-copy form)', () => {
  it('verifies for the run link it was made for, until it expires', () => {
    const token = createRunPageToken(RUN, current, now);
    expect(verifyRunPageToken(token, RUN, keys, now)).toBe(true);
    expect(verifyRunPageToken(token, RUN, keys, new Date(now.getTime() + (RUN_PAGE_TOKEN_SECONDS - 1) * 1000))).toBe(true);
    expect(verifyRunPageToken(token, RUN, keys, new Date(now.getTime() + RUN_PAGE_TOKEN_SECONDS * 1000))).toBe(false);
    expect(verifyRunPageToken(token, `${RUN}x`, keys, now)).toBe(false);
  });

  it('accepts the previous key after a rotation, and nothing unknown, tampered or far-dated', () => {
    expect(verifyRunPageToken(createRunPageToken(RUN, previous, now), RUN, keys, now)).toBe(true);
    expect(verifyRunPageToken(createRunPageToken(RUN, { id: 'k9', secret: 'c'.repeat(48) }, now), RUN, keys, now)).toBe(false);
    const token = createRunPageToken(RUN, current, now);
    const [exp, kid, mac] = token.split('.') as [string, string, string];
    expect(verifyRunPageToken(`${Number(exp) + 1}.${kid}.${mac}`, RUN, keys, now)).toBe(false);
    expect(verifyRunPageToken(`${exp}.${kid}.${mac.slice(0, -1)}${mac.endsWith('A') ? 'B' : 'A'}`, RUN, keys, now)).toBe(false);
    // Signed, but valid for longer than any page token is issued for.
    const farNow = new Date(now.getTime() + 10 * 86_400_000);
    expect(verifyRunPageToken(createRunPageToken(RUN, current, farNow), RUN, keys, now)).toBe(false);
    for (const bad of [undefined, '', 'x', `${exp}.${kid}`, `${exp}.${kid}.${mac}.x`]) expect(verifyRunPageToken(bad, RUN, keys, now)).toBe(false);
  });
});
