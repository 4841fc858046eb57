import { constants, type Stats } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { formatBytes } from '../format-bytes';

/**
 * Opening a FIFO for reading waits for a writer, forever if none comes, and holds a thread of the
 * pool while it waits: the process then cannot even exit on SIGINT or SIGTERM (exit waits for that
 * thread). Non-blocking, the open returns at once, so the file's kind is checked on the open handle
 * (no window between a check and the open); on a regular file the flag changes nothing. Windows has
 * no such flag and no FIFOs at a path.
 */
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);

/** Largest file a command reads by default: a report definition or a stack's outputs are a few kilobytes. */
export const MAX_ARGUMENT_FILE_BYTES = 16 * 1024 * 1024;

export interface RegularFileRead {
  /** How messages name the file: `credentials file "./creds.json"`. */
  readonly label: string;
  /** Largest file read (default MAX_ARGUMENT_FILE_BYTES); a longer one is refused (a device or a log given by mistake costs no memory). */
  readonly maxBytes?: number;
  /** What to add when the file is too large; default "check the path". */
  readonly tooLargeHint?: string;
  /** What to add when the path is no regular file; default "give the path of the file itself". */
  readonly notFileHint?: string;
  /** The error a caller's layer throws with `message` (which names the file by its label). */
  readonly error: (message: string, cause?: unknown) => Error;
}

/**
 * The text (UTF-8) of the regular file at `path`, for every command that reads a file it was given:
 * a FIFO, a directory, a device or a socket is refused by name at once instead of blocking or failing
 * later, and so is a file over `maxBytes`.
 */
export async function readRegularFile(path: string, read: RegularFileRead): Promise<string> {
  const how = { maxBytes: MAX_ARGUMENT_FILE_BYTES, tooLargeHint: 'check the path', notFileHint: 'give the path of the file itself', ...read };
  let handle: FileHandle;
  try {
    handle = await open(path, OPEN_FLAGS);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === 'ENOENT') throw how.error(`${how.label} was not found`, error);
    if (code === 'EACCES') throw how.error(`${how.label} is not readable (permission denied)`, error);
    if (code === 'EISDIR') throw how.error(`${how.label} is a directory, not a regular file; ${how.notFileHint}`, error);
    throw how.error(`${how.label} could not be read: ${String(code ?? error)}`, error);
  }
  try {
    return await readOpenFile(handle, how);
  } finally {
    await handle.close();
  }
}

async function readOpenFile(handle: FileHandle, how: Required<RegularFileRead>): Promise<string> {
  const stats = await handle.stat();
  if (!stats.isFile()) throw how.error(`${how.label} is ${kindOf(stats)}, not a regular file; ${how.notFileHint}`);
  // Read until the end rather than trust the size (the file may grow after the stat), and stop one
  // chunk past the limit.
  const chunks: Buffer[] = [];
  let length = 0;
  for (;;) {
    const chunk = Buffer.alloc(64 * 1024);
    const { bytesRead } = await handle.read(chunk, 0, chunk.length, length);
    if (bytesRead === 0) break;
    chunks.push(chunk.subarray(0, bytesRead));
    length += bytesRead;
    if (length > how.maxBytes) throw how.error(`${how.label} is larger than ${formatBytes(how.maxBytes)}, ${how.tooLargeHint}`);
  }
  return Buffer.concat(chunks, length).toString('utf8');
}

function kindOf(stats: Stats): string {
  if (stats.isFIFO()) return 'a named pipe (FIFO)';
  if (stats.isDirectory()) return 'a directory';
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return 'a device';
  if (stats.isSocket()) return 'a socket';
  return 'something other than a file';
}
