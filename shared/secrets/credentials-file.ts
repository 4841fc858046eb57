import { constants } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import type { Stats } from 'node:fs';
import { CredentialsError } from '../core/errors';
import { formatBytes } from '../core/format-bytes';
import type { Credentials } from '../planning-api/credentials';
import type { CredentialsSource } from './credential-refresh';
import { parseCredentialsDocument } from './secret-document';

/**
 * Largest credentials file read. A credentials document is a few hundred bytes; anything near this
 * is not one, and reading it whole (a device, a multi-gigabyte log given by mistake) would only
 * cost memory before failing as "not JSON".
 */
export const MAX_CREDENTIALS_FILE_BYTES = 64 * 1024;

/**
 * Opening a FIFO for reading waits for a writer, forever if none comes (and holds a thread of the
 * pool while it waits). Non-blocking, the open returns at once, so the file's kind can be checked on
 * the open handle (no window between a check and the open); on a regular file the flag changes
 * nothing. Windows has no such flag and no FIFOs at a path.
 */
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);

/** Reads the credentials JSON for the command line; same checks and messages as the secret. */
export async function readCredentialsFile(path: string): Promise<Credentials> {
  const label = `credentials file "${path}"`;
  let handle: FileHandle;
  try {
    handle = await open(path, OPEN_FLAGS);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === 'ENOENT') throw new CredentialsError(`${label} was not found`, { cause: error });
    if (code === 'EACCES') throw new CredentialsError(`${label} is not readable (permission denied)`, { cause: error });
    throw new CredentialsError(`${label} could not be read: ${String(code ?? error)}`, { cause: error });
  }
  try {
    return parseCredentialsDocument(await readRegularFile(handle, label), label);
  } finally {
    await handle.close();
  }
}

/** The text of an open regular file of at most MAX_CREDENTIALS_FILE_BYTES; anything else is refused by name. */
async function readRegularFile(handle: FileHandle, label: string): Promise<string> {
  const stats = await handle.stat();
  if (!stats.isFile()) {
    throw new CredentialsError(`${label} is ${kindOf(stats)}, not a regular file; give the path of the JSON document itself`);
  }
  // Read one byte past the limit rather than trust the size: the file may grow after the stat.
  const buffer = Buffer.alloc(MAX_CREDENTIALS_FILE_BYTES + 1);
  let length = 0;
  for (;;) {
    const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length);
    if (bytesRead === 0) break;
    length += bytesRead;
    if (length === buffer.length) {
      throw new CredentialsError(
        `${label} is larger than ${formatBytes(MAX_CREDENTIALS_FILE_BYTES)}, far more than a credentials document; check the path`,
      );
    }
  }
  return buffer.toString('utf8', 0, length);
}

function kindOf(stats: Stats): string {
  if (stats.isFIFO()) return 'a named pipe (FIFO)';
  if (stats.isDirectory()) return 'a directory';
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return 'a device';
  if (stats.isSocket()) return 'a socket';
  return 'something other than a file';
}

/** A CredentialsSource over a file; every call reads it again, so an edited file is picked up. */
export function fileCredentialsSource(path: string): CredentialsSource {
  return { getCredentials: () => readCredentialsFile(path) };
}
