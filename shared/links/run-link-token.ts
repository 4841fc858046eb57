import { createHash, randomBytes } from 'node:crypto';
import * as z from 'zod';
import { ConfigError } from '../core/errors';
import {
  LINK_TOKEN_VERSION,
  MAX_LINK_LIFETIME_SECONDS,
  sealToken,
  verifySignedToken,
  type LinkKey,
  type LinkVerificationKeys,
} from './link-token';

/**
 * Run links: a token that lets a person start (or join) an export of ONE configured report from a
 * browser (`GET /run/{token}`). Same format, keys, rotation and maximum lifetime as the download
 * links (link-token.ts); the payload differs (`use: "run"`, strict on both sides), so neither kind
 * of token is accepted where the other is expected.
 *
 * Each token has a random id (`jti`): the start limit counts per id and revocation lists ids, so a
 * leaked link can be cut off without rotating the key every other link depends on.
 */

const reportNameSchema = z.string().regex(/^[a-z0-9][a-z0-9-]{0,63}$/, 'must be a configured report name');
/** 16 random bytes, base64url. */
export const RUN_LINK_ID_PATTERN = /^[A-Za-z0-9_-]{22}$/;

export const runLinkPayloadSchema = z.strictObject({
  v: z.literal(LINK_TOKEN_VERSION),
  use: z.literal('run'),
  kid: z.string(),
  report: reportNameSchema,
  jti: z.string().regex(RUN_LINK_ID_PATTERN),
  /** The locale of the reader the link was sent to, when it is not the report's: the run page speaks it. */
  lang: z.string().min(2).max(35).optional(),
  /** Expiry, seconds since the epoch. */
  exp: z.number().int().positive(),
});
export type RunLinkClaims = z.infer<typeof runLinkPayloadSchema>;

export interface CreatedRunLink {
  readonly token: string;
  /** The token's id, for revocation (`revoke <id>`); not a secret. */
  readonly id: string;
  readonly expiresAt: Date;
}

/**
 * The id of the run link a run's message carries: derived from the run and the message (`email`,
 * `slack` …), so every attempt and every door builds the same link for the same run (the demo's
 * e-mail is byte for byte the deployed stack's), while two messages of one run can be revoked apart.
 */
export function messageRunLinkId(report: string, runId: string, message: string): string {
  return createHash('sha256').update(`run-link\n${report}\n${runId}\n${message}`).digest('base64url').slice(0, 22);
}

export function createRunLinkToken(
  claims: { report: string; expiresAt: Date; id?: string; lang?: string | undefined },
  key: LinkKey,
  now: Date,
): CreatedRunLink {
  const lifetime = (claims.expiresAt.getTime() - now.getTime()) / 1000;
  if (!(lifetime > 0 && lifetime <= MAX_LINK_LIFETIME_SECONDS)) {
    throw new ConfigError(`a run link must expire in the future and at most ${MAX_LINK_LIFETIME_SECONDS / 86400} days away`);
  }
  const parsed = runLinkPayloadSchema.safeParse({
    v: LINK_TOKEN_VERSION,
    use: 'run',
    kid: key.id,
    report: claims.report,
    jti: claims.id ?? randomBytes(16).toString('base64url'),
    ...(claims.lang !== undefined && { lang: claims.lang }),
    exp: Math.floor(claims.expiresAt.getTime() / 1000),
  });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ConfigError(`cannot create a run link: ${issue?.path.join('.') ?? ''} ${issue?.message ?? ''}`.trim(), {
      cause: parsed.error,
    });
  }
  return { token: sealToken(parsed.data, key), id: parsed.data.jti, expiresAt: new Date(parsed.data.exp * 1000) };
}

/**
 * The claims of a valid run-link token, or LinkTokenError with the one public message (reason on
 * the error for logs, see linkTokenFailure). Revocation is not checked here: it needs the ledger.
 */
export function verifyRunLinkToken(token: string, keys: LinkVerificationKeys, now: Date): RunLinkClaims {
  return verifySignedToken(token, keys, runLinkPayloadSchema, now);
}
