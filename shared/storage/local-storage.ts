import { createHash, randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { constants as fsConstants } from 'node:fs';
import { copyFile, open, readFile, readdir, rename, rm, rmdir, writeFile, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { Writable } from 'node:stream';
import { errorMessage, retryableCause, StorageError, transientFsFailure } from '../core/errors';
import { makeDirectory } from '../core/files/make-directory';
import type { ObjectMetadata, ObjectUpload, Storage, StoredObject } from './storage';
import { assertValidKey, assertValidMetadata, assertValidPrefix } from './storage-keys';

/** Temporary files are dot-files with this suffix next to their target; listings skip them. */
const PARTIAL_SUFFIX = '.partial';

/**
 * The storage port over a local directory (the demo and the export command). Objects are written to
 * a temporary file in the target's directory and renamed into place, so a reader never sees a
 * half-written file under a key: rename within one directory is atomic on POSIX file systems.
 * Content type and metadata are validated like S3's but not stored (a directory has nowhere to put
 * them).
 */
export class LocalDirectoryStorage implements Storage {
  readonly root: string;

  constructor(root: string) {
    this.root = root;
  }

  openUpload(key: string, meta: ObjectMetadata): ObjectUpload {
    const target = this.pathOf(key);
    assertValidMetadata(key, meta.metadata);
    return new LocalUpload(this.root, key, target, this.describe(key));
  }

  async putObject(key: string, body: string | Uint8Array, meta: ObjectMetadata): Promise<StoredObject> {
    const target = this.pathOf(key);
    assertValidMetadata(key, meta.metadata);
    const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
    const temp = tempPathFor(target);
    try {
      await makeDirectory(path.dirname(target));
      await writeFile(temp, bytes, { flag: 'wx' });
      await rename(temp, target);
    } catch (error) {
      await rm(temp, { force: true }).catch(() => undefined);
      throw new StorageError(`could not write ${this.describe(key)}: ${errorMessage(error)}`, { cause: error, retryable: transientFsFailure(error) });
    }
    return { key, bytes: bytes.byteLength, sha256: createHash('sha256').update(bytes).digest('hex') };
  }

  async getObject(key: string): Promise<Uint8Array | undefined> {
    const target = this.pathOf(key);
    try {
      return new Uint8Array(await readFile(target));
    } catch (error) {
      // A directory is not an object either: S3 has no directories to read.
      if (isErrno(error, 'ENOENT') || isErrno(error, 'EISDIR') || isErrno(error, 'ENOTDIR')) return undefined;
      throw new StorageError(`could not read ${this.describe(key)}: ${errorMessage(error)}`, { cause: error, retryable: transientFsFailure(error) });
    }
  }

  async readObject(key: string): Promise<AsyncIterable<Uint8Array> | undefined> {
    const target = this.pathOf(key);
    let handle: FileHandle;
    try {
      handle = await open(target, 'r');
      if (!(await handle.stat()).isFile()) {
        await handle.close();
        return undefined;
      }
    } catch (error) {
      if (isErrno(error, 'ENOENT') || isErrno(error, 'EISDIR') || isErrno(error, 'ENOTDIR')) return undefined;
      throw new StorageError(`could not read ${this.describe(key)}: ${errorMessage(error)}`, { cause: error, retryable: transientFsFailure(error) });
    }
    return this.chunksOf(key, handle);
  }

  /** The file's chunks, a failure while reading as a StorageError; the file is closed when the reader stops. */
  private async *chunksOf(key: string, handle: FileHandle): AsyncGenerator<Uint8Array> {
    try {
      for await (const chunk of handle.createReadStream({ autoClose: false })) yield chunk as Buffer;
    } catch (error) {
      throw new StorageError(`could not read ${this.describe(key)}: ${errorMessage(error)}`, { cause: error, retryable: transientFsFailure(error) });
    } finally {
      await handle.close();
    }
  }

  async listKeys(prefix: string): Promise<string[]> {
    assertValidPrefix(prefix);
    // Only the directory holding the prefix's last segment can contain matches; prefixes need not
    // end at a '/' (S3 semantics: 'a/b' matches 'a/b.csv' and 'a/bc/d').
    const slash = prefix.lastIndexOf('/');
    const startDir = slash < 0 ? '' : prefix.slice(0, slash);
    const keys: string[] = [];
    try {
      await this.walk(startDir, (name) => !isPartialName(name), keys);
    } catch (error) {
      throw new StorageError(`could not list ${this.describe(prefix)}: ${errorMessage(error)}`, { cause: error, retryable: transientFsFailure(error) });
    }
    return keys.filter((k) => k.startsWith(prefix)).sort();
  }

  /** Copied to a temporary file beside the target and renamed into place: `to` is whole or absent. */
  async copyObject(from: string, to: string, labels: Readonly<Record<string, string>> = {}): Promise<void> {
    const source = this.pathOf(from);
    const target = this.pathOf(to);
    assertValidMetadata(to, labels);
    const temp = tempPathFor(target);
    try {
      await makeDirectory(path.dirname(target));
      await copyFile(source, temp, fsConstants.COPYFILE_EXCL);
      await rename(temp, target);
    } catch (error) {
      await rm(temp, { force: true }).catch(() => undefined);
      const missing = isErrno(error, 'ENOENT') ? ' (the source is missing)' : '';
      throw new StorageError(`could not copy ${this.describe(from)} to ${this.describe(to)}${missing}: ${errorMessage(error)}`, {
        cause: error,
        retryable: transientFsFailure(error),
      });
    }
  }

  async deleteObjects(keys: readonly string[]): Promise<void> {
    for (const key of keys) assertValidKey(key);
    for (const key of keys) {
      const target = this.pathOf(key);
      try {
        await rm(target, { force: true });
      } catch (error) {
        throw new StorageError(`could not delete ${this.describe(key)}: ${errorMessage(error)}`, { cause: error, retryable: transientFsFailure(error) });
      }
      await removeEmptyParents(this.root, path.dirname(target));
    }
  }

  async hashObject(key: string): Promise<StoredObject | undefined> {
    const target = this.pathOf(key);
    const hash = createHash('sha256');
    let bytes = 0;
    try {
      for await (const chunk of createReadStream(target)) {
        hash.update(chunk as Buffer);
        bytes += (chunk as Buffer).byteLength;
      }
    } catch (error) {
      if (isErrno(error, 'ENOENT') || isErrno(error, 'EISDIR') || isErrno(error, 'ENOTDIR')) return undefined;
      throw new StorageError(`could not read ${this.describe(key)}: ${errorMessage(error)}`, { cause: error, retryable: transientFsFailure(error) });
    }
    return { key, bytes, sha256: hash.digest('hex') };
  }

  async removeIncomplete(prefix: string): Promise<void> {
    assertValidPrefix(prefix);
    const dir = prefix.endsWith('/') ? prefix.slice(0, -1) : prefix;
    const found: string[] = [];
    try {
      await this.walk(dir, isPartialName, found);
      // Unfinished uploads' names are not keys (pathOf would refuse them); their folders were checked on the way down.
      for (const key of found) await rm(path.resolve(this.root, ...key.split('/')), { force: true });
    } catch (error) {
      throw new StorageError(`could not remove unfinished uploads under ${this.describe(prefix)}: ${errorMessage(error)}`, { cause: error, retryable: transientFsFailure(error) });
    }
  }

  /** A directory has no place for labels; the manifest carries the same figures. */
  annotate(key: string, _labels: Readonly<Record<string, string>>): Promise<void> {
    assertValidKey(key);
    return Promise.resolve();
  }

  describe(key?: string): string {
    return key === undefined ? this.root : path.join(this.root, ...key.split('/'));
  }

  private pathOf(key: string): string {
    assertValidKey(key);
    const root = path.resolve(this.root);
    const target = path.resolve(root, ...key.split('/'));
    // Defence in depth: assertValidKey already rejects everything that could leave the root.
    if (!target.startsWith(root + path.sep)) throw new StorageError(`invalid storage key "${key}": outside the root`);
    return target;
  }

  /** Keys of the files below `relativeDir` (relative to the root) whose name `wanted` accepts. */
  private async walk(relativeDir: string, wanted: (name: string) => boolean, into: string[]): Promise<void> {
    const dir = relativeDir === '' ? path.resolve(this.root) : this.pathOf(relativeDir);
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch (error) {
      if (isErrno(error, 'ENOENT') || isErrno(error, 'ENOTDIR')) return;
      throw error;
    }
    for (const entry of entries) {
      const key = relativeDir === '' ? entry.name : `${relativeDir}/${entry.name}`;
      if (entry.isDirectory()) await this.walk(key, wanted, into);
      else if (entry.isFile() && wanted(entry.name)) into.push(key);
    }
  }

}

class LocalUpload implements ObjectUpload {
  readonly stream: Writable;
  readonly done: Promise<StoredObject>;
  private readonly temp: string;
  private handle: FileHandle | undefined;
  private renamed = false;
  private finalising: Promise<void> | undefined;
  private closed: Promise<void>;
  private abortion: Promise<void> | undefined;

  constructor(
    private readonly root: string,
    private readonly key: string,
    private readonly target: string,
    private readonly location: string,
  ) {
    this.temp = tempPathFor(target);
    const hash = createHash('sha256');
    let bytes = 0;
    let resolveDone!: (value: StoredObject) => void;
    let rejectDone!: (error: unknown) => void;
    this.done = new Promise<StoredObject>((resolve, reject) => {
      resolveDone = resolve;
      rejectDone = reject;
    });
    // Callers that abort without awaiting `done` must not crash the process with an unhandled
    // rejection; awaiting `done` still rejects.
    this.done.catch(() => undefined);
    let resolveClosed!: () => void;
    this.closed = new Promise<void>((resolve) => (resolveClosed = resolve));

    this.stream = new Writable({
      construct: (callback) => {
        makeDirectory(path.dirname(this.target))
          .then(() => open(this.temp, 'wx'))
          .then((handle) => {
            this.handle = handle;
            callback();
          })
          .catch((error: unknown) => callback(this.wrap('could not create', error)));
      },
      write: (chunk: Buffer, _encoding, callback) => {
        hash.update(chunk);
        bytes += chunk.byteLength;
        this.handle!.write(chunk)
          .then(() => callback())
          .catch((error: unknown) => callback(this.wrap('could not write', error)));
      },
      final: (callback) => {
        this.finalising = (async () => {
          const handle = this.handle!;
          this.handle = undefined;
          // Flush to disk before the rename so a crash cannot leave a complete-looking empty file.
          await handle.datasync();
          await handle.close();
          await rename(this.temp, this.target);
          this.renamed = true;
        })();
        this.finalising.then(
          () => {
            resolveDone({ key: this.key, bytes, sha256: hash.digest('hex') });
            callback();
          },
          (error: unknown) => callback(this.wrap('could not finish', error)),
        );
      },
      destroy: (error, callback) => {
        const handle = this.handle;
        this.handle = undefined;
        void (async () => {
          await handle?.close().catch(() => undefined);
          // A pending final() may still rename; wait for it so the temp file is really gone.
          await this.finalising?.catch(() => undefined);
          if (!this.renamed) await rm(this.temp, { force: true }).catch(() => undefined);
          if (error) rejectDone(error instanceof StorageError ? error : this.wrap('could not write', error));
          else if (!this.renamed) rejectDone(new StorageError(`upload of ${this.location} was closed before it ended`, { retryable: true }));
          resolveClosed();
          callback(error);
        })();
      },
    });
    // Failures reach the caller through `done`; without a listener an abort (which destroys the
    // stream with an error) would be an uncaught 'error' event and crash the process.
    this.stream.on('error', () => undefined);
  }

  abort(reason: Error): Promise<void> {
    this.abortion ??= (async () => {
      const error = new StorageError(`upload of ${this.location} was aborted: ${reason.message}`, { cause: reason, retryable: retryableCause(reason) });
      // After a successful finish the stream is already destroyed (autoDestroy); destroy() is then a
      // no-op and the object is removed below.
      if (!this.stream.destroyed) this.stream.destroy(error);
      await this.closed;
      if (this.renamed) await rm(this.target, { force: true });
      await removeEmptyParents(this.root, path.dirname(this.target));
    })();
    return this.abortion;
  }

  private wrap(what: string, error: unknown): StorageError {
    return new StorageError(`${what} ${this.location}: ${errorMessage(error)}`, { cause: error, retryable: transientFsFailure(error) });
  }
}

/** S3 has no directories; leaving empty ones behind would make the two adapters look different. */
async function removeEmptyParents(rootDir: string, dir: string): Promise<void> {
  const root = path.resolve(rootDir);
  let current = dir;
  while (current.startsWith(root + path.sep)) {
    try {
      await rmdir(current);
    } catch {
      return; // not empty (or already gone): stop climbing
    }
    current = path.dirname(current);
  }
}

function tempPathFor(target: string): string {
  return path.join(path.dirname(target), `.${path.basename(target)}.${randomBytes(6).toString('hex')}${PARTIAL_SUFFIX}`);
}

function isPartialName(name: string): boolean {
  return name.startsWith('.') && name.endsWith(PARTIAL_SUFFIX);
}

function isErrno(error: unknown, code: string): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === code;
}

