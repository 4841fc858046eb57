import { StorageError } from '../core/errors';

/**
 * Key and metadata rules shared by both storage adapters, so a key or metadata value that works in
 * the local demo also works in the Lambdas (and the other way round).
 */

/** S3's limit on a key is 1,024 bytes (UTF-8); the bucket prefix counts towards it. */
const MAX_KEY_BYTES = 1024;

/** S3 limits user-defined metadata to 2 KB (keys plus values, UTF-8). */
const MAX_METADATA_BYTES = 2048;

/**
 * Rejects keys that could escape the storage root on a file system (`..`, absolute paths, back
 * slashes) or that S3 would store under a different name than the local adapter (empty segments).
 */
export function assertValidKey(key: string): void {
  const problem = keyProblem(key);
  if (problem !== undefined) throw new StorageError(`invalid storage key ${JSON.stringify(key)}: ${problem}`);
}

/** A listing prefix: like a key, but may be empty and may end with '/'. */
export function assertValidPrefix(prefix: string): void {
  if (prefix === '') return;
  const problem = keyProblem(prefix.endsWith('/') ? prefix.slice(0, -1) : prefix);
  if (problem !== undefined) throw new StorageError(`invalid storage prefix ${JSON.stringify(prefix)}: ${problem}`);
}

/** True for a '/'-separated relative key that could be stored by either adapter. */
export function isValidKey(key: string): boolean {
  return keyProblem(key) === undefined;
}

function keyProblem(key: string): string | undefined {
  if (key.length === 0) return 'must not be empty';
  if (Buffer.byteLength(key, 'utf8') > MAX_KEY_BYTES) return `must be at most ${MAX_KEY_BYTES} bytes`;
  if (key.startsWith('/')) return 'must be relative (no leading "/")';
  if (/^[A-Za-z]:/.test(key)) return 'must be relative (no drive letter)';
  if (key.includes('\\')) return 'must use "/" as separator (no "\\")';
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is rejected
  if (/[\u0000-\u001f\u007f]/.test(key)) return 'must not contain control characters';
  for (const segment of key.split('/')) {
    if (segment === '') return 'must not contain empty segments ("//" or a trailing "/")';
    if (segment === '.' || segment === '..') return 'must not contain "." or ".." segments';
  }
  return undefined;
}

/**
 * S3 sends user metadata as HTTP headers: names must be header tokens and values printable ASCII
 * (S3 would RFC 2047-encode anything else and hand back a different string).
 */
export function assertValidMetadata(key: string, metadata: Readonly<Record<string, string>> | undefined): void {
  if (metadata === undefined) return;
  let size = 0;
  for (const [name, value] of Object.entries(metadata)) {
    if (!/^[A-Za-z0-9-]+$/.test(name)) {
      throw new StorageError(`metadata name ${JSON.stringify(name)} of "${key}" must be letters, digits and "-"`);
    }
    if (!/^[\x20-\x7e]*$/.test(value)) {
      throw new StorageError(`metadata "${name}" of "${key}" must be printable ASCII`);
    }
    size += name.length + value.length;
  }
  if (size > MAX_METADATA_BYTES) {
    throw new StorageError(`metadata of "${key}" is ${size} bytes; at most ${MAX_METADATA_BYTES} are allowed`);
  }
}

/** Joins a root prefix (no leading or trailing '/') and a relative key. */
export function joinKey(prefix: string, key: string): string {
  return prefix === '' ? key : `${prefix}/${key}`;
}

/** Normalises a configured prefix: `reports/`, `/reports` and `reports` all become `reports`. */
export function normalisePrefix(prefix: string | undefined): string {
  const trimmed = (prefix ?? '').replace(/^\/+|\/+$/g, '');
  if (trimmed !== '') assertValidPrefix(trimmed);
  return trimmed;
}
