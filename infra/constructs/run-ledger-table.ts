import { RemovalPolicy } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import { Construct } from 'constructs';
import { LEDGER_PARTITION_KEY, LEDGER_TTL_ATTRIBUTE } from '../../shared/ledger/dynamodb-ledger';

/**
 * The run ledger (shared/ledger/): run leases, the `latest` pointer of each report and on-demand
 * job status, each item written only by condition. On-demand billing (a handful of writes per run,
 * none in between), TTL on `expiresAt` so finished leases and jobs go away on their own,
 * point-in-time recovery, and encryption with the AWS managed key (the functions need no key grant).
 * Retained on stack deletion like the bucket: without it `latest` would forget which run is newest.
 */
export class RunLedgerTable extends Construct {
  readonly table: dynamodb.Table;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    this.table = new dynamodb.Table(this, 'Table', {
      partitionKey: { name: LEDGER_PARTITION_KEY, type: dynamodb.AttributeType.STRING },
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      timeToLiveAttribute: LEDGER_TTL_ATTRIBUTE,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      encryption: dynamodb.TableEncryption.AWS_MANAGED,
      deletionProtection: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });
  }
}
