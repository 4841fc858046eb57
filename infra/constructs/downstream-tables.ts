import { Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import * as athena from 'aws-cdk-lib/aws-athena';
import * as glue from 'aws-cdk-lib/aws-glue';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { TABLE_SCHEMAS } from '../../shared/report/manifest/table-schemas';
import { RUNS_TABLE_NAME } from '../../shared/report/tables/runs-table';
import type { TableSchema } from '../../shared/table/schema';

export interface DownstreamTablesProps {
  readonly bucket: s3.Bucket;
  /** Bucket of the server access logs (results bucket logs go there too). */
  readonly logBucket: s3.Bucket;
  /** REPORTS_PREFIX, without slashes. */
  readonly prefix: string;
  /** The tables of the schema contract (every table a report can write): one Glue table each. */
  readonly tables?: readonly TableSchema[];
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
 * Tables for downstream jobs (docs/downstream.md): a Glue database with one Parquet table per table
 * of the schema contract, for all reports at once, whatever their origin (cdk.json or the
 * definitions store): partitioned by `report` (projection type `injected`: a query names the report)
 * and `dt` (a date range), located by a storage.location.template that maps both to the report's
 * table prefix `<prefix>/<report>/tables/<table>/dt=<day>/`. No crawler, no MSCK REPAIR and no deploy:
 * a report pushed to the store is queryable the moment its first run publishes, and a removed
 * report's rows stay queryable until they expire. `run_id` is a column so a query can pick the newest
 * run of a day. An Athena workgroup with its own encrypted, expiring result bucket, and a "latest run"
 * named query per table.
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
    const root = props.bucket.s3UrlForObject(`${props.prefix}/`);
    for (const schema of props.tables ?? TABLE_SCHEMAS) {
      const name = glueName(schema.table);
      const glueTable = new glue.CfnTable(this, `Table-${schema.table}`, {
        catalogId: stack.account,
        databaseName: this.databaseName,
        tableInput: {
          name,
          description: `${schema.table} of every report, schema ${schema.version} (schemas/${schema.table}.json); name the report: WHERE report = '<report>'`,
          tableType: 'EXTERNAL_TABLE',
          partitionKeys: [
            { name: 'report', type: 'string', comment: 'Report name; a query must name it (projection type injected)' },
            { name: 'dt', type: 'string', comment: 'Run date in the report time zone, yyyy-MM-dd' },
          ],
          parameters: { classification: 'parquet', EXTERNAL: 'TRUE', 'parquet.compression': 'SNAPPY', schema_version: schema.version, ...projection(root, schema.table, start) },
          storageDescriptor: { ...PARQUET, location: root, columns: glueColumns(schema) },
        },
      });
      glueTable.addResourceDependency(this.database);
      this.tables[name] = glueTable;

      const query = new athena.CfnNamedQuery(this, `LatestRun-${schema.table}`, {
        name: `${schema.table}: latest run of a report`,
        description: `Rows of the newest run of one report's ${schema.table} in the last 35 days (the report is the query's parameter)`,
        database: this.databaseName,
        workGroup: this.workGroup.ref,
        queryString: latestRunQuery(this.databaseName, schema.table),
      });
      query.addResourceDependency(glueTable);
      query.addResourceDependency(this.workGroup);
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

/**
 * Partition projection of one table: `report` injected (any report, named by the query, so a report
 * from the definitions store needs no deploy) and `dt` a date range up to today; the template maps
 * both to the report's table prefix, whose day folders hold one `run=<id>/` folder per published run.
 */
export function projection(root: string, table: string, start: string): Record<string, string> {
  return {
    'projection.enabled': 'true',
    'projection.report.type': 'injected',
    'projection.dt.type': 'date',
    'projection.dt.format': 'yyyy-MM-dd',
    'projection.dt.range': `${start},NOW`,
    'projection.dt.interval': '1',
    'projection.dt.interval.unit': 'DAYS',
    'storage.location.template': `${root}\${report}/tables/${table}/dt=\${dt}/`,
  };
}

export function glueColumns(schema: TableSchema): glue.CfnTable.ColumnProperty[] {
  return schema.columns.map((c) => ({ name: c.name, type: c.type, comment: c.description.slice(0, 255) }));
}

/**
 * The newest complete run of one report in the last 35 days (partition projection prunes to that
 * report and those days): the newest run the `runs` table lists for the table, so a run whose copies
 * are still being made (or were cut off, until the report's next run finishes them) is never picked
 * half-published. The report is the execution parameter `?`, given once per table read (`runs` reads
 * only itself, as it lists only complete runs).
 */
export function latestRunQuery(database: string, table: string): string {
  const days = `dt >= date_format(current_date - interval '35' day, '%Y-%m-%d')`;
  const glue = glueName(table);
  const newest = table === RUNS_TABLE_NAME
    ? [`WITH complete AS (SELECT * FROM "${database}"."${glue}" WHERE report = ? AND ${days})`, `SELECT * FROM complete`, `WHERE run_id = (SELECT max_by(run_id, exported_at) FROM complete)`]
    : [
        `WITH complete AS (`,
        `  SELECT max_by(run_id, exported_at) AS run_id FROM "${database}"."${glueName(RUNS_TABLE_NAME)}"`,
        `  WHERE report = ? AND ${days} AND table_name = '${table}'`,
        `)`,
        `SELECT t.* FROM "${database}"."${glue}" t JOIN complete c ON t.run_id = c.run_id`,
        `WHERE t.report = ? AND t.${days}`,
      ];
  return [
    `-- The rows of the newest complete run (by exported_at, as listed in runs) of one report in the last 35 days; see docs/downstream.md.`,
    `-- Run it with the report's name as every parameter (EXECUTE ... USING 'acme-weekly', 'acme-weekly', or the console's parameter boxes).`,
    ...newest,
  ].join('\n');
}
