import { readFile } from 'node:fs/promises';
import { CredentialsError } from '../core/errors';
import type { Credentials } from '../planning-api/credentials';
import type { CredentialsSource } from './credential-refresh';
import { parseCredentialsDocument } from './secret-document';

/** Reads the credentials JSON for the command line; same checks and messages as the secret. */
export async function readCredentialsFile(path: string): Promise<Credentials> {
  const label = `credentials file "${path}"`;
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === 'ENOENT') throw new CredentialsError(`${label} was not found`, { cause: error });
    if (code === 'EACCES') throw new CredentialsError(`${label} is not readable (permission denied)`, { cause: error });
    throw new CredentialsError(`${label} could not be read: ${String(code ?? error)}`, { cause: error });
  }
  return parseCredentialsDocument(text, label);
}

/** A CredentialsSource over a file; every call reads it again, so an edited file is picked up. */
export function fileCredentialsSource(path: string): CredentialsSource {
  return { getCredentials: () => readCredentialsFile(path) };
}
