import * as z from 'zod';
import { ConfigError } from '../core/errors';
import { LINK_TOKEN_VERSION, MAX_LINK_LIFETIME_SECONDS, sealToken, verifySignedToken, type LinkKey, type LinkVerificationKeys } from './link-token';

/**
 * The token of an e-mail's unsubscribe link (`/unsubscribe/<token>`, RFC 8058 one-click): which
 * report and which recipient, signed with the link keys like every other link, so nobody can pause
 * another address or another report. No random id: the same run, recipient and key give the same
 * link, so a retried send and the demo's outbox carry the same bytes. It lives as long as links may
 * (90 days): people unsubscribe from old messages too.
 */
export const unsubscribePayloadSchema = z.strictObject({
  v: z.literal(LINK_TOKEN_VERSION),
  use: z.literal('unsubscribe'),
  kid: z.string(),
  report: z.string().regex(/^[a-z0-9][a-z0-9-]{0,127}$/, 'must be a configured report name'),
  /** The recipient, lower-cased. */
  to: z.string().min(3).max(254),
  /** The recipient's locale, when it is not the report's: the unsubscribe pages speak it. */
  lang: z.string().min(2).max(35).optional(),
  /** Expiry, seconds since the epoch. */
  exp: z.number().int().positive(),
});
export type UnsubscribeClaims = z.infer<typeof unsubscribePayloadSchema>;

export function createUnsubscribeToken(claims: { report: string; address: string; lang?: string | undefined }, key: LinkKey, now: Date): string {
  const parsed = unsubscribePayloadSchema.safeParse({
    v: LINK_TOKEN_VERSION,
    use: 'unsubscribe',
    kid: key.id,
    report: claims.report,
    to: claims.address.toLowerCase(),
    ...(claims.lang !== undefined && { lang: claims.lang }),
    exp: Math.floor(now.getTime() / 1000) + MAX_LINK_LIFETIME_SECONDS,
  });
  if (!parsed.success) throw new ConfigError(`cannot create an unsubscribe link: ${parsed.error.issues[0]?.message ?? 'invalid'}`, { cause: parsed.error });
  return sealToken(parsed.data, key);
}

/** The claims of a valid unsubscribe token, or LinkTokenError with the one public message. */
export function verifyUnsubscribeToken(token: string, keys: LinkVerificationKeys, now: Date): UnsubscribeClaims {
  return verifySignedToken(token, keys, unsubscribePayloadSchema, now);
}
