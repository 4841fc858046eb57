import { randomBytes } from 'node:crypto';
import { mkdir, open, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { errorMessage, StorageError, transientFsFailure } from '../core/errors';
import type { Ledger, LedgerEntry, LedgerPutOptions } from './ledger';

/** A lock older than this was left by a killed process: it guards a few milliseconds of work. */
const STALE_LOCK_MS = 30_000;
/** How long a writer waits for another writer's lock before giving up with a clear error. */
const LOCK_WAIT_MS = 10_000;

interface StoredEntry {
  readonly version: number;
  readonly value: unknown;
  readonly expiresAt?: string;
}

/**
 * The ledger in a local directory (the export command with --out), one JSON file per key. A write
 * takes `<file>.lock` with an exclusive create (`wx`: exactly one process succeeds), compares the
 * version, writes a temporary file and renames it into place (atomic within a directory), then
 * drops the lock. Readers never take the lock: a rename never shows them half a file. Several
 * processes may share one directory (e.g. two exports into one --out); that is the point.
 */
export class LocalLedger implements Ledger {
  constructor(private readonly directory: string) {}

  async get(key: string): Promise<LedgerEntry | undefined> {
    const file = this.fileOf(key);
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      if (isErrno(error, 'ENOENT')) return undefined;
      throw new StorageError(`could not read the run ledger entry ${file}: ${errorMessage(error)}`, { cause: error, retryable: transientFsFailure(error) });
    }
    try {
      const stored = JSON.parse(text) as StoredEntry;
      if (typeof stored.version !== 'number' || stored.version < 1) throw new Error('no version');
      return { value: stored.value, version: stored.version };
    } catch (error) {
      throw new StorageError(
        `the run ledger entry ${file} is corrupt (${errorMessage(error)}); remove it if no export is running`,
        { cause: error },
      );
    }
  }

  async put(key: string, value: unknown, expectedVersion: number, options: LedgerPutOptions = {}): Promise<boolean> {
    const file = this.fileOf(key);
    await mkdir(this.directory, { recursive: true }).catch((error: unknown) => {
      throw new StorageError(`could not create the run ledger directory ${this.directory}: ${errorMessage(error)}`, { cause: error, retryable: transientFsFailure(error) });
    });
    const release = await this.lock(file);
    try {
      const current = await this.get(key);
      if ((current?.version ?? 0) !== expectedVersion) return false;
      const stored: StoredEntry = {
        version: expectedVersion + 1,
        value,
        ...(options.expiresAt && { expiresAt: options.expiresAt.toISOString() }),
      };
      const temp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
      try {
        await writeFile(temp, JSON.stringify(stored), { flag: 'wx' });
        await rename(temp, file);
      } catch (error) {
        await rm(temp, { force: true });
        throw new StorageError(`could not write the run ledger entry ${file}: ${errorMessage(error)}`, { cause: error, retryable: transientFsFailure(error) });
      }
      return true;
    } finally {
      await release();
    }
  }

  describe(): string {
    return this.directory;
  }

  private fileOf(key: string): string {
    // One flat file per key; encoding '/' (and everything else) keeps every name inside the directory.
    return path.join(this.directory, `${encodeURIComponent(key)}.json`);
  }

  private async lock(file: string): Promise<() => Promise<void>> {
    const lockFile = `${file}.lock`;
    const deadline = Date.now() + LOCK_WAIT_MS;
    for (let attempt = 0; ; attempt++) {
      try {
        const handle = await open(lockFile, 'wx');
        await handle.close();
        return () => rm(lockFile, { force: true });
      } catch (error) {
        if (!isErrno(error, 'EEXIST')) {
          throw new StorageError(`could not lock the run ledger entry ${file}: ${errorMessage(error)}`, { cause: error, retryable: transientFsFailure(error) });
        }
      }
      const age = await stat(lockFile).then((s) => Date.now() - s.mtimeMs, () => 0);
      if (age > STALE_LOCK_MS) {
        // Left by a process that died holding it; removing it is safe because no holder lives that long.
        await rm(lockFile, { force: true });
        continue;
      }
      if (Date.now() > deadline) {
        throw new StorageError(`the run ledger entry ${file} stayed locked for ${LOCK_WAIT_MS / 1000} s (${lockFile}); try again`, { retryable: true });
      }
      await delay(2 + Math.min(attempt, 20) + Math.floor(Math.random() * 5));
    }
  }
}

function isErrno(error: unknown, code: string): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === code;
}
