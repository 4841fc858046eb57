import { createHmac, timingSafeEqual } from 'node:crypto';
import * as z from 'zod';
import { ConfigError, LinkTokenError } from '../core/errors';
import { isValidKey } from '../storage/storage-keys';

/**
 * Signed tokens for the links in e-mails. A presigned S3 URL dies with the session credentials that
 * signed it (hours for a Lambda role), so e-mails carry a token instead; the link endpoint checks it
 * and presigns a short-lived URL at click time (link-redirect.ts).
 *
 * Format: base64url(JSON payload) "." base64url(HMAC-SHA256(key, first part)). The payload names
 * the key (`kid`) so keys can be rotated: the previous key stays valid for a grace period.
 */

export const LINK_TOKEN_VERSION = 1;
/** Links in e-mails live at most this long (the report definition allows up to 90 days). */
export const MAX_LINK_LIFETIME_SECONDS = 90 * 24 * 3600;
/** Tokens are parsed before their signature is checked, so anything longer is refused unread. */
export const MAX_LINK_TOKEN_LENGTH = 2048;
/** An HMAC-SHA256 key should be at least as long as the hash output. */
export const MIN_LINK_KEY_BYTES = 32;

/** The one message for every refusal: a caller must not learn which check failed. */
export const LINK_TOKEN_PUBLIC_MESSAGE = 'invalid or expired link';

export interface LinkKey {
  readonly id: string;
  readonly secret: Uint8Array | string;
}

export interface LinkVerificationKeys {
  readonly current: LinkKey;
  /** The key before the last rotation; accepted until `retiredAt` + the maximum link lifetime. */
  readonly previous?: LinkKey & { readonly retiredAt?: Date };
}

export interface LinkClaims {
  /** Key of the run folder (where manifest.json is), relative to the storage root. */
  readonly runKey: string;
  /** Path of the file relative to the run folder, e.g. `risks.csv`. */
  readonly file: string;
  readonly expiresAt: Date;
}

/** Why a token was refused: for logs only, never for the response. */
export type LinkTokenFailure =
  | 'malformed'
  | 'oversized'
  | 'unknown-key'
  | 'retired-key'
  | 'bad-signature'
  | 'invalid-payload'
  | 'expired';

const keyIdSchema = z.string().regex(/^[A-Za-z0-9._-]{1,64}$/, 'must be 1-64 letters, digits, ".", "_" or "-"');
const relativeKey = (max: number) =>
  z
    .string()
    .max(max)
    .refine(isValidKey, 'must be a relative path without "..", "." or empty segments');

export const linkTokenPayloadSchema = z.strictObject({
  v: z.literal(LINK_TOKEN_VERSION),
  kid: keyIdSchema,
  run: relativeKey(512),
  file: relativeKey(255),
  /** Expiry, seconds since the epoch. */
  exp: z.number().int().positive(),
});
export type LinkTokenPayload = z.infer<typeof linkTokenPayloadSchema>;

/** The link-key secret: `{ current: {id, secret}, previous?: {id, secret, retiredAt?} }`. */
export const linkKeySchema = z.object({
  id: keyIdSchema,
  secret: z.string().min(MIN_LINK_KEY_BYTES, `must be at least ${MIN_LINK_KEY_BYTES} characters (random)`),
});
/**
 * Secrets Manager can generate only flat JSON, so a freshly deployed link-key secret is
 * `{ currentId, currentSecret }` (see infra); it is read as `{ current: { id, secret } }`.
 * The nested form is what operators write when rotating (current → previous).
 */
function nestFlatKeySet(value: unknown): unknown {
  if (typeof value !== 'object' || value === null || 'current' in value) return value;
  const flat = value as Record<string, unknown>;
  if (flat.currentId === undefined && flat.currentSecret === undefined) return value;
  return {
    current: { id: flat.currentId, secret: flat.currentSecret },
    ...(flat.previousId !== undefined && {
      previous: {
        id: flat.previousId,
        secret: flat.previousSecret,
        ...(flat.previousRetiredAt !== undefined && { retiredAt: flat.previousRetiredAt }),
      },
    }),
  };
}

const nestedLinkKeySetSchema = z
  .object({
    current: linkKeySchema,
    previous: linkKeySchema
      .extend({ retiredAt: z.iso.datetime({ offset: true, message: 'must be an ISO 8601 date-time' }).optional() })
      .optional(),
  })
  .refine((set) => set.previous === undefined || set.previous.id !== set.current.id, {
    message: 'must differ from current.id',
    path: ['previous', 'id'],
  });
export const linkKeySetSchema = z.preprocess(nestFlatKeySet, nestedLinkKeySetSchema);
export type LinkKeySet = z.infer<typeof linkKeySetSchema>;

export function toVerificationKeys(set: LinkKeySet): LinkVerificationKeys {
  const { previous } = set;
  return {
    current: set.current,
    ...(previous !== undefined && {
      previous: {
        id: previous.id,
        secret: previous.secret,
        ...(previous.retiredAt !== undefined && { retiredAt: new Date(previous.retiredAt) }),
      },
    }),
  };
}

export function createLinkToken(claims: LinkClaims, key: LinkKey, now: Date): string {
  const lifetime = (claims.expiresAt.getTime() - now.getTime()) / 1000;
  if (!(lifetime > 0 && lifetime <= MAX_LINK_LIFETIME_SECONDS)) {
    throw new ConfigError(`link expiry must be in the future and at most ${MAX_LINK_LIFETIME_SECONDS / 86400} days away`);
  }
  const parsed = linkTokenPayloadSchema.safeParse({
    v: LINK_TOKEN_VERSION,
    kid: key.id,
    run: claims.runKey,
    file: claims.file,
    exp: Math.floor(claims.expiresAt.getTime() / 1000),
  });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ConfigError(`cannot create a link token: ${issue?.path.join('.') ?? ''} ${issue?.message ?? ''}`.trim(), {
      cause: parsed.error,
    });
  }
  const token = sealToken(parsed.data, key);
  if (token.length > MAX_LINK_TOKEN_LENGTH) {
    throw new ConfigError(`link token for "${claims.runKey}/${claims.file}" would exceed ${MAX_LINK_TOKEN_LENGTH} characters`);
  }
  return token;
}

/**
 * Returns the payload of a valid token, or throws LinkTokenError with the same public message for
 * every failure; the reason is on a non-enumerable `reason` property (see linkTokenFailure).
 */
export function verifyLinkToken(token: string, keys: LinkVerificationKeys, now: Date): LinkTokenPayload {
  return verifySignedToken(token, keys, linkTokenPayloadSchema, now);
}

/**
 * The one verifier of every token of this format (download links, run links in run-link-token.ts):
 * shape, key and signature, then the payload against the kind's own strict schema, then expiry.
 * Throws LinkTokenError with the one public message whatever failed (reason for logs on the error).
 */
export function verifySignedToken<T extends { readonly exp: number }>(
  token: string,
  keys: LinkVerificationKeys,
  schema: z.ZodType<T>,
  now: Date,
): T {
  const payload = schema.safeParse(openSignedToken(token, keys, now));
  if (!payload.success) throw refusal('invalid-payload');
  if (now.getTime() >= payload.data.exp * 1000) throw refusal('expired');
  // No link is issued for longer than the maximum; one that claims to be was not made here.
  if (payload.data.exp * 1000 - now.getTime() > MAX_LINK_LIFETIME_SECONDS * 1000) throw refusal('invalid-payload');
  return payload.data;
}

/** Checks the shape, key and signature of a token and returns its decoded, not yet validated, payload. */
function openSignedToken(token: string, keys: LinkVerificationKeys, now: Date): unknown {
  if (typeof token !== 'string') throw refusal('malformed');
  if (token.length > MAX_LINK_TOKEN_LENGTH) throw refusal('oversized');
  const match = /^([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)$/.exec(token);
  if (match === null) throw refusal('malformed');
  const [, body = '', signature = ''] = match;

  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
  } catch {
    throw refusal('malformed');
  }
  const kid = typeof decoded === 'object' && decoded !== null ? (decoded as { kid?: unknown }).kid : undefined;
  if (typeof kid !== 'string') throw refusal('malformed');

  const key = selectKey(kid, keys, now);
  const expected = sign(keyBytes(key), body);
  const provided = Buffer.from(signature, 'base64url');
  // Re-encoding rejects non-canonical base64url (spare low bits set), so a token has one spelling.
  const canonical = provided.toString('base64url') === signature;
  if (!canonical || provided.byteLength !== expected.byteLength || !timingSafeEqual(provided, expected)) {
    throw refusal('bad-signature');
  }
  return decoded;
}

/** Signs a validated payload: base64url(JSON) "." base64url(HMAC). */
export function sealToken(payload: object, key: LinkKey): string {
  const secret = keyBytes(key);
  if (secret.byteLength < MIN_LINK_KEY_BYTES) {
    throw new ConfigError(`link key "${key.id}" is shorter than ${MIN_LINK_KEY_BYTES} bytes`);
  }
  const body = Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url');
  return `${body}.${sign(secret, body).toString('base64url')}`;
}

/** The internal reason of a refused token, for logs. */
export function linkTokenFailure(error: unknown): LinkTokenFailure | undefined {
  if (!(error instanceof LinkTokenError)) return undefined;
  return (error as LinkTokenError & { reason?: LinkTokenFailure }).reason;
}

function selectKey(kid: string, keys: LinkVerificationKeys, now: Date): LinkKey {
  if (kid === keys.current.id) return keys.current;
  const previous = keys.previous;
  if (previous !== undefined && kid === previous.id) {
    // Every token signed before the rotation has expired by retiredAt + the longest lifetime.
    if (previous.retiredAt !== undefined && now.getTime() > previous.retiredAt.getTime() + MAX_LINK_LIFETIME_SECONDS * 1000) {
      throw refusal('retired-key');
    }
    return previous;
  }
  throw refusal('unknown-key');
}

function sign(secret: Uint8Array, body: string): Buffer {
  return createHmac('sha256', secret).update(body, 'utf8').digest();
}

function keyBytes(key: LinkKey): Uint8Array {
  return typeof key.secret === 'string' ? Buffer.from(key.secret, 'utf8') : key.secret;
}

export function refusal(reason: LinkTokenFailure): LinkTokenError {
  const error = new LinkTokenError(LINK_TOKEN_PUBLIC_MESSAGE);
  // Non-enumerable: serialisers that copy own enumerable properties into a response skip it.
  Object.defineProperty(error, 'reason', { value: reason, enumerable: false });
  return error;
}
