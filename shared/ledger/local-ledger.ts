import { randomBytes } from 'node:crypto';
import { link, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { errorMessage, StorageError, transientFsFailure } from '../core/errors';
import { makeDirectory } from '../core/files/make-directory';
import type { Ledger, LedgerEntry, LedgerPutOptions } from './ledger';

/** Versions kept per key: readers that listed the folder a moment ago still find what they listed. */
const KEPT_VERSIONS = 4;
/** Reads retried when the version just listed was removed by a newer writer in between. */
const READ_ATTEMPTS = 5;

interface StoredEntry {
  readonly version: number;
  readonly value: unknown;
  readonly expiresAt?: string;
  /** Who wrote this version (a random id per put), and whose version it replaced. */
  readonly writer?: string;
  readonly after?: string;
}

export interface LocalLedgerOptions {
  /**
   * Called after a writer has read and compared the version and before it commits: tests pause a
   * writer here to show that a slow writer cannot move an entry backward, whatever the delay.
   */
  readonly beforeCommit?: (key: string) => Promise<void>;
  /** Called after a writer published its version and before it looks for newer ones: tests let another writer in here. */
  readonly afterCommit?: (key: string) => Promise<void>;
}

/**
 * The ledger in a local directory (the export command with --out): one folder per key, one file per
 * version (`<version>.json`). A put is a compare-and-swap on the version, as DynamoDB's condition
 * is: the new version's file is published with `link`, which fails if that file exists, so of two
 * writers of one version exactly one wins, however long either was paused. There are no locks to
 * go stale and nothing is taken over by age. A writer that finds a newer version than its own after
 * publishing (its version number had been cleared away long ago) takes its file back and loses,
 * unless the next version names it as the one it replaced: then another writer was quicker to build
 * on it than this one was to look, and the write stands.
 * Readers list the folder and read the highest version. Several processes may share one directory
 * (e.g. two exports into one --out); that is the point.
 */
export class LocalLedger implements Ledger {
  constructor(
    private readonly directory: string,
    private readonly options: LocalLedgerOptions = {},
  ) {}

  async get(key: string): Promise<LedgerEntry | undefined> {
    const stored = await this.latest(key);
    return stored && { value: stored.value, version: stored.version };
  }

  async put(key: string, value: unknown, expectedVersion: number, options: LedgerPutOptions = {}): Promise<boolean> {
    const folder = this.folderOf(key);
    await makeDirectory(folder).catch((error: unknown) => {
      throw new StorageError(`could not create the run ledger directory ${folder}: ${errorMessage(error)}`, { cause: error, retryable: transientFsFailure(error) });
    });
    const current = await this.latest(key);
    if ((current?.version ?? 0) !== expectedVersion) return false;
    await this.options.beforeCommit?.(key);

    const version = expectedVersion + 1;
    const writer = randomBytes(6).toString('hex');
    const stored: StoredEntry = {
      version,
      value,
      writer,
      ...(current?.writer !== undefined && { after: current.writer }),
      ...(options.expiresAt && { expiresAt: options.expiresAt.toISOString() }),
    };
    const temp = path.join(folder, `.${writer}.tmp`);
    const target = path.join(folder, `${version}.json`);
    try {
      await writeFile(temp, JSON.stringify(stored), { flag: 'wx' });
      // The compare-and-swap: a complete file appears under the new version's name, or EEXIST.
      await link(temp, target);
    } catch (error) {
      if (isErrno(error, 'EEXIST')) return false;
      throw new StorageError(`could not write the run ledger entry ${target}: ${errorMessage(error)}`, { cause: error, retryable: transientFsFailure(error) });
    } finally {
      await rm(temp, { force: true });
    }
    await this.options.afterCommit?.(key);
    const versions = await this.versionsOf(key);
    if (versions.some((v) => v > version)) {
      // Built on by a quicker writer: ours stands (its writer clears the old versions).
      if ((await this.read(key, version + 1))?.after === writer) return true;
      // Our number was free only because it had been cleared away: we are far behind, not ahead.
      await rm(target, { force: true });
      return false;
    }
    await Promise.all(versions.filter((v) => v <= version - KEPT_VERSIONS).map((v) => rm(path.join(folder, `${v}.json`), { force: true })));
    return true;
  }

  describe(): string {
    return this.directory;
  }

  private folderOf(key: string): string {
    // One folder per key; encoding '/' (and everything else) keeps every name inside the directory.
    return path.join(this.directory, encodeURIComponent(key));
  }

  /** The highest version stored for a key, or the earlier layout's entry. */
  private async latest(key: string): Promise<StoredEntry | undefined> {
    for (let attempt = 0; ; attempt++) {
      const latest = (await this.versionsOf(key)).at(-1);
      if (latest === undefined) return this.legacyEntry(key);
      const stored = await this.read(key, latest);
      // Cleared away by a newer writer since the listing: list again.
      if (stored !== undefined) return stored;
      if (attempt >= READ_ATTEMPTS) throw new StorageError(`the run ledger entry ${this.folderOf(key)} kept changing while it was read`, { retryable: true });
    }
  }

  /** One version of a key, or undefined when there is no such file (never written, or cleared away). */
  private async read(key: string, version: number): Promise<StoredEntry | undefined> {
    const file = path.join(this.folderOf(key), `${version}.json`);
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      if (isErrno(error, 'ENOENT')) return undefined;
      throw new StorageError(`could not read the run ledger entry ${file}: ${errorMessage(error)}`, { cause: error, retryable: transientFsFailure(error) });
    }
    return parseEntry(text, file);
  }

  /** The versions stored for a key, ascending. */
  private async versionsOf(key: string): Promise<number[]> {
    let names: string[];
    try {
      names = await readdir(this.folderOf(key));
    } catch (error) {
      if (isErrno(error, 'ENOENT') || isErrno(error, 'ENOTDIR')) return [];
      throw new StorageError(`could not read the run ledger entry ${this.folderOf(key)}: ${errorMessage(error)}`, { cause: error, retryable: transientFsFailure(error) });
    }
    return names
      .map((name) => /^(\d{1,15})\.json$/.exec(name)?.[1])
      .filter((v): v is string => v !== undefined)
      .map(Number)
      .sort((a, b) => a - b);
  }

  /** An entry written by the earlier layout (`<key>.json` next to the folders), read until it is next written. */
  private async legacyEntry(key: string): Promise<StoredEntry | undefined> {
    const file = path.join(this.directory, `${encodeURIComponent(key)}.json`);
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      if (isErrno(error, 'ENOENT') || isErrno(error, 'EISDIR')) return undefined;
      throw new StorageError(`could not read the run ledger entry ${file}: ${errorMessage(error)}`, { cause: error, retryable: transientFsFailure(error) });
    }
    return parseEntry(text, file);
  }
}

function parseEntry(text: string, file: string): StoredEntry {
  try {
    const stored = JSON.parse(text) as StoredEntry;
    if (typeof stored.version !== 'number' || stored.version < 1) throw new Error('no version');
    return stored;
  } catch (error) {
    throw new StorageError(`the run ledger entry ${file} is corrupt (${errorMessage(error)}); remove it if no export is running`, { cause: error });
  }
}

function isErrno(error: unknown, code: string): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === code;
}
