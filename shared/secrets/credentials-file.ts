import { CredentialsError } from '../core/errors';
import { readRegularFile } from '../core/files/regular-file';
import type { Credentials } from '../planning-api/credentials';
import type { CredentialsSource } from './credential-refresh';
import { parseCredentialsDocument } from './secret-document';

/**
 * Largest credentials file read. A credentials document is a few hundred bytes; anything near this
 * is not one, and reading it whole (a device, a multi-gigabyte log given by mistake) would only
 * cost memory before failing as "not JSON".
 */
export const MAX_CREDENTIALS_FILE_BYTES = 64 * 1024;

/** Reads the credentials JSON for the command line; same checks and messages as the secret. */
export async function readCredentialsFile(path: string): Promise<Credentials> {
  const label = `credentials file "${path}"`;
  const text = await readRegularFile(path, {
    label,
    maxBytes: MAX_CREDENTIALS_FILE_BYTES,
    tooLargeHint: 'far more than a credentials document; check the path',
    notFileHint: 'give the path of the JSON document itself',
    error: (message, cause) => new CredentialsError(message, cause === undefined ? undefined : { cause }),
  });
  return parseCredentialsDocument(text, label);
}

/** A CredentialsSource over a file; every call reads it again, so an edited file is picked up. */
export function fileCredentialsSource(path: string): CredentialsSource {
  return { getCredentials: () => readCredentialsFile(path) };
}
