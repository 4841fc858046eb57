// @tier slow
import { systemClock } from '../../../../shared/core/clock';
import { createHash } from 'node:crypto';
import { GetObjectCommand, GetObjectTaggingCommand, HeadObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPresigner } from '../../../../shared/links/presign';
import { DynamoDbLedger } from '../../../../shared/ledger/dynamodb-ledger';
import { S3Storage } from '../../../../shared/storage/s3-storage';
import { StorageError } from '../../../../shared/core/errors';
import { parseReportDefinition } from '../../../../shared/report/definition/definition';
import { runOf } from '../../../support/run-builder';
import type { ExportResult } from '../../../../shared/report/run/result';
import { startSimulator, type RunningSimulator } from '../../../../simulator/index';
import { startDynalite, type DynaliteHandle } from '../../../support/dynalite';
import { startS3rver, type S3rverHandle } from '../../../support/s3rver';
import { LARGE_ROWS } from '../../../support/test-tiers';

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/**
 * Two boards of 10,000 features with 5 stories each (every 7th feature has none): over 105,000
 * board-item rows, streamed through xlsx and CSV renderers into S3 multipart uploads.
 */
describe('a 100,000-row export to S3', () => {
  let sim: RunningSimulator;
  let s3: S3rverHandle;
  let dynamo: DynaliteHandle;
  let result: ExportResult;
  const prefix = 'exports';

  beforeAll(async () => {
    sim = await startSimulator({ tenant: { boards: 2, itemsPerBoard: 10_000, storiesPerItem: 5, registers: 1, risksPerRegister: 3 } });
    s3 = await startS3rver({ bucket: 'big-reports' });
    dynamo = await startDynalite();
    result = await runOf(parseReportDefinition({ name: 'big', datasets: { boardItems: {} } }))
      .withStorage(new S3Storage({ client: s3.client, bucket: s3.bucket, prefix }))
      .withLedger(new DynamoDbLedger({ client: dynamo.client, tableName: dynamo.tableName }))
      .against(sim)
      .at(systemClock)
      .withRunId('big-1')
      .export();
  }, 300_000);
  afterAll(async () => {
    await Promise.all([sim.close(), s3.close(), dynamo.close()]);
  });

  it('stores every row and lists each file with its exact size and sha256', async () => {
    const workbook = result.manifest.files.find((f) => f.format === 'xlsx')!;
    const expected = sim.tenant.boards.reduce(
      (n, b) => n + sim.tenant.boardItems(b.id).reduce((m, item) => m + 1 + (item.stories?.length ?? 0), 0),
      0,
    );
    expect(expected).toBeGreaterThanOrEqual(LARGE_ROWS);
    expect(workbook.rows['board-items']).toBe(expected);
    for (const file of result.manifest.files) {
      const head = await s3.client.send(
        new HeadObjectCommand({ Bucket: s3.bucket, Key: `${prefix}/${result.runFolder}/${file.path}` }),
      );
      expect(head.ContentLength).toBe(file.bytes);
      expect(head.ContentType).toBe(file.contentType);
      expect(head.ContentDisposition).toContain(`filename="`);
      expect(head.Metadata).toMatchObject({ report: 'big', 'run-id': 'big-1' });
      // Row counts are known only after the file is written, so they are attached as tags.
      const tags = await s3.client.send(
        new GetObjectTaggingCommand({ Bucket: s3.bucket, Key: `${prefix}/${result.runFolder}/${file.path}` }),
      );
      const rows = Object.values(file.rows).reduce((a, b) => a + b, 0);
      expect(tags.TagSet).toEqual(expect.arrayContaining([{ Key: 'rows', Value: String(rows) }, { Key: 'run-id', Value: 'big-1' }]));
    }
  });

  it('serves the same bytes through presigned URLs, and counts the CSV rows', async () => {
    const presigner = createPresigner({ client: s3.client, bucket: s3.bucket, prefix });
    for (const file of result.manifest.files) {
      const url = await presigner.presignGet(`${result.runFolder}/${file.path}`, { expiresInSeconds: 300, downloadName: file.path });
      const response = await fetch(url);
      expect(response.status).toBe(200);
      const bytes = new Uint8Array(await response.arrayBuffer());
      expect(bytes.length).toBe(file.bytes);
      expect(sha256(bytes)).toBe(file.sha256);
      if (file.format === 'csv') {
        const rows: string[][] = parse(Buffer.from(bytes), { bom: true });
        expect(rows.length - 1).toBe(Object.values(file.rows)[0]);
      }
    }
  });

  it('refuses a presigned URL once it has expired', async () => {
    // Signed an hour ago for one second: expired by the server's clock, however busy the machine.
    const anHourAgo = () => new Date(Date.now() - 3_600_000);
    const presigner = createPresigner({ client: s3.client, bucket: s3.bucket, prefix, clock: anHourAgo });
    const url = await presigner.presignGet(`${result.runFolder}/board-items.csv`, { expiresInSeconds: 1 });
    const response = await fetch(url);
    expect(response.status).toBe(403);
    expect(await response.text()).toMatch(/expired/i);
  });

  // A hang guard (the default 60 s is not enough beside a CPU burner); no speed is asserted.
  it('keeps latest.json on the previous good run when S3 fails in the middle of a run', async () => {
    // A client whose uploads start failing after the first object: the CSV is stored, the workbook is not.
    let puts = 0;
    const failing = s3.createClient();
    failing.middlewareStack.add(
      (next, context) => async (args) => {
        const command = context.commandName ?? '';
        if (/^(PutObject|UploadPart|CreateMultipartUpload)/.test(command) && ++puts > 3) {
          throw new Error('injected S3 failure');
        }
        return next(args);
      },
      { step: 'initialize', name: 'injectFailure' },
    );
    await expect(
      runOf(parseReportDefinition({ name: 'big', datasets: { risks: {}, boardItems: {} } }))
        .withStorage(new S3Storage({ client: failing, bucket: s3.bucket, prefix }))
        .withLedger(new DynamoDbLedger({ client: dynamo.client, tableName: dynamo.tableName }))
        .against(sim)
        .at(systemClock)
        .withRunId('big-2')
        .export(),
    ).rejects.toThrow(StorageError);
    const latest = await s3.client.send(new GetObjectCommand({ Bucket: s3.bucket, Key: `${prefix}/big/latest.json` }));
    expect(JSON.parse(await latest.Body!.transformToString()).runId).toBe('big-1');
    const leftovers = await s3.client.send(new ListObjectsV2Command({ Bucket: s3.bucket, Prefix: `${prefix}/big/` }));
    expect((leftovers.Contents ?? []).map((o) => o.Key).filter((k) => k?.includes('run=big-2'))).toEqual([]);
  }, 300_000);
});
