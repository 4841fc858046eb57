import type { Writable } from 'node:stream';

/**
 * The storage port: where an export's files go. Two adapters implement it: a local directory
 * (the demo and the export command) and S3 (the Lambdas). Keys are '/'-separated and relative to
 * the adapter's root (directory or bucket prefix).
 */
export interface ObjectMetadata {
  readonly contentType: string;
  /** File name offered to a browser, e.g. `acme-weekly.xlsx`. */
  readonly downloadName?: string;
  /** Small string metadata (report, run id, rows). */
  readonly metadata?: Readonly<Record<string, string>>;
}

export interface StoredObject {
  readonly key: string;
  readonly bytes: number;
  readonly sha256: string;
}

export interface ObjectUpload {
  /** Write the object's bytes here and end it. */
  readonly stream: Writable;
  /** Resolves once the object is durably stored under its key (never before the stream ended). */
  readonly done: Promise<StoredObject>;
  /** Stops the upload and removes whatever was stored; `done` then rejects. */
  abort(reason: Error): Promise<void>;
}

export interface Storage {
  /** Streams an object; nothing is visible under `key` until `done` resolves. */
  openUpload(key: string, meta: ObjectMetadata): ObjectUpload;
  putObject(key: string, body: string | Uint8Array, meta: ObjectMetadata): Promise<StoredObject>;
  /** The object's bytes, or undefined when there is none. */
  getObject(key: string): Promise<Uint8Array | undefined>;
  /**
   * The object's bytes as they arrive, never held whole (a baseline snapshot of millions of rows),
   * or undefined when there is none. A failure while reading is a StorageError from the iteration.
   */
  readObject(key: string): Promise<AsyncIterable<Uint8Array> | undefined>;
  /**
   * Copies the object under `from` to `to` within the store, whole or not at all (S3: CopyObject,
   * server-side; a directory: a temporary copy renamed into place), with its content type and
   * metadata; `labels` replace its labels (see annotate). A missing `from` is a StorageError.
   */
  copyObject(from: string, to: string, labels?: Readonly<Record<string, string>>): Promise<void>;
  /** Keys under a prefix (for clean-up and tests). */
  listKeys(prefix: string): Promise<string[]>;
  deleteObjects(keys: readonly string[]): Promise<void>;
  /**
   * Size and sha256 of what is stored under `key`, read back from the store (streamed, never held
   * whole), or undefined when there is none. A run checks its files with it before the manifest.
   */
  hashObject(key: string): Promise<StoredObject | undefined>;
  /**
   * Removes uploads under `prefix` that were started and never finished, e.g. by a killed process
   * (local: its hidden `.partial` files). Readers never see them under a key either way.
   */
  removeIncomplete(prefix: string): Promise<void>;
  /**
   * Attaches labels known only once an object is stored, such as its row count (S3: object tags,
   * which unlike metadata can be added without rewriting the object). At most 10, short values.
   */
  annotate(key: string, labels: Readonly<Record<string, string>>): Promise<void>;
  /** A human-readable location of the root for messages, e.g. `./out` or `s3://bucket/prefix`. */
  describe(key?: string): string;
}
