import { AuthenticationError } from '../core/errors';
import type { Credentials } from '../planning-api/credentials';

export interface CredentialsSource {
  /** `forceFetch` bypasses any cache (after a 401 the cached key may have been rotated). */
  getCredentials(options?: { forceFetch?: boolean }): Promise<Credentials>;
}

/**
 * Runs `fn` with the current credentials. When it fails with AuthenticationError the secret is read
 * again past the cache: if the key was rotated meanwhile, `fn` is retried once with the new
 * credentials; if nothing changed the original error is rethrown (retrying would fail the same way).
 */
export async function withCredentialRefresh<T>(
  source: CredentialsSource,
  fn: (credentials: Credentials) => Promise<T>,
): Promise<T> {
  const credentials = await source.getCredentials();
  try {
    return await fn(credentials);
  } catch (error) {
    if (!(error instanceof AuthenticationError)) throw error;
    const fresh = await rotatedCredentials(source, credentials);
    if (!fresh) throw error;
    return await fn(fresh);
  }
}

/**
 * The credentials read once more past the cache after `used` were refused (401/403), or undefined
 * when they did not change (the refusal stands: trying again would fail the same way).
 */
export async function rotatedCredentials(source: CredentialsSource, used: Credentials): Promise<Credentials | undefined> {
  const fresh = await source.getCredentials({ forceFetch: true });
  return sameCredentials(used, fresh) ? undefined : fresh;
}

function sameCredentials(a: Credentials, b: Credentials): boolean {
  return (
    a.apiKey === b.apiKey &&
    a.email === b.email &&
    a.baseUrl === b.baseUrl &&
    a.legacyBaseUrl === b.legacyBaseUrl &&
    a.companyPrefix === b.companyPrefix
  );
}
