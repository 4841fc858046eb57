import { RemovalPolicy } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import { API_LEDGER_KINDS, ledgerKeyPattern } from '../../shared/core/names';
import { LEDGER_PARTITION_KEY, LEDGER_TTL_ATTRIBUTE } from '../../shared/ledger/dynamodb-ledger';

/** Read and conditional put on single items: no Scan, Query, DeleteItem or table-level actions. */
const ITEM_ACTIONS = ['dynamodb:GetItem', 'dynamodb:PutItem'];

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

  /** The export: every item (leases, latest, job status, run links, failure notices). */
  grantRunItems(role: iam.Role): void {
    role.addToPrincipalPolicy(new iam.PolicyStatement({ sid: 'RunLedger', actions: ITEM_ACTIONS, resources: [this.table.tableArn] }));
  }

  /**
   * The API: on-demand job status and run links only, by the leading key of the item (leases and
   * latest are the export's).
   */
  /** mail-events: the reports' suppressed recipients only (`suppress/…`). */
  grantSuppressItems(role: iam.Role): void {
    role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        sid: 'SuppressedRecipients',
        actions: ITEM_ACTIONS,
        resources: [this.table.tableArn],
        conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [ledgerKeyPattern('suppress')] } },
      }),
    );
  }

  grantJobItems(role: iam.Role): void {
    role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        sid: 'JobStatus',
        actions: ITEM_ACTIONS,
        resources: [this.table.tableArn],
        conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': API_LEDGER_KINDS.map(ledgerKeyPattern) } },
      }),
    );
  }
}
