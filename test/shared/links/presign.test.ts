import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StorageError } from '../../../shared/core/errors';
import { createPresigner } from '../../../shared/links/presign';
import { S3Storage } from '../../../shared/storage/s3-storage';
import { startS3rver, type S3rverHandle } from '../../support/s3rver';
import { patternBytes, sha256 } from '../../support/stream-helpers';

describe('createPresigner against s3rver', () => {
  let s3: S3rverHandle;
  const data = patternBytes(300_000, 3);

  beforeAll(async () => {
    s3 = await startS3rver();
    const storage = new S3Storage({ client: s3.client, bucket: s3.bucket, prefix: 'exports' });
    await storage.putObject('acme/run=1/risks.csv', data, { contentType: 'text/csv' });
  });
  afterAll(async () => {
    await s3.close();
  });

  it('fetch() of the URL returns the exact bytes with the download name', async () => {
    const presigner = createPresigner({ client: s3.client, bucket: s3.bucket, prefix: 'exports' });
    const url = await presigner.presignGet('acme/run=1/risks.csv', { downloadName: 'Acme risks 2024-05-06.csv' });
    expect(url).toContain('X-Amz-Expires=3600');
    expect(url).toContain('response-content-disposition=');
    const response = await fetch(url);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-disposition')).toBe(
      `attachment; filename="Acme risks 2024-05-06.csv"; filename*=UTF-8''Acme%20risks%202024-05-06.csv`,
    );
    const body = new Uint8Array(await response.arrayBuffer());
    expect(sha256(body)).toBe(sha256(data));
  });

  it('an expired URL is refused', async () => {
    // Signed an hour ago for one second: expired by the server's clock, however busy the machine.
    const anHourAgo = () => new Date(Date.now() - 3_600_000);
    const presigner = createPresigner({ client: s3.client, bucket: s3.bucket, prefix: 'exports', clock: anHourAgo });
    const url = await presigner.presignGet('acme/run=1/risks.csv', { expiresInSeconds: 1 });
    const response = await fetch(url);
    expect(response.status).toBe(403);
    expect(await response.text()).toContain('Request has expired');
  });

  it('validates key and lifetime', async () => {
    const presigner = createPresigner({ client: s3.client, bucket: s3.bucket });
    await expect(presigner.presignGet('../x')).rejects.toThrow(StorageError);
    await expect(presigner.presignGet('x', { expiresInSeconds: 0 })).rejects.toThrow(/1 to 604800 seconds/);
    await expect(presigner.presignGet('x', { expiresInSeconds: 604_801 })).rejects.toThrow(StorageError);
  });
});
