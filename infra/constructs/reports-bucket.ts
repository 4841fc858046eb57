import { Duration, RemovalPolicy, Stack, Validations, type CfnElement } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { S3_SERVER_ACCESS_LOGS_USE_BUCKET_POLICY } from 'aws-cdk-lib/cx-api';
import { Construct } from 'constructs';
import { STAGING_PREFIX, STAGING_RETENTION_DAYS } from '../../shared/report/manifest/layout';

export interface ReportsBucketProps {
  /** Root of everything the exporter writes (REPORTS_PREFIX), without slashes. */
  readonly prefix: string;
  /** Days after which objects under the prefix expire. */
  readonly retentionDays: number;
  /** Days the server access logs are kept. */
  readonly accessLogRetentionDays?: number;
}

/**
 * The bucket the reports are written to, and a separate bucket for its server access logs.
 *
 * Encryption: SSE-S3. The files are handed out through presigned URLs and e-mail links; with SSE-KMS
 * every signer would also need kms:Decrypt and each download would cost a KMS request, for no gain
 * in who can read the data (IAM on this bucket already decides that). Access logging also requires
 * SSE-S3 on the log bucket.
 *
 * Versioning: off. A run is an immutable folder written once under a new run id, and a failed run
 * deletes its own objects, so there is nothing to restore a previous version of; `latest.json` is
 * rewritten on every run and would pile up a version per run. Versioning would add storage cost and
 * a second lifecycle (noncurrent versions) without a restore story. A lost run is re-exported.
 */
export class ReportsBucket extends Construct {
  readonly bucket: s3.Bucket;
  readonly logBucket: s3.Bucket;
  /** Root of everything the exporter writes, without slashes. */
  readonly prefix: string;

  constructor(scope: Construct, id: string, props: ReportsBucketProps) {
    super(scope, id);
    this.prefix = props.prefix;
    // Log delivery must write through the log bucket's policy, not the LogDeliveryWrite ACL (ACLs
    // are disabled by BUCKET_OWNER_ENFORCED). Set here, not only in cdk.json, so the construct is
    // right in any app.
    this.node.setContext(S3_SERVER_ACCESS_LOGS_USE_BUCKET_POLICY, true);

    this.logBucket = new s3.Bucket(this, 'AccessLogs', {
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      encryption: s3.BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      // The log delivery service writes through the bucket policy (feature flag
      // serverAccessLogsUseBucketPolicy), so ACLs stay disabled.
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
      lifecycleRules: [{ id: 'expire-access-logs', expiration: Duration.days(props.accessLogRetentionDays ?? 365) }],
      removalPolicy: RemovalPolicy.RETAIN,
    });
    Validations.of(this.logBucket).acknowledge({
      id: 'AwsSolutions-S1',
      reason: 'This is the server access log bucket of the reports bucket; logging it into itself would log its own log deliveries in a loop.',
    });

    this.bucket = new s3.Bucket(this, 'Reports', {
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      encryption: s3.BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
      versioned: false,
      // aws-cdk-lib declares its classes without exactOptionalPropertyTypes; the class is the interface.
      serverAccessLogsBucket: this.logBucket as s3.IBucket,
      serverAccessLogsPrefix: 'reports-bucket/',
      lifecycleRules: [
        {
          // Keys are <prefix>/<report>/dt=<date>/run=<id>/..., <prefix>/<report>/latest.json and
          // <prefix>/_exports/<id>.json. Objects expire by their own age, so a run folder (files and
          // manifest) goes after retentionDays; latest.json is rewritten by every run and only
          // expires when a report has not run for retentionDays (it would point at expired files).
          id: 'expire-report-runs',
          prefix: `${props.prefix}/`,
          expiration: Duration.days(props.retentionDays),
        },
        {
          // The planning API's answers a fan-out's workers hand its assembler (shared/fan-out/steps.ts):
          // scratch for one run, read within the hour.
          id: 'expire-fan-out-answers',
          prefix: `${props.prefix}/_fanout/`,
          expiration: Duration.days(1),
        },
        {
          // An attempt stages its table files here until its run is published into the table
          // prefixes (docs/run-atomicity.md, "Publishing into the tables"); the next attempt of a run
          // removes what an abandoned one staged, and this rule what no attempt came back for. Three
          // days outlast Lambda's retries (6 h) and a rerun of the run id over a weekend.
          id: 'expire-abandoned-staging',
          prefix: `${props.prefix}/${STAGING_PREFIX}/`,
          expiration: Duration.days(STAGING_RETENTION_DAYS),
        },
        {
          // A Lambda that times out mid-upload leaves invisible, billed parts behind.
          id: 'abort-incomplete-multipart-uploads',
          abortIncompleteMultipartUploadAfter: Duration.days(1),
        },
      ],
      // Reports are business records and the bucket name is in other systems' event filters.
      removalPolicy: RemovalPolicy.RETAIN,
    });
  }

  /**
   * The export: write, read and delete objects under the prefix only (a failed run removes its
   * partial files), tag them, abort its multipart uploads; plus ListBucket (see listBucket).
   */
  grantReportWriter(role: iam.Role): void {
    role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        sid: 'ReportObjects',
        // PutObject covers the multipart upload calls; AbortMultipartUpload is separate. DeleteObject
        // is how a failed run removes its partial files (DeleteObjects checks it per key).
        actions: ['s3:GetObject', 's3:PutObject', 's3:PutObjectTagging', 's3:DeleteObject', 's3:AbortMultipartUpload'],
        resources: [this.bucket.arnForObjects(`${this.prefix}/*`)],
      }),
    );
    role.addToPrincipalPolicy(this.listBucket());
    this.acknowledgePrefixWildcard(
      role,
      `Object permissions are scoped to the exporter's prefix "${this.prefix}/"; run folders have generated names, so the keys cannot be listed in advance.`,
    );
  }

  /** The API: read manifests and files under the prefix (to presign downloads), plus ListBucket. */
  grantReportReader(role: iam.Role): void {
    role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        sid: 'ReadReports',
        actions: ['s3:GetObject'],
        resources: [this.bucket.arnForObjects(`${this.prefix}/*`)],
      }),
    );
    role.addToPrincipalPolicy(this.listBucket());
    this.acknowledgePrefixWildcard(
      role,
      `Read access is scoped to the exporter's prefix "${this.prefix}/": the API presigns download URLs for files in run folders with generated names.`,
    );
  }

  /**
   * ListBucket on the bucket itself. Without it S3 answers GetObject on a missing key with 403
   * instead of NoSuchKey, and the storage adapter relies on NoSuchKey to mean "absent" (the first
   * run of a report has no latest.json; an unknown export id has no status). An `s3:prefix`
   * condition cannot be used: GetObject requests carry no prefix, so the condition would fail
   * exactly there. The bucket holds nothing but the exporter's own output.
   */
  private listBucket(): iam.PolicyStatement {
    return new iam.PolicyStatement({
      sid: 'ListReportsBucket',
      actions: ['s3:ListBucket'],
      resources: [this.bucket.bucketArn],
    });
  }

  /** cdk-nag flags the `<prefix>/*` wildcard; it is the narrowest resource the generated keys allow. */
  private acknowledgePrefixWildcard(role: iam.Role, reason: string): void {
    const bucketId = Stack.of(this).getLogicalId(this.bucket.node.defaultChild as CfnElement);
    Validations.of(role).acknowledge({ id: `AwsSolutions-IAM5[Resource::<${bucketId}.Arn>/${this.prefix}/*]`, reason });
  }
}
