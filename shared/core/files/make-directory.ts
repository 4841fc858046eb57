import { mkdir, stat } from 'node:fs/promises';
import path from 'node:path';

/**
 * `mkdir -p` that always ends. Node's `mkdir(…, { recursive: true })` never settles where a parent
 * exists but a child cannot be created in it with ENOENT (pseudo file systems: `--out /proc/self`),
 * so every missing level is created here one at a time, and that case is an error naming the
 * directory that cannot hold folders.
 */
export async function makeDirectory(directory: string): Promise<void> {
  const missing: string[] = [];
  for (let at = path.resolve(directory); ; at = path.dirname(at)) {
    const info = await stat(at).catch((error: unknown) => {
      if (errnoOf(error) === 'ENOENT') return undefined;
      throw error;
    });
    if (info) {
      if (!info.isDirectory()) throw Object.assign(new Error(`${at} is not a directory`), { code: 'ENOTDIR' });
      break;
    }
    missing.unshift(at);
    if (path.dirname(at) === at) break;
  }
  for (const level of missing) {
    try {
      await mkdir(level);
    } catch (error) {
      if (errnoOf(error) === 'EEXIST') continue;
      if (errnoOf(error) === 'ENOENT') {
        throw Object.assign(new Error(`cannot create folders in ${path.dirname(level)} (not a writable file system); choose another directory`), {
          code: 'ENOENT',
          cause: error,
        });
      }
      throw error;
    }
  }
}

function errnoOf(error: unknown): unknown {
  return typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
}
