import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectsCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { StorageError } from '../../../shared/core/errors';
import { S3Storage } from '../../../shared/storage/s3-storage';
import { startS3rver, type S3rverHandle } from '../../support/s3rver';
import { patternBytes, sha256, writeInChunks } from '../../support/stream-helpers';

const MiB = 1024 * 1024;

describe('S3Storage against s3rver', () => {
  let s3: S3rverHandle;
  let storage: S3Storage;

  beforeAll(async () => {
    s3 = await startS3rver();
  });
  afterAll(async () => {
    await s3.close();
  });
  beforeEach(async () => {
    storage = new S3Storage({ client: s3.client, bucket: s3.bucket, prefix: 'exports/', partSizeBytes: 5 * MiB });
    const all = await new S3Storage({ client: s3.client, bucket: s3.bucket }).listKeys('');
    await new S3Storage({ client: s3.client, bucket: s3.bucket }).deleteObjects(all);
  });

  it('streams a multi-part object; sha256 and bytes match what was written', async () => {
    const data = patternBytes(12 * MiB + 12345, 7);
    const upload = storage.openUpload('acme/dt=2024-05-06/run=r1/acme-weekly.xlsx', {
      contentType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
      downloadName: 'Acme weekly – Zürich "Q2".xlsx',
      metadata: { report: 'acme-weekly', 'run-id': 'r1', rows: '300000' },
    });
    await writeInChunks(upload.stream, data, 256 * 1024);
    const stored = await upload.done;
    expect(stored).toEqual({
      key: 'acme/dt=2024-05-06/run=r1/acme-weekly.xlsx',
      bytes: data.byteLength,
      sha256: sha256(data),
    });

    const back = await storage.getObject('acme/dt=2024-05-06/run=r1/acme-weekly.xlsx');
    expect(back!.byteLength).toBe(data.byteLength);
    expect(sha256(back!)).toBe(stored.sha256);

    const head = await s3.client.send(
      new HeadObjectCommand({ Bucket: s3.bucket, Key: 'exports/acme/dt=2024-05-06/run=r1/acme-weekly.xlsx' }),
    );
    expect(head.ContentType).toBe('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
    expect(head.ContentDisposition).toBe(
      `attachment; filename="Acme weekly _ Z_rich _Q2_.xlsx"; filename*=UTF-8''Acme%20weekly%20%E2%80%93%20Z%C3%BCrich%20%22Q2%22.xlsx`,
    );
    expect(head.Metadata).toEqual({ report: 'acme-weekly', 'run-id': 'r1', rows: '300000' });
    expect(head.ContentLength).toBe(data.byteLength);
  });

  it('streams a small object (single PUT) and an empty one', async () => {
    const small = storage.openUpload('a/small.csv', { contentType: 'text/csv; charset=utf-8' });
    small.stream.end('id,name\n1,x\n');
    expect(await small.done).toMatchObject({ bytes: 12, sha256: sha256(Buffer.from('id,name\n1,x\n')) });
    expect(Buffer.from((await storage.getObject('a/small.csv'))!).toString()).toBe('id,name\n1,x\n');

    const empty = storage.openUpload('a/empty.csv', { contentType: 'text/csv' });
    empty.stream.end();
    expect(await empty.done).toMatchObject({ bytes: 0, sha256: sha256(new Uint8Array()) });
    expect((await storage.getObject('a/empty.csv'))!.byteLength).toBe(0);
  });

  it('abort in the middle of a multipart upload leaves nothing and rejects done', async () => {
    const upload = storage.openUpload('a/aborted.xlsx', { contentType: 'application/octet-stream' });
    // More than one part, so the multipart upload has started; the stream is not ended.
    const data = patternBytes(11 * MiB);
    for (let offset = 0; offset < data.byteLength; offset += MiB) {
      if (!upload.stream.write(data.subarray(offset, offset + MiB))) {
        await new Promise((resolve) => upload.stream.once('drain', resolve));
      }
    }
    await upload.abort(new Error('render failed'));
    await expect(upload.done).rejects.toThrow(StorageError);
    await expect(upload.done).rejects.toThrow(/s3:\/\/test-bucket\/exports\/a\/aborted\.xlsx was aborted: render failed/);
    expect(await storage.listKeys('')).toEqual([]);
    expect(await storage.getObject('a/aborted.xlsx')).toBeUndefined();
  });

  it('abort after the stream ended removes the completed object', async () => {
    const upload = storage.openUpload('a/late.csv', { contentType: 'text/csv' });
    upload.stream.end('x\n');
    await upload.done;
    await upload.abort(new Error('manifest failed'));
    expect(await storage.getObject('a/late.csv')).toBeUndefined();
  });

  it('a writer error rejects done with a StorageError naming the key', async () => {
    const upload = storage.openUpload('a/broken.csv', { contentType: 'text/csv' });
    upload.stream.write('x');
    upload.stream.destroy(new Error('producer broke'));
    await expect(upload.done).rejects.toThrow(/could not upload s3:\/\/test-bucket\/exports\/a\/broken\.csv/);
    expect(await storage.listKeys('')).toEqual([]);
  });

  it('putObject, getObject (missing → undefined), listKeys, deleteObjects', async () => {
    const stored = await storage.putObject('acme/latest.json', '{"runId":"r1"}', { contentType: 'application/json' });
    expect(stored).toEqual({ key: 'acme/latest.json', bytes: 14, sha256: sha256(Buffer.from('{"runId":"r1"}')) });
    expect(Buffer.from((await storage.getObject('acme/latest.json'))!).toString()).toBe('{"runId":"r1"}');
    expect(await storage.getObject('acme/none.json')).toBeUndefined();
    expect(await storage.hashObject('acme/latest.json')).toEqual(stored);
    expect(await storage.hashObject('acme/none.json')).toBeUndefined();
    const read: Uint8Array[] = [];
    for await (const chunk of (await storage.readObject('acme/latest.json'))!) read.push(chunk);
    expect(Buffer.concat(read).toString()).toBe('{"runId":"r1"}');
    expect(await storage.readObject('acme/none.json')).toBeUndefined();

    // Fewer than 1,000 keys: s3rver cannot paginate ListObjectsV2 on Node >= 17 (see the mocked
    // pagination test below).
    const keys = Array.from({ length: 60 }, (_, i) => `bulk/${String(i).padStart(4, '0')}.csv`);
    await Promise.all(keys.map((k) => storage.putObject(k, 'x', { contentType: 'text/csv' })));
    expect(await storage.listKeys('bulk/')).toEqual(keys);
    expect(await storage.listKeys('bulk/001')).toEqual(keys.slice(10, 20));
    expect(await storage.listKeys('acme/')).toEqual(['acme/latest.json']);

    await storage.deleteObjects(keys);
    expect(await storage.listKeys('bulk/')).toEqual([]);
    expect(await storage.listKeys('')).toEqual(['acme/latest.json']);
    await storage.deleteObjects([]);
  });

  it('copyObject copies server-side into hive folders (dt=, run=), with content type and metadata; a missing source is a StorageError', async () => {
    const data = patternBytes(70_000, 3);
    await storage.putObject('_staging/acme/run=r1/risks.g2.parquet', data, { contentType: 'application/vnd.apache.parquet', metadata: { report: 'acme' } });
    await storage.copyObject('_staging/acme/run=r1/risks.g2.parquet', 'acme/tables/risks/dt=2024-05-06/run=r1/part-00000.parquet', { rows: '12' });
    expect(await storage.hashObject('acme/tables/risks/dt=2024-05-06/run=r1/part-00000.parquet')).toEqual({
      key: 'acme/tables/risks/dt=2024-05-06/run=r1/part-00000.parquet', bytes: data.byteLength, sha256: sha256(data),
    });
    const head = await s3.client.send(new HeadObjectCommand({ Bucket: s3.bucket, Key: 'exports/acme/tables/risks/dt=2024-05-06/run=r1/part-00000.parquet' }));
    expect(head.ContentType).toBe('application/vnd.apache.parquet');
    expect(head.Metadata).toMatchObject({ report: 'acme' });
    const missing = storage.copyObject('_staging/acme/run=r1/none.parquet', 'acme/tables/x/part-00000.parquet');
    await expect(missing).rejects.toBeInstanceOf(StorageError);
    await expect(missing).rejects.toThrow(/could not copy s3:\/\/.+\/exports\/_staging\/acme\/run=r1\/none\.parquet to .*: NoSuchKey/);
    expect(await storage.listKeys('acme/tables/x/')).toEqual([]);
  });

  it('keys are relative to the prefix; describe names bucket, prefix and key', async () => {
    await storage.putObject('k.txt', 'x', { contentType: 'text/plain' });
    const root = new S3Storage({ client: s3.client, bucket: s3.bucket });
    expect(await root.listKeys('')).toEqual(['exports/k.txt']);
    expect(storage.describe()).toBe('s3://test-bucket/exports');
    expect(storage.describe('a/b.csv')).toBe('s3://test-bucket/exports/a/b.csv');
    expect(root.describe()).toBe('s3://test-bucket');
  });

  it('maps SDK failures to StorageError naming the key', async () => {
    const missingBucket = new S3Storage({ client: s3.client, bucket: 'no-such-bucket' });
    await expect(missingBucket.getObject('a.csv')).rejects.toThrow(/could not read s3:\/\/no-such-bucket\/a\.csv: NoSuchBucket/);
    await expect(missingBucket.putObject('a.csv', 'x', { contentType: 'text/csv' })).rejects.toThrow(StorageError);
    const upload = missingBucket.openUpload('b.csv', { contentType: 'text/csv' });
    upload.stream.end('x');
    await expect(upload.done).rejects.toThrow(/could not upload s3:\/\/no-such-bucket\/b\.csv/);
  });

  it('rejects unsafe keys before any request', async () => {
    expect(() => storage.openUpload('../x', { contentType: 'text/plain' })).toThrow(StorageError);
    await expect(storage.getObject('/abs')).rejects.toThrow(StorageError);
    await expect(storage.deleteObjects(['a/../b'])).rejects.toThrow(StorageError);
  });
});

/**
 * Only what s3rver cannot show: it ignores server-side encryption and checksum headers, keeps no
 * trace of the parts an object came in (its ETag is a plain MD5) or of open multipart uploads, cannot
 * fail one key of a batch delete and cannot paginate ListObjectsV2 on Node >= 17. Everything s3rver
 * does store (bytes, content type, disposition, metadata, deletion, aborts) is asserted against it above.
 */
describe('S3Storage request parameters s3rver cannot show (mocked client)', () => {
  const client = new S3Client({ region: 'eu-central-1', credentials: { accessKeyId: 'a', secretAccessKey: 'b' } });
  const mock = mockClient(client);
  beforeEach(() => mock.reset());
  afterAll(() => mock.restore());

  it('asks for SSE-KMS with the key on the multipart upload, in parts of the configured size', async () => {
    mock.on(CreateMultipartUploadCommand).resolves({ UploadId: 'u1' });
    mock.on(UploadPartCommand).resolves({ ETag: '"e"' });
    mock.on(CompleteMultipartUploadCommand).resolves({});
    const storage = new S3Storage({
      client,
      bucket: 'b',
      prefix: 'p',
      serverSideEncryption: 'aws:kms',
      kmsKeyId: 'arn:aws:kms:eu-central-1:123:key/k',
      partSizeBytes: 5 * MiB,
    });
    const upload = storage.openUpload('r/f.xlsx', {
      contentType: 'application/x',
      downloadName: 'f.xlsx',
      metadata: { report: 'r' },
    });
    await writeInChunks(upload.stream, patternBytes(11 * MiB));
    await upload.done;
    const create = mock.commandCalls(CreateMultipartUploadCommand)[0]!.args[0].input;
    expect(create).toMatchObject({
      Bucket: 'b',
      Key: 'p/r/f.xlsx',
      ServerSideEncryption: 'aws:kms',
      SSEKMSKeyId: 'arn:aws:kms:eu-central-1:123:key/k',
    });
    const parts = mock.commandCalls(UploadPartCommand).map((c) => c.args[0].input);
    expect(parts.map((p) => p.PartNumber)).toEqual([1, 2, 3]);
    expect(parts.map((p) => (p.Body as Uint8Array).byteLength)).toEqual([5 * MiB, 5 * MiB, MiB]);
  });

  it('aborts the multipart upload it started (by its upload id) when the writer fails', async () => {
    mock.on(CreateMultipartUploadCommand).resolves({ UploadId: 'u2' });
    // The upload has started once its first part is on its way: the abort must end a real upload.
    let partSent!: () => void;
    const firstPart = new Promise<void>((resolve) => (partSent = resolve));
    mock.on(UploadPartCommand).callsFake(() => {
      partSent();
      return { ETag: '"e"' };
    });
    mock.on(AbortMultipartUploadCommand).resolves({});
    const storage = new S3Storage({ client, bucket: 'b', serverSideEncryption: 'AES256', partSizeBytes: 5 * MiB });
    const upload = storage.openUpload('f.bin', { contentType: 'application/octet-stream' });
    upload.stream.write(patternBytes(6 * MiB));
    await firstPart;
    await upload.abort(new Error('stop'));
    await expect(upload.done).rejects.toThrow(/aborted: stop/);
    expect(mock.commandCalls(AbortMultipartUploadCommand).map((c) => c.args[0].input)).toEqual([
      { Bucket: 'b', Key: 'f.bin', UploadId: 'u2' },
    ]);
    expect(mock.commandCalls(CompleteMultipartUploadCommand)).toHaveLength(0);
    expect(mock.commandCalls(CreateMultipartUploadCommand)[0]!.args[0].input.ServerSideEncryption).toBe('AES256');
  });

  it('putObject sends the SHA-256 checksum for S3 to verify', async () => {
    mock.on(PutObjectCommand).resolves({});
    const storage = new S3Storage({ client, bucket: 'b' });
    await storage.putObject('m.json', '{}', { contentType: 'application/json' });
    const input = mock.commandCalls(PutObjectCommand)[0]!.args[0].input;
    expect(input.ChecksumSHA256).toBe(Buffer.from(sha256(Buffer.from('{}')), 'hex').toString('base64'));
  });

  it('deleteObjects sends batches of 1,000 (S3 refuses more; s3rver does not) and reports per-key errors', async () => {
    mock.on(DeleteObjectsCommand).resolves({});
    const storage = new S3Storage({ client, bucket: 'b' });
    await storage.deleteObjects(Array.from({ length: 2001 }, (_, i) => `k${i}`));
    expect(mock.commandCalls(DeleteObjectsCommand).map((c) => c.args[0].input.Delete!.Objects!.length)).toEqual([
      1000, 1000, 1,
    ]);
    mock.on(DeleteObjectsCommand).resolves({ Errors: [{ Key: 'k1', Code: 'AccessDenied', Message: 'Access Denied' }] });
    await expect(storage.deleteObjects(['k1'])).rejects.toThrow(/s3:\/\/b\/k1: AccessDenied Access Denied/);
  });

  it('listKeys follows ListObjectsV2 continuation tokens and strips the prefix', async () => {
    mock
      .on(ListObjectsV2Command, { ContinuationToken: undefined })
      .resolves({ Contents: [{ Key: 'p/r/a' }, { Key: 'p/r/b' }], IsTruncated: true, NextContinuationToken: 't1' })
      .on(ListObjectsV2Command, { ContinuationToken: 't1' })
      .resolves({ Contents: [{ Key: 'p/r/c' }], IsTruncated: false });
    const storage = new S3Storage({ client, bucket: 'b', prefix: 'p' });
    expect(await storage.listKeys('r/')).toEqual(['r/a', 'r/b', 'r/c']);
    const calls = mock.commandCalls(ListObjectsV2Command).map((c) => c.args[0].input);
    expect(calls).toHaveLength(2);
    expect(calls[0]).toMatchObject({ Bucket: 'b', Prefix: 'p/r/' });
    expect(calls[1]).toMatchObject({ Bucket: 'b', Prefix: 'p/r/', ContinuationToken: 't1' });
  });

  it('kmsKeyId without aws:kms is a configuration mistake', () => {
    expect(() => new S3Storage({ client, bucket: 'b', serverSideEncryption: 'AES256', kmsKeyId: 'k' })).toThrow(StorageError);
  });
});
