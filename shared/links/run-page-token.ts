import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { LinkKey, LinkVerificationKeys } from './link-token';

/**
 * The per-page token of the run page's "Get a fresh copy" form. Only a POST that carries it starts
 * an export, and only a page served for that run link holds it: a mail scanner that fetches the
 * e-mailed link (GET, HEAD) starts nothing, and a form on another site cannot post one, because the
 * token is an HMAC over the run-link token and an expiry with the link key.
 *
 * Format: `<expiry seconds>.<key id>.<base64url HMAC>`. It is not single-use: pressing the button
 * twice (or 50 tabs at once) joins one export; the start limit and the report's slot see to that.
 */
export const RUN_PAGE_TOKEN_SECONDS = 12 * 3600;

export function createRunPageToken(runToken: string, key: LinkKey, now: Date): string {
  const exp = Math.floor(now.getTime() / 1000) + RUN_PAGE_TOKEN_SECONDS;
  return `${exp}.${key.id}.${mac(key, runToken, exp).toString('base64url')}`;
}

/** True only for a token made by createRunPageToken for this run-link token, not yet expired. */
export function verifyRunPageToken(pageToken: string | undefined, runToken: string, keys: LinkVerificationKeys, now: Date): boolean {
  const match = /^(\d{1,12})\.([A-Za-z0-9._-]{1,64})\.([A-Za-z0-9_-]{43})$/.exec(pageToken ?? '');
  if (!match) return false;
  const [, expText = '', kid, signature = ''] = match;
  const exp = Number(expText);
  if (now.getTime() >= exp * 1000 || exp * 1000 - now.getTime() > RUN_PAGE_TOKEN_SECONDS * 1000) return false;
  const key = kid === keys.current.id ? keys.current : kid === keys.previous?.id ? keys.previous : undefined;
  if (!key) return false;
  const provided = Buffer.from(signature, 'base64url');
  const expected = mac(key, runToken, exp);
  return provided.byteLength === expected.byteLength && provided.toString('base64url') === signature && timingSafeEqual(provided, expected);
}

function mac(key: LinkKey, runToken: string, exp: number): Buffer {
  const secret = typeof key.secret === 'string' ? Buffer.from(key.secret, 'utf8') : key.secret;
  // A distinct purpose string: this MAC can never pass for a link token's signature.
  const subject = createHash('sha256').update(runToken, 'utf8').digest('base64url');
  return createHmac('sha256', secret).update(`run-page\n${subject}\n${exp}`, 'utf8').digest();
}
