import { Duration, RemovalPolicy, Stack, Validations, type CfnElement } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as s3deploy from 'aws-cdk-lib/aws-s3-deployment';
import { Construct } from 'constructs';
import { DEFINITIONS_PREFIX } from '../../shared/definitions/stored-definition';
import type { ConfiguredReport } from '../config';

export interface DefinitionsBucketProps {
  /** The reports bucket's access-log bucket: one place for all server access logs of the stack. */
  readonly logBucket: s3.Bucket;
}

/**
 * The stored reports: one JSON object per report under `definitions/` (shared/definitions).
 *
 * S3 rather than SSM Parameter Store: a definition with its recipients and filters outgrows the
 * 4 KB standard parameter (8 KB advanced, billed per parameter), S3 object events drive the
 * schedule sync without polling, and versioning keeps every earlier definition to restore. It is
 * also what the tests can run for real (s3rver); no SSM emulator exists here.
 *
 * Versioned (restore an earlier definition; noncurrent versions expire after a year), SSE-S3, TLS
 * only, no public access, logged to the stack's access-log bucket, EventBridge notifications on
 * (the sync function's rule), retained with the stack: the definitions are operators' work.
 */
export class DefinitionsBucket extends Construct {
  readonly bucket: s3.Bucket;

  constructor(scope: Construct, id: string, props: DefinitionsBucketProps) {
    super(scope, id);
    this.bucket = new s3.Bucket(this, 'Definitions', {
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      encryption: s3.BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
      versioned: true,
      eventBridgeEnabled: true,
      serverAccessLogsBucket: props.logBucket as s3.IBucket,
      serverAccessLogsPrefix: 'definitions-bucket/',
      lifecycleRules: [{ id: 'expire-old-definition-versions', noncurrentVersionExpiration: Duration.days(365) }],
      removalPolicy: RemovalPolicy.RETAIN,
    });
    acknowledgeNotificationsHandler(this);
  }

  /** Read the stored reports (the export functions and the sync function), plus ListBucket. */
  grantDefinitionReader(role: iam.Role): void {
    role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        sid: 'ReadReportDefinitions',
        actions: ['s3:GetObject'],
        resources: [this.bucket.arnForObjects(`${DEFINITIONS_PREFIX}*`)],
      }),
    );
    // Without ListBucket S3 answers a missing report with 403 instead of NoSuchKey ("unknown report").
    role.addToPrincipalPolicy(
      new iam.PolicyStatement({ sid: 'ListReportDefinitions', actions: ['s3:ListBucket'], resources: [this.bucket.bucketArn] }),
    );
    const bucketId = Stack.of(this).getLogicalId(this.bucket.node.defaultChild as CfnElement);
    Validations.of(role).acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${bucketId}.Arn>/${DEFINITIONS_PREFIX}*]`,
      reason: `Read-only on the stored reports under "${DEFINITIONS_PREFIX}"; reports are added without a deploy, so their keys cannot be listed in advance.`,
    });
  }

  /**
   * Uploads the reports of cdk.json on deploy, each as `definitions/<name>.json`. Never prunes:
   * reports pushed with `npm run reports -- push` stay. Runs after `after` (the sync rule), so the
   * uploads' events reach the sync function and the schedules appear in the same deploy.
   */
  deployReports(reports: readonly ConfiguredReport[], after: readonly Construct[]): void {
    if (reports.length === 0) return;
    const deployment = new s3deploy.BucketDeployment(this, 'ConfiguredReports', {
      // aws-cdk-lib declares its classes without exactOptionalPropertyTypes; the class is the interface.
      destinationBucket: this.bucket as s3.IBucket,
      destinationKeyPrefix: DEFINITIONS_PREFIX,
      sources: reports.map((r) =>
        s3deploy.Source.jsonData(`${r.definition.name}.json`, { definition: r.definition, schedule: r.schedule }),
      ),
      prune: false,
      retainOnDelete: true,
      extract: true,
      memoryLimit: 256,
    });
    for (const construct of after) deployment.node.addDependency(construct);
    acknowledgeDeploymentHandler(this, deployment);
  }
}

/** cdk-nag on the BucketDeployment's own handler (a singleton of aws-cdk-lib, not our code). */
function acknowledgeDeploymentHandler(scope: DefinitionsBucket, deployment: s3deploy.BucketDeployment): void {
  const stack = Stack.of(scope);
  const handler = stack.node.children.find((c) => c.node.id.startsWith('Custom::CDKBucketDeployment'));
  const bucketId = stack.getLogicalId(scope.bucket.node.defaultChild as CfnElement);
  const wildcards = ['Action::s3:GetBucket*', 'Action::s3:GetObject*', 'Action::s3:List*', 'Action::s3:Abort*', 'Action::s3:DeleteObject*',
    'Resource::arn:<AWS::Partition>:s3:::cdk-hnb659fds-assets-<AWS::AccountId>-<AWS::Region>/*', `Resource::<${bucketId}.Arn>/*`];
  const acknowledgements = [
    { id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]', reason: "aws-cdk-lib's BucketDeployment handler is built with the basic execution role; it runs on deploy only, copying the reports of cdk.json." },
    ...wildcards.map((finding) => ({
      id: `AwsSolutions-IAM5[${finding}]`,
      reason: "aws-cdk-lib's BucketDeployment grants its handler these wildcards on the CDK asset bucket (read) and on the definitions bucket (write); the destination is the definitions bucket alone.",
    })),
    { id: 'AwsSolutions-L1', reason: "The BucketDeployment handler's runtime is chosen by aws-cdk-lib and moves with its upgrades." },
  ];
  for (const target of [deployment, ...(handler ? [handler] : [])]) {
    for (const ack of acknowledgements) Validations.of(target).acknowledge(ack);
  }
}

/** cdk-nag on the handler aws-cdk-lib adds to turn on the bucket's EventBridge notifications. */
function acknowledgeNotificationsHandler(scope: Construct): void {
  const handler = Stack.of(scope).node.children.find((c) => c.node.id.startsWith('BucketNotificationsHandler'));
  if (!handler) return;
  Validations.of(handler).acknowledge({
    id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
    reason: "aws-cdk-lib's bucket-notifications handler (turns on EventBridge notifications of the definitions bucket at deploy) is built with the basic execution role.",
  });
}
