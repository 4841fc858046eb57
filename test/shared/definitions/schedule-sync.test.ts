// @tier slow
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { SchedulerClient } from '@aws-sdk/client-scheduler';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ScheduleError } from '../../../shared/core/errors';
import type { Log } from '../../../shared/core/logger';
import { DefinitionStore } from '../../../shared/definitions/definition-store';
import { EventBridgeReportScheduler } from '../../../shared/definitions/scheduler-client';
import type { ReportScheduler } from '../../../shared/definitions/report-schedule';
import { syncReportSchedule, syncReportSchedules } from '../../../shared/definitions/schedule-sync';
import { S3Storage } from '../../../shared/storage/s3-storage';
import { rejectionOf } from '../../support/rejection';
import { startS3rver, type S3rverHandle } from '../../support/s3rver';
import { startSchedulerStub, type SchedulerStub } from '../../support/scheduler-stub';
import { storedReports } from '../../support/door-settings';

const TARGET = {
  groupName: 'exporter-reports',
  targetArn: 'arn:aws:sqs:eu-central-1:123456789012:scheduled-runs',
  roleArn: 'arn:aws:iam::123456789012:role/scheduler-invoke',
  deadLetterArn: 'arn:aws:sqs:eu-central-1:123456789012:scheduler-dlq',
};
const weekly = (name: string, cron = 'cron(0 7 ? * MON *)') => ({
  definition: { name, title: `Train ${name}`, timeZone: 'Europe/Berlin', datasets: { risks: {}, piObjectives: {} } },
  schedule: { cron, timeZone: 'Europe/Berlin' },
});

let s3: S3rverHandle;
let stub: SchedulerStub;
let store: DefinitionStore;
let scheduler: EventBridgeReportScheduler;
let client: SchedulerClient;
const errors: { message: string; extra: unknown }[] = [];
const log: Log = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: (message: string, extra?: unknown) => void errors.push({ message, extra }),
} as Log;

beforeAll(async () => {
  s3 = await startS3rver({ bucket: 'definitions' });
  stub = await startSchedulerStub();
  store = storedReports(new S3Storage({ client: s3.client, bucket: s3.bucket, prefix: '' }));
  client = new SchedulerClient({ endpoint: stub.endpoint, region: 'eu-central-1', credentials: { accessKeyId: 'test', secretAccessKey: 'test' } });
  scheduler = new EventBridgeReportScheduler(TARGET, client);
});
afterAll(async () => {
  await Promise.all([s3.close(), stub.close()]);
});
beforeEach(() => {
  stub.schedules.clear();
  stub.requests.length = 0;
  errors.length = 0;
});

describe('schedule sync', () => {
  it('makes one schedule per stored report for 50 reports: cron in its zone, the report payload, retries and the dead-letter queue', async () => {
    const names = Array.from({ length: 50 }, (_, i) => `train-${String(i).padStart(3, '0')}`);
    for (const name of names) await store.put(weekly(name, `cron(${i(name) % 60} 7 ? * MON *)`));
    expect(await store.names()).toEqual(names);

    const results = await syncReportSchedules([...names, names[0]!], { store, scheduler, log });
    expect(results.map((r) => r.action)).toEqual(names.map(() => 'created'));
    expect(stub.schedules.size).toBe(50);
    const one = stub.schedules.get('exporter-reports/train-042');
    expect(one).toEqual({
      Name: 'train-042',
      GroupName: 'exporter-reports',
      Description: 'planning-report-exporter: export "train-042" cron(42 7 ? * MON *) Europe/Berlin',
      ScheduleExpression: 'cron(42 7 ? * MON *)',
      ScheduleExpressionTimezone: 'Europe/Berlin',
      FlexibleTimeWindow: { Mode: 'OFF' },
      State: 'ENABLED',
      Target: {
        Arn: TARGET.targetArn,
        RoleArn: TARGET.roleArn,
        Input: JSON.stringify({ report: 'train-042', source: 'schedule', scheduledTime: '<aws.scheduler.scheduled-time>', executionId: '<aws.scheduler.execution-id>' }),
        DeadLetterConfig: { Arn: TARGET.deadLetterArn },
        RetryPolicy: { MaximumRetryAttempts: 2, MaximumEventAgeInSeconds: 3600 },
      },
    });
    // Every request went to the stack's group, and no other.
    expect(new Set(stub.requests.map((r) => r.group))).toEqual(new Set(['exporter-reports']));
  });

  it('moves a schedule made before the scheduled-runs queue, which invokes the function, onto the queue when the report is synced again', async () => {
    await store.put(weekly('train-old'));
    // What a stack from before the queue left: the same schedule, its target the export function.
    const before = new EventBridgeReportScheduler({ ...TARGET, targetArn: 'arn:aws:lambda:eu-central-1:123456789012:function:export-report' }, client);
    expect((await syncReportSchedule('train-old', { store, scheduler: before, log })).action).toBe('created');
    const old = stub.schedules.get('exporter-reports/train-old')!;
    expect(old.Target.Arn).toMatch(/:function:export-report$/);
    expect((await syncReportSchedule('train-old', { store, scheduler, log })).action).toBe('updated');
    const moved = stub.schedules.get('exporter-reports/train-old')!;
    expect(moved).toEqual({ ...old, Target: { ...old.Target, Arn: TARGET.targetArn } });
  });

  it('lets Scheduler start a report that allows it anywhere in its window ("deliver by 07:15"), and turns the window off again', async () => {
    await store.put({ ...weekly('train-window'), schedule: { cron: 'cron(0 7 ? * MON *)', timeZone: 'Europe/Berlin', windowMinutes: 15 } });
    expect((await syncReportSchedule('train-window', { store, scheduler, log })).action).toBe('created');
    const held = stub.schedules.get('exporter-reports/train-window');
    expect(held?.FlexibleTimeWindow).toEqual({ Mode: 'FLEXIBLE', MaximumWindowInMinutes: 15 });
    expect(held?.Description).toBe('planning-report-exporter: export "train-window" cron(0 7 ? * MON *) Europe/Berlin within 15 min');
    await store.put(weekly('train-window'));
    expect((await syncReportSchedule('train-window', { store, scheduler, log })).action).toBe('updated');
    expect(stub.schedules.get('exporter-reports/train-window')?.FlexibleTimeWindow).toEqual({ Mode: 'OFF' });
  });

  it('updates a changed schedule, deletes it when the report is deleted or goes on demand, and does nothing for one never scheduled', async () => {
    await store.put(weekly('train-a'));
    expect((await syncReportSchedule('train-a', { store, scheduler, log })).action).toBe('created');
    await store.put(weekly('train-a', 'cron(0 8 ? * FRI *)'));
    expect((await syncReportSchedule('train-a', { store, scheduler, log })).action).toBe('updated');
    expect(stub.schedules.get('exporter-reports/train-a')?.ScheduleExpression).toBe('cron(0 8 ? * FRI *)');

    await store.put({ ...weekly('train-a'), schedule: null });
    expect((await syncReportSchedule('train-a', { store, scheduler, log })).action).toBe('deleted');
    expect(stub.schedules.has('exporter-reports/train-a')).toBe(false);
    expect((await syncReportSchedule('train-a', { store, scheduler, log })).action).toBe('unchanged');

    await store.put(weekly('train-b'));
    await syncReportSchedule('train-b', { store, scheduler, log });
    await store.remove('train-b');
    expect((await syncReportSchedule('train-b', { store, scheduler, log })).action).toBe('deleted');
    expect(stub.schedules.size).toBe(0);
  });

  it('acts on what is stored now, so a late event for an older version changes nothing', async () => {
    await store.put(weekly('train-c', 'cron(0 6 ? * MON *)'));
    await store.put(weekly('train-c', 'cron(0 9 ? * MON *)'));
    // Two events, one per upload, both arriving after the second upload: both read the second.
    await syncReportSchedules(['train-c'], { store, scheduler, log });
    await syncReportSchedules(['train-c'], { store, scheduler, log });
    expect(stub.schedules.get('exporter-reports/train-c')?.ScheduleExpression).toBe('cron(0 9 ? * MON *)');
  });

  it('ends in the last upload when two syncs overlap: the one that read the older version writes, reads again and corrects', async () => {
    await store.put(weekly('train-r', 'cron(0 6 ? * MON *)'));
    // Sync A reads the 06:00 version; while its schedule write is in flight a second upload (09:00)
    // lands and sync B, overlapping, writes that version's schedule first. A's write comes last.
    let overtaken = false;
    const overtaking: ReportScheduler = {
      get: (name) => scheduler.get(name),
      remove: (name) => scheduler.remove(name),
      put: async (spec) => {
        if (!overtaken) {
          overtaken = true;
          await store.put(weekly('train-r', 'cron(0 9 ? * MON *)'));
          await syncReportSchedule('train-r', { store, scheduler, log });
          expect(stub.schedules.get('exporter-reports/train-r')?.ScheduleExpression).toBe('cron(0 9 ? * MON *)');
        }
        return scheduler.put(spec);
      },
    };
    const result = await syncReportSchedule('train-r', { store, scheduler: overtaking, log });
    expect(overtaken).toBe(true);
    expect(result.action).toBe('updated');
    expect(stub.schedules.get('exporter-reports/train-r')?.ScheduleExpression).toBe('cron(0 9 ? * MON *)');
  });

  it('leaves the schedule of a report whose stored object is invalid as it was, and logs every problem', async () => {
    await store.put(weekly('train-d'));
    await syncReportSchedule('train-d', { store, scheduler, log });
    // A hand-made upload that skipped `npm run reports -- validate`.
    await s3.client.send(new PutObjectCommand({ Bucket: s3.bucket, Key: 'definitions/train-d.json', Body: '{"definition":{"name":"train-d"},"schedule":{"cron":"daily"}}' }));
    const result = await syncReportSchedule('train-d', { store, scheduler, log });
    expect(result.action).toBe('invalid');
    expect([...new Set(result.problems?.map((p) => p.path))].sort()).toEqual(['definition.datasets', 'schedule.cron', 'schedule.timeZone']);
    expect(stub.schedules.get('exporter-reports/train-d')?.ScheduleExpression).toBe('cron(0 7 ? * MON *)');
    expect(errors).toEqual([expect.objectContaining({ message: 'stored report is invalid; its schedule is left as it was' })]);
  });

  it('refuses an object whose definition names another report, so one upload cannot take over another\'s schedule', async () => {
    await s3.client.send(new PutObjectCommand({ Bucket: s3.bucket, Key: 'definitions/train-e.json', Body: JSON.stringify(weekly('train-f')) }));
    const result = await syncReportSchedule('train-e', { store, scheduler, log });
    expect(result).toMatchObject({ action: 'invalid', problems: [{ path: 'definition.name', message: 'is named "train-f"; store it as definitions/train-f.json' }] });
    expect(stub.schedules.size).toBe(0);
  });

  it('gets through a throttled request (the SDK retries) and fails a lasting one with a retryable ScheduleError that names no ARN', async () => {
    await store.put(weekly('train-g'));
    stub.failNext(1, 429, 'ThrottlingException');
    expect((await syncReportSchedule('train-g', { store, scheduler, log })).action).toBe('created');

    stub.failNext(10, 503, 'InternalServerException');
    const error = await rejectionOf(syncReportSchedule('train-g', { store, scheduler, log }));
    expect(error).toBeInstanceOf(ScheduleError);
    expect(error).toMatchObject({ retryable: true });
    expect(error.message).toBe('could not create the schedule of "train-g" in group "exporter-reports": InternalServerException');
    expect(error.message).not.toMatch(/arn:/);
    stub.failNext(0, 200, '');
  });
});

function i(name: string): number {
  return Number(name.slice(-3));
}
