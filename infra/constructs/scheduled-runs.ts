import { Duration } from 'aws-cdk-lib';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { SCHEDULED_RUNS } from '../../shared/core/names';
import { SecureQueue } from './secure-queue';

export interface ScheduledRunsProps {
  /** The export function, which takes the runs from the queue. */
  readonly target: lambda.Function;
  /** Its timeout: a message stays invisible for six of them while its run works. */
  readonly functionTimeout: Duration;
  /** Runs at once: the event source's maximum concurrency (infra/config.ts, DEFAULT_SCHEDULED_CONCURRENCY). */
  readonly maxConcurrency: number;
}

/**
 * AWS's guidance for an SQS event source: a visibility timeout of at least six times the function's
 * timeout, so a message is not handed out again while its first run still works, nor while Lambda retries
 * a throttled batch.
 */
export const VISIBILITY_TIMEOUTS_PER_FUNCTION_TIMEOUT = 6;

/**
 * The queue between EventBridge Scheduler and the export function (docs/architecture.md, "A fleet at
 * one hour"): every schedule sends its run here, and the SQS event source hands the function one message
 * at a time, at most `maxConcurrency` at once, a freed slot taking the next message at once. A run that
 * may succeed later is reported as a batch item failure (shared/job/queue-door.ts) and comes back after
 * the visibility timeout; after `SCHEDULED_RUNS.maxReceiveCount` receives it goes to the dead-letter queue.
 */
export class ScheduledRuns extends Construct {
  readonly queue: sqs.Queue;
  readonly deadLetterQueue: sqs.Queue;

  constructor(scope: Construct, id: string, props: ScheduledRunsProps) {
    super(scope, id);
    this.deadLetterQueue = new SecureQueue(this, 'DeadLetterQueue', {
      purpose: 'scheduled runs that failed on every receive (the scheduled-runs queue\'s redrive target)',
    }).queue;
    this.queue = new sqs.Queue(this, 'Queue', {
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      visibilityTimeout: Duration.seconds(props.functionTimeout.toSeconds() * VISIBILITY_TIMEOUTS_PER_FUNCTION_TIMEOUT),
      // Longer than any crowded hour: a run waiting its turn must not expire unseen (an expired message is
      // deleted, not dead-lettered).
      retentionPeriod: Duration.days(4),
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: SCHEDULED_RUNS.maxReceiveCount },
    });
    // addEventSource grants the function receive and delete on the queue.
    props.target.addEventSource(
      new SqsEventSource(this.queue, { batchSize: 1, maxConcurrency: props.maxConcurrency, reportBatchItemFailures: true }),
    );
  }
}
