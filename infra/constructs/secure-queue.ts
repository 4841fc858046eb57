import { Duration, Validations } from 'aws-cdk-lib';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';

export interface SecureQueueProps {
  /** What ends up in this queue, for the cdk-nag acknowledgement and the console. */
  readonly purpose: string;
}

/**
 * A dead-letter queue for failed deliveries: SQS-managed encryption (not a customer KMS key,
 * because the Lambda service and EventBridge Scheduler write to it with the caller's role and an
 * SSE-SQS queue needs no key grants for that), TLS enforced by the queue policy, and the longest
 * retention SQS offers so a failure seen on Monday can still be inspected after a long weekend.
 */
export class SecureQueue extends Construct {
  readonly queue: sqs.Queue;

  constructor(scope: Construct, id: string, props: SecureQueueProps) {
    super(scope, id);
    this.queue = new sqs.Queue(this, 'Queue', {
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    Validations.of(this.queue).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason: `This queue is itself the dead-letter destination for ${props.purpose} (not an SQS redrive target, which is all the rule recognises); a DLQ of a DLQ would add nothing.`,
    });
  }
}
