import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
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
  close(): Promise<void>;
}

/**
 * Starts s3rver in-process on a free port with its own temporary directory and one bucket.
 * Checksums are computed only when required: with the SDK's default (WHEN_SUPPORTED) streamed
 * bodies are sent with aws-chunked framing, which s3rver stores verbatim, chunk headers included.
 */
export async function startS3rver(options: { bucket?: string } = {}): Promise<S3rverHandle> {
  const bucket = options.bucket ?? 'test-bucket';
  const directory = await mkdtemp(path.join(tmpdir(), 's3rver-'));
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory,
    // Keep the bucket in the path: vhost parsing would treat "127.0.0.1" as a bucket host.
    vhostBuckets: false,
    configureBuckets: [{ name: bucket }],
  });
  const address = await server.run();
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
    close: async () => {
      client.destroy();
      await server.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}
