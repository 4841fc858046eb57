import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { createRequire } from 'node:module';
import { mkdir, mkdtemp, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { S3Client } from '@aws-sdk/client-s3';
import S3rver from 's3rver';

export interface S3rverHandle {
  /** e.g. http://127.0.0.1:53122 */
  readonly endpoint: string;
  readonly bucket: string;
  /** Path-style client with s3rver's built-in credentials. */
  readonly client: S3Client;
  /** Builds another client for the same server (e.g. with other checksum settings). */
  createClient(overrides?: Partial<ConstructorParameters<typeof S3Client>[0]>): S3Client;
  /**
   * From now on a PUT of one of `keys` (in any bucket) is answered 403 AccessDenied, as a bucket
   * policy denying that key would, until called again with other keys (or none).
   */
  refuseWrites(keys: readonly string[]): void;
  close(): Promise<void>;
}

/**
 * Starts s3rver in-process on a free port with its own temporary directory and one bucket (more on request).
 * Checksums are computed only when required: with the SDK's default (WHEN_SUPPORTED) streamed
 * bodies are sent with aws-chunked framing, which s3rver stores verbatim, chunk headers included.
 */
export async function startS3rver(options: { bucket?: string; otherBuckets?: readonly string[]; port?: number } = {}): Promise<S3rverHandle> {
  const bucket = options.bucket ?? 'test-bucket';
  const directory = await mkdtemp(path.join(tmpdir(), 's3rver-'));
  const server = new S3rver({
    address: '127.0.0.1',
    // A fixed port for the local stack (npm run local), which the demo writes to; else a free one.
    port: options.port ?? 0,
    silent: true,
    directory,
    // Keep the bucket in the path: vhost parsing would treat "127.0.0.1" as a bucket host.
    vhostBuckets: false,
    configureBuckets: [bucket, ...(options.otherBuckets ?? [])].map((name) => ({ name })),
  });
  const refused = new Set<string>();
  makeObjectWritesAtomic((server as unknown as { store: FilesystemStore }).store, refused);
  const address = await server.run();
  // Node's 5 s keep-alive timeout races the clients' reuse of idle sockets on a loaded machine (the
  // client's timer fires late, reuses a socket the server has just closed: ECONNRESET). Idle sockets
  // stay open longer than any test; close() ends them.
  const httpServer = (server as unknown as { httpServer: Server }).httpServer;
  httpServer.keepAliveTimeout = 120_000;
  httpServer.headersTimeout = 121_000;
  // Node writes the Date header from its own clock, which a test that fixes the time (vi.useFakeTimers
  // on Date) cannot set: the SDK would take the difference for clock skew and sign later requests at
  // the real time, which s3rver, on the fixed clock, refuses. Without the header the SDK keeps the test's time.
  httpServer.prependListener('request', (_request: IncomingMessage, response: ServerResponse) => {
    response.sendDate = false;
  });
  const endpoint = `http://127.0.0.1:${address.port}`;
  const createClient = (overrides: Partial<ConstructorParameters<typeof S3Client>[0]> = {}): S3Client =>
    new S3Client({
      endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      ...overrides,
    });
  const client = createClient();
  return {
    endpoint,
    bucket,
    client,
    createClient,
    refuseWrites: (keys) => {
      refused.clear();
      for (const key of keys) refused.add(key);
    },
    close: async () => {
      client.destroy();
      await server.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}

/** s3rver's error class (no types shipped): thrown from the store, it becomes the answer's status and code. */
const S3Error = createRequire(import.meta.url)('s3rver/lib/models/error') as new (code: string, message: string) => Error;

/** The part of s3rver's FilesystemStore (s3rver 3) that makeObjectWritesAtomic replaces. */
interface FilesystemStore {
  getResourcePath(bucket: string, key: string, resource: string): string;
  getObject(bucket: string, key: string, options?: unknown): Promise<unknown>;
  putObject(object: { bucket: string; key: string; content: Buffer | Readable; metadata: Record<string, string> }): Promise<{
    size: number;
    md5: string;
  }>;
  putMetadata(bucket: string, key: string, metadata: Record<string, string>, md5?: string): Promise<void>;
}

/**
 * S3 replaces an object atomically: a GET sees the old object or the new one. s3rver writes the
 * object file and then its metadata in place, and answers the PUT before the file is flushed, so a
 * GET during (or right after) an overwrite can read a truncated body under the old length: the
 * export API then read half a job-status JSON and answered 500 on a busy machine. Here a PUT writes
 * to a temporary file that is renamed into place once flushed, and GETs and PUTs of one key take
 * turns, the PUT's turn covering its metadata and the GET's lasting until its file is open (so it
 * reads one whole version even if a PUT renames a new one over it). HEAD is left as it is.
 */
function makeObjectWritesAtomic(store: FilesystemStore, refused: ReadonlySet<string>): void {
  const turns = new Map<string, Promise<unknown>>();
  const inTurn = <T>(bucket: string, key: string, run: () => Promise<T>): Promise<T> => {
    const id = `${bucket}/${key}`;
    const result = (turns.get(id) ?? Promise.resolve()).catch(() => undefined).then(run);
    const settled = result.catch(() => undefined);
    turns.set(id, settled);
    void settled.then(() => {
      if (turns.get(id) === settled) turns.delete(id);
    });
    return result;
  };
  let temps = 0;
  const writeAtomically = async (target: string, content: Readable): Promise<void> => {
    // Not ending in `._S3rver_object`, so listings skip it.
    const temp = `${target}.${process.pid}-${(temps += 1)}.partial`;
    await pipeline(content, createWriteStream(temp));
    await rename(temp, target);
  };

  const getObject = store.getObject.bind(store);
  store.getObject = (bucket, key, options) => inTurn(bucket, key, () => getObject(bucket, key, options));
  store.putObject = (object) =>
    inTurn(object.bucket, object.key, async () => {
      // Thrown as s3rver's own error, so it answers 403 with the code, as S3 does.
      if (refused.has(object.key)) throw new S3Error('AccessDenied', 'Access Denied');
      const target = store.getResourcePath(object.bucket, object.key, 'object');
      await mkdir(path.dirname(target), { recursive: true });
      const md5 = createHash('md5');
      let size = 0;
      const counted = new Transform({
        transform(chunk: Buffer, _encoding, callback) {
          md5.update(chunk);
          size += chunk.length;
          callback(null, chunk);
        },
      });
      const content = Buffer.isBuffer(object.content) ? Readable.from([object.content]) : object.content;
      await writeAtomically(target, content.pipe(counted));
      const digest = md5.digest('hex');
      await store.putMetadata(object.bucket, object.key, object.metadata, digest);
      return { size, md5: digest };
    });
}
