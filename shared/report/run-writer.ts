/**
 * Every write of one attempt of a run goes through its RunWriter: the key is claimed in the ledger
 * before the first byte (so a crash leaves debris the next attempt can find), uploads are tracked
 * (so a failure aborts them), stored files are checked against what was written before any manifest
 * names them, and a failed attempt removes exactly what it wrote. Being the one door for the run's
 * writes, it is also where anything every write must carry is added.
 */
import { errorMessage, StorageError } from '../core/errors';
import type { Log } from '../core/logger';
import type { ObjectMetadata, ObjectUpload, Storage, StoredObject } from '../storage/storage';
import type { ProgressEvent } from './dataset';
import { CONTENT_TYPES } from './layout';
import type { RunLease } from './run-lease';

/** A stored file as a manifest lists it, with its key: what verification compares with the store. */
export interface StoredFile {
  readonly key: string;
  readonly bytes: number;
  readonly sha256: string;
}

export interface RunWriterOptions {
  readonly storage: Storage;
  readonly lease: RunLease;
  readonly runFolder: string;
  /** Object metadata of every file of the run (report, run id). */
  readonly metadata: Readonly<Record<string, string>>;
  readonly onProgress: (event: ProgressEvent) => void;
  readonly log: Log;
}

export class RunWriter {
  private readonly open = new Set<ObjectUpload>();
  /** Keys this attempt wrote or began to write: all it may ever delete. */
  private readonly mine = new Set<string>();

  constructor(private readonly options: RunWriterOptions) {}

  get storage(): Storage {
    return this.options.storage;
  }

  get runFolder(): string {
    return this.options.runFolder;
  }

  /** Records `key` as this attempt's own in the ledger before anything is written to it. */
  async claim(key: string): Promise<void> {
    this.options.lease.check();
    await this.options.lease.renew({ addKeys: [key] });
    this.mine.add(key);
  }

  /** Claims `key` and opens its upload (with the run's metadata); a failed run aborts it. */
  async openUpload(key: string, meta: Omit<ObjectMetadata, 'metadata'>): Promise<ObjectUpload> {
    await this.claim(key);
    const upload = this.options.storage.openUpload(key, { ...meta, metadata: this.options.metadata });
    this.open.add(upload);
    return upload;
  }

  /**
   * Waits until an upload is stored. A file for people (`rows` given) is announced as progress and
   * labelled with its row count; the run's own bookkeeping (snapshots) is neither.
   */
  async stored(upload: ObjectUpload, rows?: number): Promise<StoredObject> {
    const object = await upload.done;
    this.open.delete(upload);
    if (rows === undefined) return object;
    this.options.onProgress({ type: 'file-stored', path: object.key, bytes: object.bytes });
    await this.options.storage.annotate(object.key, { ...this.options.metadata, rows: String(rows) });
    return object;
  }

  /**
   * Writes an object shared by every run of the report (a table's `_schema.json`): not claimed, as no
   * failed run may remove what the runs before it published.
   */
  async putShared(key: string, body: string): Promise<void> {
    await this.options.storage.putObject(key, body, { contentType: CONTENT_TYPES.json });
  }

  /** Stores the run's manifest: claimed like every file, written only after all it lists was verified. */
  async putManifest(key: string, body: string): Promise<void> {
    await this.claim(key);
    await this.options.storage.putObject(key, body, { contentType: CONTENT_TYPES.json });
  }

  /** Checks every listed file against what the store holds now (size and sha256, re-read). */
  async verify(files: readonly StoredFile[]): Promise<void> {
    await verifyStored(this.options.storage, files);
  }

  /**
   * A failed attempt removes what it wrote itself, and only while it still holds the lease: after a
   * takeover the same keys belong to the attempt that took over. Never the whole run folder.
   */
  async cleanUp(error: unknown): Promise<void> {
    const { storage, lease, runFolder, log } = this.options;
    const reason = error instanceof Error ? error : new Error(String(error));
    log.warn('export failed; removing what this attempt wrote', { runFolder, error: reason.message, objects: this.mine.size });
    await Promise.allSettled([...this.open].map((u) => u.abort(reason)));
    const keys = [...this.mine];
    try {
      if (!(await lease.held())) {
        log.warn('this attempt no longer holds the run; leaving its files to the attempt that does', { runFolder });
        return;
      }
      if (keys.length > 0) await storage.deleteObjects(keys);
      await lease.release([], keys);
    } catch (cleanupError) {
      // The original failure is what the user must see; what is left stays recorded as debris.
      log.error('could not remove the partial run', { runFolder, error: errorMessage(cleanupError) });
      await lease.release(keys, []).catch(() => false);
    }
  }
}

/** Checks every listed file against what the store holds now (size and sha256, re-read). */
export async function verifyStored(storage: Storage, files: readonly StoredFile[]): Promise<void> {
  for (const file of files) {
    const { key } = file;
    const actual = await storage.hashObject(key);
    if (!actual || actual.bytes !== file.bytes || actual.sha256 !== file.sha256) {
      throw new StorageError(
        `${storage.describe(key)} is not what this run wrote (${actual ? `${actual.bytes} bytes, sha256 ${actual.sha256.slice(0, 12)}…` : 'missing'}; ` +
          `expected ${file.bytes} bytes, sha256 ${file.sha256.slice(0, 12)}…); the manifest was not published`,
      );
    }
  }
}
