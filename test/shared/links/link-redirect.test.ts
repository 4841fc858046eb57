import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLinkToken } from '../../../shared/links/link-token';
import { resolveLink } from '../../../shared/links/link-redirect';
import { createPresigner, type Presigner } from '../../../shared/links/presign';
import { S3Storage } from '../../../shared/storage/s3-storage';
import type { Log } from '../../../shared/core/logger';
import { startS3rver, type S3rverHandle } from '../../support/s3rver';
import { patternBytes, sha256 } from '../../support/stream-helpers';

const runKey = 'acme-weekly/dt=2024-05-06/run=r1';
const key = { id: 'k1', secret: 'k'.repeat(48) };
/** The clock tokens are made and checked by: injected, so no test depends on when it runs. */
const now = new Date('2024-05-06T08:00:00Z');
const inHours = (hours: number) => new Date(now.getTime() + hours * 3_600_000);

function recordingLog(): Log & { entries: { level: string; message: string; extra: unknown[] }[] } {
  const entries: { level: string; message: string; extra: unknown[] }[] = [];
  const record =
    (level: string) =>
    (message: string, ...extra: unknown[]) =>
      void entries.push({ level, message, extra });
  return { entries, debug: record('debug'), info: record('info'), warn: record('warn'), error: record('error') };
}

describe('resolveLink against s3rver', () => {
  let s3: S3rverHandle;
  let presigner: Presigner;
  const data = patternBytes(200_000, 11);

  beforeAll(async () => {
    s3 = await startS3rver();
    const storage = new S3Storage({ client: s3.client, bucket: s3.bucket, prefix: 'exports' });
    await storage.putObject(`${runKey}/risks.csv`, data, { contentType: 'text/csv' });
    presigner = createPresigner({ client: s3.client, bucket: s3.bucket, prefix: 'exports' });
  });
  afterAll(async () => {
    await s3.close();
  });

  it('redirects a valid token to a short-lived URL that downloads the right bytes', async () => {
    const token = createLinkToken({ runKey, file: 'risks.csv', expiresAt: inHours(24) }, key, now);
    const log = recordingLog();
    const result = await resolveLink(token, { keys: { current: key }, presign: presigner.presignGet, log, now });
    expect(result.status).toBe(302);
    if (result.status !== 302) return;
    expect(result.location).toContain('X-Amz-Expires=300');
    expect(result.location).toContain('/exports/acme-weekly/dt%3D2024-05-06/run%3Dr1/risks.csv');
    const response = await fetch(result.location);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-disposition')).toContain('filename="risks.csv"');
    expect(sha256(new Uint8Array(await response.arrayBuffer()))).toBe(sha256(data));
    expect(JSON.stringify(log.entries)).not.toContain(token);
  });

  it('uses ttlSeconds for the presigned URL', async () => {
    const token = createLinkToken({ runKey, file: 'risks.csv', expiresAt: inHours(1) }, key, now);
    const result = await resolveLink(token, { keys: { current: key }, presign: presigner.presignGet, ttlSeconds: 60, now });
    expect(result.status === 302 && result.location).toContain('X-Amz-Expires=60');
  });

  it('answers 403 for every kind of bad token, and logs only the reason', async () => {
    const valid = createLinkToken({ runKey, file: 'risks.csv', expiresAt: inHours(1) }, key, now);
    const other = createLinkToken(
      { runKey, file: 'risks.csv', expiresAt: inHours(1) },
      { id: 'k1', secret: 'z'.repeat(48) },
      now,
    );
    const log = recordingLog();
    const options = { keys: { current: key }, presign: presigner.presignGet, log, now };
    expect(await resolveLink('garbage', options)).toEqual({ status: 403 });
    expect(await resolveLink(other, options)).toEqual({ status: 403 });
    expect(await resolveLink(valid, { ...options, now: inHours(2) })).toEqual({ status: 403 });
    expect(log.entries.map((e) => [e.level, e.extra[0]])).toEqual([
      ['warn', { reason: 'malformed' }],
      ['warn', { reason: 'bad-signature' }],
      ['warn', { reason: 'expired' }],
    ]);
    expect(JSON.stringify(log.entries)).not.toContain(other);
  });

  it('does not check whether the object exists (no 404 to tell real tokens apart)', async () => {
    const token = createLinkToken({ runKey, file: 'missing.csv', expiresAt: inHours(1) }, key, now);
    const result = await resolveLink(token, { keys: { current: key }, presign: presigner.presignGet, now });
    expect(result.status).toBe(302);
  });
});
