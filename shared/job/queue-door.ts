/**
 * The export function's door for scheduled runs: EventBridge Scheduler puts each run's payload on the
 * scheduled-runs queue, and the SQS event source hands the function one message at a time, at most
 * the stack's `scheduledConcurrency` at once (docs/architecture.md, "A fleet at one hour"). A run that
 * failed and may succeed later is reported as a batch item failure: its message reappears after the
 * visibility timeout and is tried again, until the queue's redrive policy moves it to the dead-letter
 * queue after `SCHEDULED_RUNS.maxReceiveCount` receives. The receive count is how a run knows its last
 * attempt: only then is a failure final.
 */

import * as z from 'zod';
import { errorMessage } from '../core/errors';
import type { Log } from '../core/logger';
import { SCHEDULED_RUNS } from '../core/names';
import { attemptOf, type RunAttempt } from './attempt';
import { exportJobRequestSchema, type ExportJobRequest } from './request';

/**
 * The parts of SQS's event the door reads (Powertools' SqsSchema names the same fields). Our own rather
 * than Powertools': its schema imports zod's whole `z` namespace object, whose 264 kB of locales then
 * land in the export function's index.mjs (1.02 → 1.42 MB, measured with esbuild's metafile), which
 * every cold start parses; `import * as z` lets esbuild keep only what is used.
 */
export const queuedRunsSchema = z.object({
  Records: z.array(
    z.object({
      messageId: z.string(),
      body: z.string(),
      attributes: z.object({ ApproximateReceiveCount: z.string() }).loose(),
      eventSource: z.literal('aws:sqs'),
    }).loose(),
  ),
});
export type QueuedRuns = z.infer<typeof queuedRunsSchema>;

/** SQS's partial batch response (the event source's `reportBatchItemFailures`). */
export interface QueuedRunsResponse {
  readonly batchItemFailures: { readonly itemIdentifier: string }[];
}

/** A queued run: resolves when the message is done with (succeeded, or failed for good); throws to be tried again. */
export type RunQueued = (request: ExportJobRequest, attempt: RunAttempt) => Promise<unknown>;

/** An SQS event, told apart from the other doors' payloads before it is parsed. */
export function isQueuedRuns(event: unknown): boolean {
  if (typeof event !== 'object' || event === null || !('Records' in event) || !Array.isArray(event.Records)) return false;
  const first: unknown = event.Records[0];
  return typeof first === 'object' && first !== null && 'eventSource' in first && first.eventSource === 'aws:sqs';
}

/** The attempt a receive count makes (1 on the first receive), against the stack's redrive policy: the door's one fact about retries. */
export function queuedAttempt(receiveCount: number, maxReceiveCount: number = SCHEDULED_RUNS.maxReceiveCount): RunAttempt {
  return attemptOf(receiveCount, maxReceiveCount);
}

/** Each message's run, one after another (the event source sends one at a time); the failed ones are named for SQS. */
export async function runQueuedJobs(event: QueuedRuns, run: RunQueued, log: Log): Promise<QueuedRunsResponse> {
  const batchItemFailures: { itemIdentifier: string }[] = [];
  for (const record of event.Records) {
    const attempt = queuedAttempt(Number(record.attributes.ApproximateReceiveCount));
    try {
      await run(exportJobRequestSchema.parse(JSON.parse(record.body)), attempt);
    } catch (error) {
      // A body that is no request fails on every receive too and lands in the dead-letter queue, where
      // the alarm shows it: better than a scheduled run deleted unseen.
      log.warn('queued run not done; SQS tries it again after the visibility timeout unless this was its last receive', {
        messageId: record.messageId,
        receiveCount: attempt.number,
        lastAttempt: attempt.last,
        error: errorMessage(error),
      });
      batchItemFailures.push({ itemIdentifier: record.messageId });
    }
  }
  return { batchItemFailures };
}
