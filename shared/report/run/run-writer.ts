/**
 * Every write of one attempt of a run goes through its RunWriter: the key is claimed in the ledger
 * before the first byte (so a crash leaves debris the next attempt can find), uploads are tracked
 * (so a failure aborts them), stored files are checked against what was written before any manifest
 * names them, and a failed attempt removes exactly what it wrote. Being the one door for the run's
 * writes, it is also where every write is fenced: an attempt writes only under keys carrying its
 * lease generation (attemptKey), so once another attempt holds the run, nothing the stale one still
 * writes can land on a key the holder publishes. Object stores without conditional writes (s3rver,
 * a directory) are safe that way; the ledger's compare-and-swap decides which attempt's manifest
 * the run publishes.
 */
import { errorMessage, StorageError } from '../../core/errors';
import type { Log } from '../../core/logger';
import type { ObjectMetadata, ObjectUpload, Storage, StoredObject } from '../../storage/storage';
import type { ProgressEvent } from '../dataset/dataset';
import { JSON_CONTENT_TYPE } from '../manifest/layout';
import type { TableCopy } from './run-entry';
import type { RunLease } from './run-lease';

/** A stored file as a manifest lists it, with its key: what verification compares with the store. */
export interface StoredFile {
  readonly key: string;
  readonly bytes: number;
  readonly sha256: string;
}

/**
 * The key under which the attempt of lease generation `generation` writes the file of `key`: the
 * first attempt uses the plain name (`risks.csv`), a later one adds its generation before the
 * extensions (`risks.g2.csv`, `part-00000.g2.parquet`, `manifest.g2.json`), in the same folder, so
 * the layout stays one folder per run and one prefix per table. Distinct keys per attempt are the
 * fence: no attempt ever writes a key another attempt's manifest names.
 */
export function attemptKey(key: string, generation: number): string {
  if (generation <= 1) return key;
  const slash = key.lastIndexOf('/') + 1;
  const name = key.slice(slash);
  const dot = name.indexOf('.', 1);
  const stem = dot === -1 ? name : name.slice(0, dot);
  const extensions = dot === -1 ? '' : name.slice(dot);
  return `${key.slice(0, slash)}${stem}.g${generation}${extensions}`;
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
  private readonly staged: TableCopy[] = [];

  constructor(private readonly options: RunWriterOptions) {}

  get storage(): Storage {
    return this.options.storage;
  }

  get runFolder(): string {
    return this.options.runFolder;
  }

  /** This attempt's key for the file of `key` (see attemptKey). */
  keyFor(key: string): string {
    return attemptKey(key, this.options.lease.generation);
  }

  /**
   * Records this attempt's key for `key` as its own in the ledger before anything is written to it;
   * the compare-and-swap fails (LeaseLostError) once another attempt holds the run. Returns the key.
   */
  async claim(key: string): Promise<string> {
    const own = this.keyFor(key);
    this.options.lease.check();
    await this.options.lease.renew({ addKeys: [own] });
    this.mine.add(own);
    return own;
  }

  /**
   * Claims this attempt's key for `key` and opens its upload there (with the run's metadata); a
   * failed run aborts it. The stored object's key is the one to list in the manifest.
   */
  async openUpload(key: string, meta: Omit<ObjectMetadata, 'metadata'>): Promise<ObjectUpload> {
    const own = await this.claim(key);
    const upload = this.options.storage.openUpload(own, { ...meta, metadata: this.options.metadata });
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
   * Records a stored table file (staged outside the table prefixes) for the run's publishing, which
   * copies it to `to` once the ledger chose this attempt's manifest (run-attempt.ts).
   */
  stageTable(object: StoredObject, to: string, rows: number): void {
    this.staged.push({ from: object.key, to, bytes: object.bytes, sha256: object.sha256, rows });
  }

  /** The table files this attempt staged, for the run's publishing. */
  get tableCopies(): readonly TableCopy[] {
    return this.staged;
  }

  /**
   * Writes an object shared by every run of the report (a table's `_schema.json`): not claimed, as no
   * failed run may remove what the runs before it published.
   */
  async putShared(key: string, body: string): Promise<void> {
    await this.options.storage.putObject(key, body, { contentType: JSON_CONTENT_TYPE });
  }

  /**
   * Stores the run's manifest under this attempt's key, after all it lists was verified and after
   * the claim's compare-and-swap proved this attempt still holds the run. Returns the key: the run
   * is published only once the ledger's `complete` names it (RunLease.complete).
   */
  async putManifest(key: string, body: string): Promise<string> {
    const own = await this.claim(key);
    await this.options.storage.putObject(own, body, { contentType: JSON_CONTENT_TYPE });
    return own;
  }

  /** Checks every listed file against what the store holds now (size and sha256, re-read). */
  async verify(files: readonly StoredFile[]): Promise<void> {
    await verifyStored(this.options.storage, files);
  }

  /**
   * A failed attempt removes what it wrote itself (its keys are its own, whoever holds the run now)
   * and gives the lease up if it still holds it. Never the whole run folder. The one exception: a
   * later attempt adopted this attempt's manifest as the run's (it found it intact after a crash),
   * then these files are published and stay.
   */
  async cleanUp(error: unknown): Promise<void> {
    const { storage, lease, runFolder, log } = this.options;
    const reason = error instanceof Error ? error : new Error(String(error));
    log.warn('export failed; removing what this attempt wrote', { runFolder, error: reason.message, objects: this.mine.size });
    await Promise.allSettled([...this.open].map((u) => u.abort(reason)));
    const keys = [...this.mine];
    try {
      const loss = await lease.loss();
      if (loss?.publishedManifest !== undefined && this.mine.has(loss.publishedManifest)) {
        log.warn('a later attempt published what this attempt wrote; leaving its files', { runFolder });
        return;
      }
      if (keys.length > 0) await storage.deleteObjects(keys);
      if (loss) {
        log.warn('this attempt lost the run to another attempt; removed only its own files', { runFolder, objects: keys.length });
        return;
      }
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
        // Another attempt (or an eventually consistent read) can see it right: a new attempt writes it again.
        { retryable: true },
      );
    }
  }
}
