import { createHash } from 'node:crypto';
import { Transform } from 'node:stream';
import {
  CopyObjectCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  PutObjectCommand,
  type PutObjectCommandInput,
  PutObjectTaggingCommand,
  S3Client,
  paginateListObjectsV2,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { retryableCause, StorageError, transientAwsCode, transientAwsFailure } from '../core/errors';
import { attachmentDisposition } from './content-disposition';
import type { ObjectMetadata, ObjectUpload, Storage, StoredObject } from './storage';
import { assertValidKey, assertValidMetadata, assertValidPrefix, joinKey, normalisePrefix } from './storage-keys';

export interface S3StorageOptions {
  readonly client?: S3Client;
  readonly bucket: string;
  /** Root of this storage inside the bucket, e.g. `exports`; keys are relative to it. */
  readonly prefix?: string;
  readonly serverSideEncryption?: 'AES256' | 'aws:kms';
  /** Only with `aws:kms`; without it S3 uses the AWS managed key `aws/s3`. */
  readonly kmsKeyId?: string;
  /** Multipart part size; S3's minimum is 5 MiB. */
  readonly partSizeBytes?: number;
  /** Parts uploaded concurrently. */
  readonly queueSize?: number;
}

/**
 * Memory held by one streaming upload is about (queueSize + 1) x partSize: one part being filled
 * plus the parts in flight. 8 MiB x 3 = 24 MiB fits a 512 MB Lambda that also renders a workbook;
 * 10,000 parts of 8 MiB allow objects up to ~80 GB, far beyond any export.
 */
export const DEFAULT_PART_SIZE_BYTES = 8 * 1024 * 1024;
export const DEFAULT_QUEUE_SIZE = 2;

/** DeleteObjects takes at most 1,000 keys per request. */
const DELETE_BATCH_SIZE = 1000;

/**
 * The storage port over an S3 bucket (the Lambdas). Streams go through a multipart upload that
 * never holds more than a few parts in memory; the object only appears under its key when the
 * upload completes, as the port requires.
 */
export class S3Storage implements Storage {
  private readonly client: S3Client;
  private readonly bucket: string;
  private readonly prefix: string;
  private readonly options: S3StorageOptions;

  constructor(options: S3StorageOptions) {
    this.client = options.client ?? new S3Client({});
    this.bucket = options.bucket;
    this.prefix = normalisePrefix(options.prefix);
    this.options = options;
    if (options.kmsKeyId !== undefined && options.serverSideEncryption !== 'aws:kms') {
      throw new StorageError('kmsKeyId is only valid with serverSideEncryption "aws:kms"');
    }
  }

  openUpload(key: string, meta: ObjectMetadata): ObjectUpload {
    assertValidKey(key);
    assertValidMetadata(key, meta.metadata);
    return new S3Upload({
      client: this.client,
      key,
      location: this.describe(key),
      params: this.putParams(key, meta),
      partSize: this.options.partSizeBytes ?? DEFAULT_PART_SIZE_BYTES,
      queueSize: this.options.queueSize ?? DEFAULT_QUEUE_SIZE,
    });
  }

  async putObject(key: string, body: string | Uint8Array, meta: ObjectMetadata): Promise<StoredObject> {
    assertValidKey(key);
    assertValidMetadata(key, meta.metadata);
    const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
    const digest = createHash('sha256').update(bytes).digest();
    try {
      // S3 verifies the SHA-256 we send, so a corrupted body is refused instead of stored.
      await this.client.send(
        new PutObjectCommand({ ...this.putParams(key, meta), Body: bytes, ChecksumSHA256: digest.toString('base64') }),
      );
    } catch (error) {
      throw sdkError(`could not write ${this.describe(key)}`, error);
    }
    return { key, bytes: bytes.byteLength, sha256: digest.toString('hex') };
  }

  async getObject(key: string): Promise<Uint8Array | undefined> {
    assertValidKey(key);
    try {
      const response = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: this.fullKey(key) }));
      return (await response.Body?.transformToByteArray()) ?? new Uint8Array();
    } catch (error) {
      if (errorName(error) === 'NoSuchKey') return undefined;
      throw sdkError(`could not read ${this.describe(key)}`, error);
    }
  }

  async readObject(key: string): Promise<AsyncIterable<Uint8Array> | undefined> {
    assertValidKey(key);
    let body: AsyncIterable<Uint8Array> | undefined;
    try {
      const response = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: this.fullKey(key) }));
      body = response.Body as AsyncIterable<Uint8Array> | undefined;
    } catch (error) {
      if (errorName(error) === 'NoSuchKey') return undefined;
      throw sdkError(`could not read ${this.describe(key)}`, error);
    }
    return this.chunksOf(key, body);
  }

  /** `body`'s chunks, a failure while reading as the adapter's own error. */
  private async *chunksOf(key: string, body: AsyncIterable<Uint8Array> | undefined): AsyncGenerator<Uint8Array> {
    if (!body) return;
    try {
      yield* body;
    } catch (error) {
      throw sdkError(`could not read ${this.describe(key)}`, error);
    }
  }

  /**
   * CopyObject, server-side and atomic (up to 5 GB, far beyond a table file). Content type,
   * disposition and metadata are copied; the tags are replaced by `labels`, so the copy needs no
   * s3:GetObjectTagging on the source.
   */
  async copyObject(from: string, to: string, labels: Readonly<Record<string, string>> = {}): Promise<void> {
    assertValidKey(from);
    assertValidKey(to);
    const { serverSideEncryption, kmsKeyId } = this.options;
    try {
      await this.client.send(
        new CopyObjectCommand({
          Bucket: this.bucket,
          Key: this.fullKey(to),
          CopySource: copySource(this.bucket, this.fullKey(from)),
          MetadataDirective: 'COPY',
          TaggingDirective: 'REPLACE',
          Tagging: new URLSearchParams(Object.entries(labels)).toString(),
          ...(serverSideEncryption !== undefined && { ServerSideEncryption: serverSideEncryption }),
          ...(kmsKeyId !== undefined && { SSEKMSKeyId: kmsKeyId }),
        }),
      );
    } catch (error) {
      throw sdkError(`could not copy ${this.describe(from)} to ${this.describe(to)}`, error);
    }
  }

  async listKeys(prefix: string): Promise<string[]> {
    assertValidPrefix(prefix);
    const rootPrefix = this.prefix === '' ? '' : `${this.prefix}/`;
    const keys: string[] = [];
    try {
      const pages = paginateListObjectsV2(
        { client: this.client },
        { Bucket: this.bucket, Prefix: rootPrefix + prefix },
      );
      for await (const page of pages) {
        for (const object of page.Contents ?? []) {
          if (object.Key !== undefined) keys.push(object.Key.slice(rootPrefix.length));
        }
      }
    } catch (error) {
      throw sdkError(`could not list ${this.describe(prefix)}`, error);
    }
    return keys;
  }

  async deleteObjects(keys: readonly string[]): Promise<void> {
    for (const key of keys) assertValidKey(key);
    for (let start = 0; start < keys.length; start += DELETE_BATCH_SIZE) {
      const batch = keys.slice(start, start + DELETE_BATCH_SIZE);
      let failed: { Key?: string; Code?: string; Message?: string }[];
      try {
        const response = await this.client.send(
          new DeleteObjectsCommand({
            Bucket: this.bucket,
            Delete: { Objects: batch.map((key) => ({ Key: this.fullKey(key) })), Quiet: true },
          }),
        );
        failed = (response.Errors ?? []).map((e) => ({ ...(e.Key !== undefined && { Key: e.Key }), ...(e.Code !== undefined && { Code: e.Code }), ...(e.Message !== undefined && { Message: e.Message }) }));
      } catch (error) {
        throw sdkError(`could not delete ${batch.length} object(s) under ${this.describe()}`, error);
      }
      // DeleteObjects answers 200 even when single keys fail; those are listed in Errors.
      const first = failed[0];
      if (first !== undefined) {
        throw new StorageError(
          `could not delete ${failed.length} object(s), e.g. s3://${this.bucket}/${first.Key ?? '?'}: ` +
            `${first.Code ?? 'error'} ${first.Message ?? ''}`.trim(),
          { retryable: failed.some((f) => transientAwsCode(f.Code)) },
        );
      }
    }
  }

  async hashObject(key: string): Promise<StoredObject | undefined> {
    assertValidKey(key);
    const hash = createHash('sha256');
    let bytes = 0;
    try {
      const response = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: this.fullKey(key) }));
      const body = response.Body as AsyncIterable<Uint8Array> | undefined;
      for await (const chunk of body ?? []) {
        hash.update(chunk);
        bytes += chunk.byteLength;
      }
    } catch (error) {
      if (errorName(error) === 'NoSuchKey') return undefined;
      throw sdkError(`could not read ${this.describe(key)}`, error);
    }
    return { key, bytes, sha256: hash.digest('hex') };
  }

  /**
   * Nothing to do: an unfinished multipart upload is never visible under its key, and the bucket's
   * lifecycle rule (AbortIncompleteMultipartUpload after a day) removes its parts. Listing them
   * would need s3:ListBucketMultipartUploads for no reader-visible gain.
   */
  removeIncomplete(prefix: string): Promise<void> {
    assertValidPrefix(prefix);
    return Promise.resolve();
  }

  async annotate(key: string, labels: Readonly<Record<string, string>>): Promise<void> {
    assertValidKey(key);
    const tags = Object.entries(labels);
    if (tags.length > 10) throw new StorageError(`at most 10 labels fit on ${this.describe(key)}; got ${tags.length}`);
    try {
      await this.client.send(
        new PutObjectTaggingCommand({
          Bucket: this.bucket,
          Key: this.fullKey(key),
          Tagging: { TagSet: tags.map(([Key, Value]) => ({ Key, Value })) },
        }),
      );
    } catch (error) {
      throw sdkError(`could not label ${this.describe(key)}`, error);
    }
  }

  describe(key?: string): string {
    const path = key === undefined ? this.prefix : joinKey(this.prefix, key);
    return path === '' ? `s3://${this.bucket}` : `s3://${this.bucket}/${path}`;
  }

  private fullKey(key: string): string {
    return joinKey(this.prefix, key);
  }

  private putParams(key: string, meta: ObjectMetadata): PutObjectCommandInput {
    const { serverSideEncryption, kmsKeyId } = this.options;
    return {
      Bucket: this.bucket,
      Key: this.fullKey(key),
      ContentType: meta.contentType,
      ...(meta.downloadName !== undefined && { ContentDisposition: attachmentDisposition(meta.downloadName) }),
      ...(serverSideEncryption !== undefined && { ServerSideEncryption: serverSideEncryption }),
      ...(kmsKeyId !== undefined && { SSEKMSKeyId: kmsKeyId }),
      ...(meta.metadata !== undefined && { Metadata: { ...meta.metadata } }),
    };
  }
}

interface S3UploadInit {
  readonly client: S3Client;
  readonly key: string;
  readonly location: string;
  readonly params: PutObjectCommandInput;
  readonly partSize: number;
  readonly queueSize: number;
}

class S3Upload implements ObjectUpload {
  readonly stream: Transform;
  readonly done: Promise<StoredObject>;
  /** The SDK upload settled (completed or failed, with its multipart upload aborted). */
  private readonly settled: Promise<boolean>;
  private abortion: Promise<void> | undefined;
  private abortError: StorageError | undefined;

  constructor(private readonly init: S3UploadInit) {
    const hash = createHash('sha256');
    let bytes = 0;
    // One Transform is both the caller's Writable and the Upload's Readable: the Upload pulls a
    // part at a time, so a slow S3 pushes back on the writer instead of filling memory.
    this.stream = new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        hash.update(chunk);
        bytes += chunk.byteLength;
        callback(null, chunk);
      },
    });
    // Failures reach the caller through `done`; without a listener an abort (which destroys the
    // stream with an error) would be an uncaught 'error' event and crash the process.
    this.stream.on('error', () => undefined);
    const upload = new Upload({
      client: init.client,
      params: { ...init.params, Body: this.stream },
      partSize: init.partSize,
      queueSize: init.queueSize,
      // lib-storage aborts the multipart upload itself when a part or the source stream fails.
      leavePartsOnError: false,
    });
    const sdkDone = upload.done();
    this.settled = sdkDone.then(
      () => true,
      () => false,
    );
    this.done = sdkDone.then(
      () => {
        if (this.abortError) throw this.abortError;
        return { key: init.key, bytes, sha256: hash.digest('hex') };
      },
      (error: unknown) => {
        const failure = this.abortError ?? sdkError(`could not upload ${init.location}`, error);
        // A writer blocked on backpressure would otherwise wait for 'drain' forever.
        if (!this.stream.destroyed) this.stream.destroy(failure);
        throw failure;
      },
    );
    // Callers that abort without awaiting `done` must not crash the process with an unhandled
    // rejection; awaiting `done` still rejects.
    this.done.catch(() => undefined);
  }

  abort(reason: Error): Promise<void> {
    this.abortion ??= (async () => {
      this.abortError = new StorageError(`upload of ${this.init.location} was aborted: ${reason.message}`, {
        cause: reason,
        retryable: retryableCause(reason),
      });
      // Destroying the source makes lib-storage stop reading, wait for parts in flight and send
      // AbortMultipartUpload. Upload.abort() is not used: its done() rejects at once while that
      // clean-up is still running, so we could not wait for it.
      if (!this.stream.destroyed) this.stream.destroy(this.abortError);
      const completed = await this.settled;
      // The stream had already ended and the object was stored before the abort arrived.
      if (completed) {
        try {
          await this.init.client.send(
            new DeleteObjectCommand({ Bucket: this.init.params.Bucket, Key: this.init.params.Key }),
          );
        } catch (error) {
          throw sdkError(`could not remove ${this.init.location} after aborting its upload`, error);
        }
      }
    })();
    return this.abortion;
  }
}

function errorName(error: unknown): string | undefined {
  return error instanceof Error ? error.name : undefined;
}

/** SDK errors carry the S3 error code as `name`; the message names the object for the operator. */
/**
 * CopyObject's source, URL-encoded as S3 requires, except `/` and `=` (legal unencoded in a path,
 * and the hive folders `dt=`/`run=` are full of them; s3rver does not decode `%3D`).
 */
function copySource(bucket: string, key: string): string {
  return `${bucket}/${encodeURIComponent(key).replace(/%2F/g, '/').replace(/%3D/g, '=')}`;
}

function sdkError(what: string, error: unknown): StorageError {
  if (error instanceof StorageError) return error;
  const detail = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return new StorageError(`${what}: ${detail}`, { cause: error, retryable: transientAwsFailure(error) });
}
