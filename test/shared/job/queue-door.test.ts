import { describe, expect, it } from 'vitest';
import { RetryableExportError } from '../../../shared/core/errors';
import { silentLog } from '../../../shared/core/logger';
import { SCHEDULED_RUNS } from '../../../shared/core/names';
import type { RunAttempt } from '../../../shared/job/attempt';
import { isQueuedRuns, queuedRunsSchema, runQueuedJobs } from '../../../shared/job/queue-door';
import type { ExportJobRequest } from '../../../shared/job/request';
import { sqsEvent } from '../../support/lambda-events';

/**
 * The export function's door for the scheduled-runs queue (shared/job/queue-door.ts): what it hands the
 * job (the request Scheduler sent, the attempt its receive count makes) and what it answers SQS (the
 * messages to keep, as batch item failures). The run is the door's port: the job itself is the fleet's
 * (test/shared/job/fleet.test.ts) and the handler's (test/lambdas/export-report/handler.test.ts).
 */
const PAYLOAD = { report: 'weekly', source: 'schedule', scheduledTime: '2026-11-30T06:00:00Z', executionId: 'exec-1' };
const parsed = (receiveCount: number, body: unknown = PAYLOAD) => queuedRunsSchema.parse(sqsEvent(body, receiveCount, `msg-${receiveCount}`));

/** Runs the door with a run that records what it was given and fails as told. */
async function door(receiveCount: number, outcome: 'ok' | Error, body?: unknown) {
  const seen: { request: ExportJobRequest; attempt: RunAttempt }[] = [];
  const answer = await runQueuedJobs(
    parsed(receiveCount, body),
    (request, attempt) => {
      seen.push({ request, attempt });
      return outcome === 'ok' ? Promise.resolve({ status: 'succeeded' }) : Promise.reject(outcome);
    },
    silentLog,
  );
  return { seen, answer };
}

describe('the queue door of the export function', () => {
  it('tells an SQS event from the other doors\' payloads', () => {
    expect(isQueuedRuns(sqsEvent(PAYLOAD, 1))).toBe(true);
    expect(isQueuedRuns(PAYLOAD)).toBe(false);
    expect(isQueuedRuns({ Records: [{ eventSource: 'aws:s3' }] })).toBe(false);
    expect(isQueuedRuns({ Records: [] })).toBe(false);
  });

  it('hands the job the request Scheduler sent, and deletes the message when the run is done', async () => {
    const { seen, answer } = await door(1, 'ok');
    expect(seen).toEqual([{ request: PAYLOAD, attempt: { number: 1, last: false } }]);
    expect(answer).toEqual({ batchItemFailures: [] });
  });

  it('keeps a message whose run failed retryably, so SQS hands it out again after the visibility timeout', async () => {
    const { seen, answer } = await door(1, new RetryableExportError('planning API unavailable'));
    expect(seen[0]?.attempt.last).toBe(false);
    expect(answer).toEqual({ batchItemFailures: [{ itemIdentifier: 'msg-1' }] });
  });

  it('calls the receive at the redrive policy\'s count the last attempt: the run is told, and a failure still goes to the dead-letter queue', async () => {
    const { seen, answer } = await door(SCHEDULED_RUNS.maxReceiveCount, new RetryableExportError('planning API unavailable'));
    expect(seen[0]?.attempt).toEqual({ number: SCHEDULED_RUNS.maxReceiveCount, last: true });
    expect(answer).toEqual({ batchItemFailures: [{ itemIdentifier: `msg-${SCHEDULED_RUNS.maxReceiveCount}` }] });
    expect((await door(SCHEDULED_RUNS.maxReceiveCount - 1, 'ok')).seen[0]?.attempt.last).toBe(false);
  });

  it('keeps a body that is no request (it lands in the dead-letter queue and its alarm) and runs nothing', async () => {
    const { seen, answer } = await door(1, 'ok', { report: 42 });
    expect(seen).toEqual([]);
    expect(answer).toEqual({ batchItemFailures: [{ itemIdentifier: 'msg-1' }] });
  });
});
