// @tier slow
import { DeleteObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { storedDefinitionText } from '../../../shared/definitions/stored-definition';
import { lambdaContext } from '../../support/lambda-events';
import { startS3rver, type S3rverHandle } from '../../support/s3rver';
import { startSchedulerStub, type SchedulerStub } from '../../support/scheduler-stub';

/**
 * The sync function as deployed: its handler module with the stack's environment, a real S3 client
 * against s3rver and a real Scheduler client against the stand-in. An upload is followed by the
 * event S3 sends EventBridge for it (the rule's pattern is checked in the stack test).
 */
type Handler = (event: unknown, context: ReturnType<typeof lambdaContext>) => Promise<{ report: string; action: string }[]>;

let s3: S3rverHandle;
let stub: SchedulerStub;
let handler: Handler;
const saved: Record<string, string | undefined> = {};

function s3Event(type: 'Object Created' | 'Object Deleted', key: string): unknown {
  return {
    version: '0',
    id: '17793124-05d4-b198-2fde-7ededc63b103',
    'detail-type': type,
    source: 'aws.s3',
    account: '123456789012',
    time: '2026-11-24T06:00:00Z',
    region: 'eu-central-1',
    resources: [`arn:aws:s3:::${s3.bucket}`],
    detail: {
      version: '0',
      bucket: { name: s3.bucket },
      object: { key, size: 120, sequencer: '00617F08299329D189' },
      'request-id': 'N4N7GDK58NMKJ12R',
      requester: '123456789012',
      'source-ip-address': '2001:db8::7',
      reason: 'PutObject',
    },
  };
}

const report = (cron: string | null) =>
  storedDefinitionText({
    definition: { name: 'train-a', datasets: { risks: {} } },
    schedule: cron === null ? null : { cron, timeZone: 'Europe/Berlin' },
  });

beforeAll(async () => {
  s3 = await startS3rver({ bucket: 'definitions-bucket' });
  stub = await startSchedulerStub();
  const env: Record<string, string> = {
    AWS_REGION: 'eu-central-1',
    AWS_ACCESS_KEY_ID: 'S3RVER',
    AWS_SECRET_ACCESS_KEY: 'S3RVER',
    AWS_ENDPOINT_URL_S3: s3.endpoint,
    AWS_ENDPOINT_URL_SCHEDULER: stub.endpoint,
    AWS_MAX_ATTEMPTS: '1',
    DEFINITIONS_BUCKET: s3.bucket,
    SCHEDULE_GROUP: 'stack-reports',
    SCHEDULE_TARGET_ARN: 'arn:aws:sqs:eu-central-1:123456789012:scheduled-runs',
    SCHEDULER_ROLE_ARN: 'arn:aws:iam::123456789012:role/scheduler-invoke',
    SCHEDULER_DEAD_LETTER_ARN: 'arn:aws:sqs:eu-central-1:123456789012:scheduler-dlq',
    POWERTOOLS_TRACE_ENABLED: 'false',
    POWERTOOLS_METRICS_DISABLED: 'true',
    POWERTOOLS_LOG_LEVEL: 'SILENT',
  };
  for (const [k, v] of Object.entries(env)) {
    saved[k] = process.env[k];
    process.env[k] = v;
  }
  vi.resetModules();
  handler = (await import('../../../lambdas/definitions-sync/handler')).handler;
});

afterAll(async () => {
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  await Promise.all([s3.close(), stub.close()]);
});

describe('definitions-sync', () => {
  it('makes the schedule when a report is uploaded, changes it with the next upload, and removes it when the object is deleted', async () => {
    const context = lambdaContext('definitions-sync');
    await s3.client.send(new PutObjectCommand({ Bucket: s3.bucket, Key: 'definitions/train-a.json', Body: report('cron(0 7 ? * MON *)') }));
    expect(await handler(s3Event('Object Created', 'definitions/train-a.json'), context)).toEqual([{ report: 'train-a', action: 'created' }]);
    expect(stub.schedules.get('stack-reports/train-a')).toMatchObject({ ScheduleExpression: 'cron(0 7 ? * MON *)', ScheduleExpressionTimezone: 'Europe/Berlin' });

    await s3.client.send(new PutObjectCommand({ Bucket: s3.bucket, Key: 'definitions/train-a.json', Body: report('cron(30 6 ? * TUE *)') }));
    expect(await handler(s3Event('Object Created', 'definitions/train-a.json'), context)).toEqual([{ report: 'train-a', action: 'updated' }]);
    expect(stub.schedules.get('stack-reports/train-a')?.ScheduleExpression).toBe('cron(30 6 ? * TUE *)');

    await s3.client.send(new DeleteObjectCommand({ Bucket: s3.bucket, Key: 'definitions/train-a.json' }));
    expect(await handler(s3Event('Object Deleted', 'definitions/train-a.json'), context)).toEqual([{ report: 'train-a', action: 'deleted' }]);
    expect(stub.schedules.size).toBe(0);
  });

  it('re-syncs named reports on a manual event, and ignores keys under the prefix that name no report', async () => {
    const context = lambdaContext('definitions-sync');
    await s3.client.send(new PutObjectCommand({ Bucket: s3.bucket, Key: 'definitions/train-a.json', Body: report('cron(0 7 ? * MON *)') }));
    expect(await handler({ reports: ['train-a'] }, context)).toEqual([{ report: 'train-a', action: 'created' }]);
    expect(await handler(s3Event('Object Created', 'definitions/README.txt'), context)).toEqual([]);
  });

  it('refuses an event it does not know with the field that is wrong', async () => {
    await expect(handler({ source: 'aws.s3', 'detail-type': 'Object Restored', detail: {} }, lambdaContext('definitions-sync'))).rejects.toThrow(/detail-type|reports/);
  });
});
