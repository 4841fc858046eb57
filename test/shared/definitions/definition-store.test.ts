// @tier slow
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ReportDefinitionError, StorageError } from '../../../shared/core/errors';
import { DefinitionStore } from '../../../shared/definitions/definition-store';
import { storedDefinitionText } from '../../../shared/definitions/stored-definition';
import { S3Storage } from '../../../shared/storage/s3-storage';
import { rejectionOf } from '../../support/rejection';
import { startS3rver, type S3rverHandle } from '../../support/s3rver';
import { storedReports } from '../../support/door-settings';

let s3: S3rverHandle;
const text = (title: string) => storedDefinitionText({ definition: { name: 'train-a', title, datasets: { risks: {} } }, schedule: null });
const upload = (key: string, body: string) => s3.client.send(new PutObjectCommand({ Bucket: s3.bucket, Key: key, Body: body }));

beforeAll(async () => {
  s3 = await startS3rver({ bucket: 'definitions' });
});
afterAll(async () => {
  await s3.close();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('definition store', () => {
  it('reuses a definition it read for maxAge, then reads the upload that replaced it, without a redeploy', async () => {
    // Near the real time: s3rver refuses requests signed more than 15 minutes off its clock.
    const start = Date.now();
    vi.useFakeTimers({ toFake: ['Date'], now: start });
    const store = new DefinitionStore(new S3Storage({ client: s3.client, bucket: s3.bucket, prefix: '' }), { maxAgeSeconds: 60 });
    await upload('definitions/train-a.json', text('First'));
    expect(await store.get('train-a')).toMatchObject({ title: 'First' });

    await upload('definitions/train-a.json', text('Second'));
    vi.setSystemTime(start + 59_000);
    expect(await store.get('train-a')).toMatchObject({ title: 'First' });
    vi.setSystemTime(start + 61_000);
    expect(await store.get('train-a')).toMatchObject({ title: 'Second' });
    // The sync function reads past the cache.
    await upload('definitions/train-a.json', text('Third'));
    expect((await store.read('train-a', { fresh: true }))?.parsed.title).toBe('Third');
  });

  it('answers undefined for an unknown report or a name that is not a report name, without reading anything odd', async () => {
    const store = storedReports(new S3Storage({ client: s3.client, bucket: s3.bucket, prefix: '' }));
    expect(await store.get('no-such-report')).toBeUndefined();
    expect(await store.get('../reports/x')).toBeUndefined();
  });

  it('fails an invalid stored object with a ReportDefinitionError naming the object, and a store failure as a StorageError', async () => {
    const store = storedReports(new S3Storage({ client: s3.client, bucket: s3.bucket, prefix: '' }));
    await upload('definitions/train-b.json', '{"definition": {"name": "train-b"}}');
    const invalid = await rejectionOf(store.get('train-b'));
    expect(invalid).toBeInstanceOf(ReportDefinitionError);
    expect(invalid.message).toMatch(/^stored report s3:\/\/definitions\/definitions\/train-b\.json is invalid:\n {2}- definition\.datasets:/);

    const missing = storedReports(new S3Storage({ client: s3.client, bucket: 'no-such-bucket', prefix: '' }));
    expect(await rejectionOf(missing.get('train-a'))).toBeInstanceOf(StorageError);
  });

  it('lists report names sorted and skips other keys; put and remove go through the same keys', async () => {
    const store = storedReports(new S3Storage({ client: s3.client, bucket: s3.bucket, prefix: '' }));
    await upload('definitions/notes.txt', 'not a report');
    await store.put({ definition: { name: 'train-c', datasets: { okrs: {} } }, schedule: { cron: 'cron(0 7 ? * MON *)', timeZone: 'UTC' } });
    expect(await store.names()).toEqual(expect.arrayContaining(['train-a', 'train-b', 'train-c']));
    expect(await store.names()).not.toContain('notes');
    await store.remove('train-c');
    expect(await store.names()).not.toContain('train-c');
    expect(await store.get('train-c')).toBeUndefined();
  });
});
