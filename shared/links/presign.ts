import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { StorageError, transientAwsFailure } from '../core/errors';
import { attachmentDisposition } from '../storage/content-disposition';
import { assertValidKey, joinKey, normalisePrefix } from '../storage/storage-keys';
import type { Clock } from '../core/clock';

export interface PresignOptions {
  /** Default 3600. SigV4 allows at most 7 days. */
  readonly expiresInSeconds?: number;
  /** Offered to the browser as the file name (Content-Disposition override). */
  readonly downloadName?: string;
}

/** Returns a GET URL for a key relative to the presigner's prefix. */
export type PresignGet = (key: string, options?: PresignOptions) => Promise<string>;

export interface Presigner {
  readonly presignGet: PresignGet;
}

export const DEFAULT_PRESIGN_SECONDS = 3600;
/** SigV4 query signatures cannot be valid for longer than a week. */
export const MAX_PRESIGN_SECONDS = 7 * 24 * 3600;

/**
 * Presigned GET URLs for objects of one bucket/prefix. Signing is local (no request to S3), but a
 * URL signed with temporary credentials (a Lambda role) stops working when that session expires,
 * whatever `expiresInSeconds` says: long-lived e-mail links therefore go through link tokens and
 * the link endpoint (link-token.ts, link-redirect.ts), which presign at click time.
 */
export function createPresigner(options: {
  client?: S3Client;
  bucket: string;
  prefix?: string;
  /** The signing time; injected in tests to sign a URL that has already expired. */
  clock?: Clock;
}): Presigner {
  const client = options.client ?? new S3Client({});
  const prefix = normalisePrefix(options.prefix);
  return {
    presignGet: async (key, { expiresInSeconds = DEFAULT_PRESIGN_SECONDS, downloadName } = {}) => {
      assertValidKey(key);
      if (!Number.isInteger(expiresInSeconds) || expiresInSeconds < 1 || expiresInSeconds > MAX_PRESIGN_SECONDS) {
        throw new StorageError(`presigned URL lifetime must be 1 to ${MAX_PRESIGN_SECONDS} seconds, not ${expiresInSeconds}`);
      }
      const fullKey = joinKey(prefix, key);
      const command = new GetObjectCommand({
        Bucket: options.bucket,
        Key: fullKey,
        ...(downloadName !== undefined && { ResponseContentDisposition: attachmentDisposition(downloadName) }),
      });
      try {
        return await getSignedUrl(client, command, {
          expiresIn: expiresInSeconds,
          ...(options.clock && { signingDate: options.clock() }),
        });
      } catch (error) {
        const detail = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
        throw new StorageError(`could not presign s3://${options.bucket}/${fullKey}: ${detail}`, { cause: error, retryable: transientAwsFailure(error) });
      }
    },
  };
}
