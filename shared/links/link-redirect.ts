import { LinkTokenError } from '../core/errors';
import type { Log } from '../core/logger';
import { linkTokenFailure, verifyLinkToken, type LinkVerificationKeys } from './link-token';
import type { PresignGet } from './presign';

export type LinkResolution = { readonly status: 302; readonly location: string } | { readonly status: 403 };

export interface ResolveLinkOptions {
  readonly keys: LinkVerificationKeys;
  readonly presign: PresignGet;
  /** The time of the request. */
  readonly now: Date;
  /** Lifetime of the presigned URL the browser is sent to: only long enough to start the download. */
  readonly ttlSeconds?: number;
  readonly log?: Log;
}

export const DEFAULT_REDIRECT_TTL_SECONDS = 300;

/**
 * The link endpoint's logic: a valid token is redirected to a freshly presigned URL, anything else
 * is a 403. Existence of the object is not checked: answering 404 for valid-but-missing and 403
 * for invalid would tell a guesser which tokens are real. A missing object fails at S3 instead.
 * The Lambda should add `Cache-Control: no-store` and `Referrer-Policy: no-referrer`.
 */
export async function resolveLink(token: string, options: ResolveLinkOptions): Promise<LinkResolution> {
  let payload;
  try {
    payload = verifyLinkToken(token, options.keys, options.now);
  } catch (error) {
    if (!(error instanceof LinkTokenError)) throw error;
    // The token itself is a bearer credential: log why it was refused, never the token.
    options.log?.warn('link refused', { reason: linkTokenFailure(error) ?? 'unknown' });
    return { status: 403 };
  }
  const location = await options.presign(`${payload.run}/${payload.file}`, {
    expiresInSeconds: options.ttlSeconds ?? DEFAULT_REDIRECT_TTL_SECONDS,
    downloadName: payload.file.split('/').pop() ?? payload.file,
  });
  options.log?.info('link resolved', { run: payload.run, file: payload.file, kid: payload.kid });
  return { status: 302, location };
}
