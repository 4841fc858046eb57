import { Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import * as athena from 'aws-cdk-lib/aws-athena';
import * as glue from 'aws-cdk-lib/aws-glue';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { schemaOf } from '../../shared/report/manifest/table-schemas';
import type { TableSchema } from '../../shared/table/schema';

export interface DownstreamReport {
  readonly name: string;
  /** Tables the report writes as Parquet (shared/report/manifest/table-schemas.ts, tablesOfDatasets). */
  readonly tables: readonly string[];
}

export interface DownstreamTablesProps {
  readonly bucket: s3.Bucket;
  /** Bucket of the server access logs (results bucket logs go there too). */
  readonly logBucket: s3.Bucket;
  /** REPORTS_PREFIX, without slashes. */
  readonly prefix: string;
  readonly reports: readonly DownstreamReport[];
  /** First day of the `dt` partition projection (yyyy-MM-dd). */
  readonly projectionStart?: string;
  /** Days Athena query results are kept. */
  readonly resultRetentionDays?: number;
}

const PARQUET = {
  inputFormat: 'org.apache.hadoop.hive.ql.io.parquet.MapredParquetInputFormat',
  outputFormat: 'org.apache.hadoop.hive.ql.io.parquet.MapredParquetOutputFormat',
  serdeInfo: {
    serializationLibrary: 'org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe',
    parameters: { 'serialization.format': '1' },
  },
};

/** Glue and Athena names: lower case, digits and underscores. */
export const glueName = (...parts: string[]): string => parts.join('_').toLowerCase().replace(/[^a-z0-9_]/g, '_');

/**
 * Tables for downstream jobs (docs/downstream.md): a Glue database with one Parquet table per report
 * table, over that table's own prefix `<prefix>/<report>/tables/<table>/`, with partition projection
 * on `dt` (no crawler, no MSCK REPAIR: a new day is queryable the moment its file lands) and
 * `run_id` as a column so a query can pick the newest run of a day. An Athena workgroup with its own
 * encrypted, expiring result bucket, and a "latest run" named query per table.
 *
 * Columns come from the same schema code as schemas/<table>.json, so the Glue table cannot drift
 * from the files. The reports bucket lets Athena read only the tables/ prefixes: workbooks, CSV files
 * and job records stay out of reach of a query.
 */
export class DownstreamTables extends Construct {
  readonly database: glue.CfnDatabase;
  readonly databaseName: string;
  readonly workGroup: athena.CfnWorkGroup;
  readonly resultsBucket: s3.Bucket;
  readonly tables: Record<string, glue.CfnTable> = {};
  /** A managed policy for people and jobs that query the tables through the workgroup. */
  readonly readerPolicy: iam.ManagedPolicy;

  constructor(scope: Construct, id: string, props: DownstreamTablesProps) {
    super(scope, id);
    const stack = Stack.of(this);
    this.databaseName = glueName(stack.stackName, 'reports');

    this.resultsBucket = new s3.Bucket(this, 'AthenaResults', {
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      encryption: s3.BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
      // aws-cdk-lib declares its classes without exactOptionalPropertyTypes; the class is the interface.
      serverAccessLogsBucket: props.logBucket as s3.IBucket,
      serverAccessLogsPrefix: 'athena-results/',
      lifecycleRules: [
        // Query results are copies of report data: they go as soon as nobody needs to re-download them.
        { id: 'expire-query-results', expiration: Duration.days(props.resultRetentionDays ?? 7) },
        { id: 'abort-incomplete-multipart-uploads', abortIncompleteMultipartUploadAfter: Duration.days(1) },
      ],
      // As the other buckets: a stack deletion never fails on (or silently drops) objects.
      removalPolicy: RemovalPolicy.RETAIN,
    });

    this.database = new glue.CfnDatabase(this, 'Database', {
      catalogId: stack.account,
      databaseInput: { name: this.databaseName, description: 'planning-report-exporter: report tables (Parquet) for downstream jobs' },
    });

    this.workGroup = new athena.CfnWorkGroup(this, 'WorkGroup', {
      name: glueName(stack.stackName, 'downstream'),
      description: 'Queries over the planning report tables (docs/downstream.md)',
      state: 'ENABLED',
      workGroupConfiguration: {
        // Clients cannot send results elsewhere or unencrypted.
        enforceWorkGroupConfiguration: true,
        publishCloudWatchMetricsEnabled: true,
        resultConfiguration: {
          outputLocation: this.resultsBucket.s3UrlForObject('results/'),
          encryptionConfiguration: { encryptionOption: 'SSE_S3' },
        },
        // A runaway scan of every day since projectionStart is stopped at 10 GB.
        bytesScannedCutoffPerQuery: 10 * 1024 ** 3,
      },
    });

    const start = props.projectionStart ?? '2024-01-01';
    for (const report of props.reports) {
      for (const table of report.tables) {
        const schema = schemaOf(table);
        if (!schema) throw new Error(`No schema contract for table "${table}" (shared/report/manifest/table-schemas.ts)`);
        const name = glueName(report.name, table);
        const location = props.bucket.s3UrlForObject(`${props.prefix}/${report.name}/tables/${table}/`);
        const glueTable = new glue.CfnTable(this, `Table-${report.name}-${table}`, {
          catalogId: stack.account,
          databaseName: this.databaseName,
          tableInput: {
            name,
            description: `${report.name} / ${table}, schema ${schema.version} (schemas/${table}.json)`,
            tableType: 'EXTERNAL_TABLE',
            partitionKeys: [{ name: 'dt', type: 'string', comment: 'Run date in the report time zone, yyyy-MM-dd' }],
            parameters: {
              classification: 'parquet',
              EXTERNAL: 'TRUE',
              'parquet.compression': 'SNAPPY',
              schema_version: schema.version,
              'projection.enabled': 'true',
              'projection.dt.type': 'date',
              'projection.dt.format': 'yyyy-MM-dd',
              'projection.dt.range': `${start},NOW`,
              'projection.dt.interval': '1',
              'projection.dt.interval.unit': 'DAYS',
              // Every run of a day is under dt=<day>/run=<id>/; Athena reads the files below the day's folder.
              'storage.location.template': `${location}dt=\${dt}/`,
            },
            storageDescriptor: { ...PARQUET, location, columns: glueColumns(schema) },
          },
        });
        glueTable.addResourceDependency(this.database);
        this.tables[name] = glueTable;

        const query = new athena.CfnNamedQuery(this, `LatestRun-${report.name}-${table}`, {
          name: `${report.name} ${table}: latest run`,
          description: `Rows of the newest run of ${report.name}/${table} in the last 35 days`,
          database: this.databaseName,
          workGroup: this.workGroup.ref,
          queryString: latestRunQuery(this.databaseName, name),
        });
        query.addResourceDependency(glueTable);
        query.addResourceDependency(this.workGroup);
      }
    }

    this.readerPolicy = this.createReaderPolicy(props);
    this.restrictAthenaToTables(props);
  }

  /** Read the report tables through the workgroup, and nothing else of the bucket. */
  private createReaderPolicy(props: DownstreamTablesProps): iam.ManagedPolicy {
    const stack = Stack.of(this);
    const tablesArn = props.bucket.arnForObjects(`${props.prefix}/*/tables/*`);
    const policy = new iam.ManagedPolicy(this, 'ReaderPolicy', {
      description: 'Query the planning report tables through the downstream Athena workgroup',
      statements: [
        new iam.PolicyStatement({
          sid: 'UseWorkGroup',
          actions: [
            'athena:StartQueryExecution', 'athena:GetQueryExecution', 'athena:GetQueryResults', 'athena:StopQueryExecution',
            'athena:GetWorkGroup', 'athena:ListNamedQueries', 'athena:GetNamedQuery', 'athena:BatchGetNamedQuery',
          ],
          resources: [stack.formatArn({ service: 'athena', resource: 'workgroup', resourceName: this.workGroup.ref })],
        }),
        new iam.PolicyStatement({
          sid: 'ReadCatalog',
          actions: ['glue:GetDatabase', 'glue:GetTable', 'glue:GetTables', 'glue:GetPartitions'],
          resources: [
            stack.formatArn({ service: 'glue', resource: 'catalog' }),
            stack.formatArn({ service: 'glue', resource: 'database', resourceName: this.databaseName }),
            stack.formatArn({ service: 'glue', resource: 'table', resourceName: `${this.databaseName}/*` }),
          ],
        }),
        new iam.PolicyStatement({ sid: 'ReadTableFiles', actions: ['s3:GetObject'], resources: [tablesArn] }),
        new iam.PolicyStatement({
          sid: 'ListTableFiles',
          actions: ['s3:ListBucket'],
          resources: [props.bucket.bucketArn],
          conditions: { StringLike: { 's3:prefix': [`${props.prefix}/*/tables/*`] } },
        }),
        new iam.PolicyStatement({
          sid: 'QueryResults',
          actions: ['s3:GetObject', 's3:PutObject', 's3:AbortMultipartUpload', 's3:ListBucket', 's3:GetBucketLocation'],
          resources: [this.resultsBucket.bucketArn, this.resultsBucket.arnForObjects('results/*')],
        }),
      ],
    });
    Validations.of(policy).acknowledge(
      {
        id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:glue:<AWS::Region>:<AWS::AccountId>:table/${this.databaseName}/*]`,
        reason: 'Read-only access to every table of the exporter\'s own Glue database; tables are added with reports.',
      },
      {
        id: `AwsSolutions-IAM5[Resource::<${stack.getLogicalId(bucketResource(props.bucket))}.Arn>/${props.prefix}/*/tables/*]`,
        reason: 'Read-only access to the tables/ prefixes of every report (one per table, partitioned by day and run); workbooks and CSV files stay out.',
      },
      {
        id: `AwsSolutions-IAM5[Resource::<${stack.getLogicalId(this.resultsBucket.node.defaultChild as s3.CfnBucket)}.Arn>/results/*]`,
        reason: 'Athena writes each query result under a generated key in the workgroup\'s own result bucket.',
      },
    );
    return policy;
  }

  /**
   * Requests Athena makes on a caller's behalf (aws:CalledVia) may read only the tables/ prefixes of
   * the reports bucket, whatever else the caller may read: a query cannot reach workbooks or CSV files.
   */
  private restrictAthenaToTables(props: DownstreamTablesProps): void {
    props.bucket.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: 'AthenaReadsOnlyTables',
        effect: iam.Effect.DENY,
        principals: [new iam.AnyPrincipal()],
        actions: ['s3:GetObject'],
        notResources: [props.bucket.arnForObjects(`${props.prefix}/*/tables/*`)],
        conditions: { 'ForAnyValue:StringEquals': { 'aws:CalledVia': ['athena.amazonaws.com'] } },
      }),
    );
  }
}

function bucketResource(bucket: s3.Bucket): s3.CfnBucket {
  return bucket.node.defaultChild as s3.CfnBucket;
}

export function glueColumns(schema: TableSchema): glue.CfnTable.ColumnProperty[] {
  return schema.columns.map((c) => ({ name: c.name, type: c.type, comment: c.description.slice(0, 255) }));
}

/** The newest run of the last 35 days (partition projection prunes to those days). */
export function latestRunQuery(database: string, table: string): string {
  return [
    `-- The rows of the newest run (by exported_at) in the last 35 days; see docs/downstream.md.`,
    `WITH recent AS (`,
    `  SELECT * FROM "${database}"."${table}"`,
    `  WHERE dt >= date_format(current_date - interval '35' day, '%Y-%m-%d')`,
    `)`,
    `SELECT * FROM recent`,
    `WHERE run_id = (SELECT max_by(run_id, exported_at) FROM recent)`,
  ].join('\n');
}
