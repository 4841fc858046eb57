// @tier slow
import { Match } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadInfraConfig } from '../../infra/config';
import { glueColumns, glueName } from '../../infra/constructs/downstream-tables';
import { schemaOf } from '../../shared/report/manifest/table-schemas';
import { describeFindings, synthesize, unacknowledgedNagFindings, type Synthesized } from './support';

/** Wiring only (no Lambda bundling): one report with Parquet, one without. */
const config = loadInfraConfig({
  reports: [
    { definition: { name: 'acme-weekly', datasets: { risks: {}, boardItems: {} }, formats: ['xlsx', 'parquet'] }, schedule: null },
    { definition: { name: 'human-only', datasets: { okrs: {} } }, schedule: null },
  ],
});

let synthesized: Synthesized;
let database: string;
beforeAll(() => {
  synthesized = synthesize(config, { bundle: false });
  database = synthesized.stack.downstream.databaseName;
}, 180_000);

/** Template JSON: typed as what JSON.parse returns. */
type Json = ReturnType<typeof JSON.parse>;
const resources = (type: string) => Object.values(synthesized.template.findResources(type)) as { Properties: Record<string, Json> }[];
const bucketId = () => synthesized.stack.getLogicalId(synthesized.stack.reports.bucket.node.defaultChild as never);

describe('downstream tables (Glue, Athena)', () => {
  it('creates one Glue database and one Parquet table per table of each report that writes Parquet', () => {
    synthesized.template.resourceCountIs('AWS::Glue::Database', 1);
    synthesized.template.hasResourceProperties('AWS::Glue::Database', { DatabaseInput: { Name: database } });
    const tables = resources('AWS::Glue::Table').map((t) => String(t.Properties.TableInput.Name)).sort();
    expect(tables).toEqual(['acme_weekly_board_items', 'acme_weekly_risks']);
    expect(database).toMatch(/^[a-z0-9_]+$/);
  });

  it('declares the Parquet SerDe, the table prefix as location and the columns of the schema contract', () => {
    const table = resources('AWS::Glue::Table').find((t) => t.Properties.TableInput.Name === 'acme_weekly_risks')!;
    const input = table.Properties.TableInput;
    expect(table.Properties.DatabaseName).toBe(database);
    expect(input.TableType).toBe('EXTERNAL_TABLE');
    expect(input.StorageDescriptor).toMatchObject({
      InputFormat: 'org.apache.hadoop.hive.ql.io.parquet.MapredParquetInputFormat',
      OutputFormat: 'org.apache.hadoop.hive.ql.io.parquet.MapredParquetOutputFormat',
      SerdeInfo: { SerializationLibrary: 'org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe' },
    });
    const risks = schemaOf('risks')!;
    expect(input.StorageDescriptor.Columns).toEqual(glueColumns(risks).map((c) => ({ Name: c.name, Type: c.type, Comment: c.comment })));
    const columns = input.StorageDescriptor.Columns as { Name: string; Type: string }[];
    expect(columns.find((c) => c.Name === 'run_id')?.Type).toBe('string');
    expect(columns.find((c) => c.Name === 'watchers')?.Type).toBe('array<string>');
    expect(columns.find((c) => c.Name === 'raised_date')?.Type).toBe('date');
    expect(JSON.stringify(input.StorageDescriptor.Location)).toContain('/reports/acme-weekly/tables/risks/');
    expect(input.PartitionKeys).toEqual([expect.objectContaining({ Name: 'dt', Type: 'string' })]);
  });

  it('projects the dt partitions as a date range up to today, under each day\'s folder', () => {
    const table = resources('AWS::Glue::Table').find((t) => t.Properties.TableInput.Name === 'acme_weekly_board_items')!;
    const parameters = table.Properties.TableInput.Parameters;
    expect(parameters).toMatchObject({
      classification: 'parquet',
      'projection.enabled': 'true',
      'projection.dt.type': 'date',
      'projection.dt.format': 'yyyy-MM-dd',
      'projection.dt.range': '2024-01-01,NOW',
      'projection.dt.interval': '1',
      'projection.dt.interval.unit': 'DAYS',
      schema_version: schemaOf('board-items')!.version,
    });
    const template = JSON.stringify(parameters['storage.location.template']);
    expect(template).toContain('/reports/acme-weekly/tables/board-items/dt=${dt}/');
  });

  it('has a workgroup that enforces encrypted results in its own expiring, encrypted bucket', () => {
    const [workGroup] = resources('AWS::Athena::WorkGroup');
    const configuration = workGroup!.Properties.WorkGroupConfiguration;
    expect(configuration).toMatchObject({
      EnforceWorkGroupConfiguration: true,
      PublishCloudWatchMetricsEnabled: true,
      ResultConfiguration: { EncryptionConfiguration: { EncryptionOption: 'SSE_S3' } },
    });
    const resultsId = synthesized.stack.getLogicalId(synthesized.stack.downstream.resultsBucket.node.defaultChild as never);
    expect(JSON.stringify(configuration.ResultConfiguration.OutputLocation)).toContain(resultsId);
    const results = synthesized.template.toJSON().Resources[resultsId].Properties;
    expect(results).toMatchObject({
      BucketEncryption: { ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }] },
      PublicAccessBlockConfiguration: { BlockPublicAcls: true, BlockPublicPolicy: true, IgnorePublicAcls: true, RestrictPublicBuckets: true },
      LifecycleConfiguration: { Rules: expect.arrayContaining([expect.objectContaining({ ExpirationInDays: 7, Status: 'Enabled' })]) },
    });
  });

  it('has one "latest run" named query per table, in the workgroup and database', () => {
    const queries = resources('AWS::Athena::NamedQuery');
    expect(queries.map((q) => String(q.Properties.Name)).sort()).toEqual(['acme-weekly board-items: latest run', 'acme-weekly risks: latest run']);
    for (const q of queries) {
      expect(q.Properties.Database).toBe(database);
      expect(q.Properties.WorkGroup).toEqual({ Ref: synthesized.stack.getLogicalId(synthesized.stack.downstream.workGroup) });
      expect(q.Properties.QueryString).toContain('max_by(run_id, exported_at)');
    }
    expect(queries.find((q) => q.Properties.Name.includes('risks'))!.Properties.QueryString).toContain(`"${database}"."acme_weekly_risks"`);
  });

  it('lets Athena read only the tables/ prefixes of the reports bucket', () => {
    synthesized.template.hasResourceProperties('AWS::S3::BucketPolicy', {
      Bucket: { Ref: bucketId() },
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Sid: 'AthenaReadsOnlyTables',
            Effect: 'Deny',
            Action: 's3:GetObject',
            NotResource: { 'Fn::Join': ['', [{ 'Fn::GetAtt': [bucketId(), 'Arn'] }, '/reports/*/tables/*']] },
            Condition: { 'ForAnyValue:StringEquals': { 'aws:CalledVia': ['athena.amazonaws.com'] } },
          }),
        ]),
      },
    });
    const reader = resources('AWS::IAM::ManagedPolicy')[0]!.Properties.PolicyDocument.Statement as { Sid: string; Resource: unknown }[];
    expect(JSON.stringify(reader.find((s) => s.Sid === 'ReadTableFiles')!.Resource)).toContain('/reports/*/tables/*');
  });

  it('names Glue objects in lower case with underscores', () => {
    expect(glueName('acme-weekly', 'pi-objective-items')).toBe('acme_weekly_pi_objective_items');
  });

  it('is cdk-nag clean', () => {
    const findings = unacknowledgedNagFindings(synthesized.app);
    expect(describeFindings(findings)).toEqual([]);
  });
});
