// @tier slow
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { Match } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadInfraConfig } from '../../infra/config';
import { glueColumns, glueName } from '../../infra/constructs/downstream-tables';
import { LocalLedger } from '../../shared/ledger/local-ledger';
import { parseReportDefinition } from '../../shared/report/definition/definition';
import { schemaOf, TABLE_SCHEMAS } from '../../shared/report/manifest/table-schemas';
import { LocalDirectoryStorage } from '../../shared/storage/local-storage';
import { startSimulator } from '../../simulator/index';
import { runOf } from '../support/run-builder';
import { describeFindings, synthesize, unacknowledgedNagFindings, type Synthesized } from './support';

/** Wiring only (no Lambda bundling): one report with Parquet, one without; neither decides which tables exist. */
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
const glueTable = (name: string) => resources('AWS::Glue::Table').find((t) => t.Properties.TableInput.Name === name)!;

/** A CloudFormation string `{ Fn::Join: ['', ['s3://', { Ref: bucket }, '/reports/…']] }` with the bucket named. */
function resolvedUrl(value: Json, bucket: string): string {
  const parts = value['Fn::Join'][1] as Json[];
  return parts.map((p) => (typeof p === 'string' ? p : p.Ref === bucketId() ? bucket : JSON.stringify(p))).join('');
}

describe('downstream tables (Glue, Athena)', () => {
  it('creates one Glue database and one Parquet table per table of the schema contract, for every report', () => {
    synthesized.template.resourceCountIs('AWS::Glue::Database', 1);
    synthesized.template.hasResourceProperties('AWS::Glue::Database', { DatabaseInput: { Name: database } });
    const tables = resources('AWS::Glue::Table').map((t) => String(t.Properties.TableInput.Name)).sort();
    expect(tables).toEqual(TABLE_SCHEMAS.map((t) => glueName(t.table)).sort());
    expect(tables).toContain('board_items');
    expect(tables).toContain('okrs');
    expect(database).toMatch(/^[a-z0-9_]+$/);
  });

  it('declares the Parquet SerDe, the reports prefix as location and the columns of the schema contract', () => {
    const table = glueTable('risks');
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
    expect(resolvedUrl(input.StorageDescriptor.Location, 'b')).toBe('s3://b/reports/');
    expect(input.PartitionKeys).toEqual([expect.objectContaining({ Name: 'report', Type: 'string' }), expect.objectContaining({ Name: 'dt', Type: 'string' })]);
  });

  it('projects report as injected and dt as a date range up to today, mapped to each report\'s table prefix', () => {
    const parameters = glueTable('board_items').Properties.TableInput.Parameters;
    expect(parameters).toMatchObject({
      classification: 'parquet',
      'projection.enabled': 'true',
      'projection.report.type': 'injected',
      'projection.dt.type': 'date',
      'projection.dt.format': 'yyyy-MM-dd',
      'projection.dt.range': '2024-01-01,NOW',
      'projection.dt.interval': '1',
      'projection.dt.interval.unit': 'DAYS',
      schema_version: schemaOf('board-items')!.version,
    });
    expect(resolvedUrl(parameters['storage.location.template'], 'b')).toBe('s3://b/reports/${report}/tables/board-items/dt=${dt}/');
  });

  it('reads a report from the definitions store (in no cdk.json) through the projection: DuckDB over the template\'s folders', async () => {
    const sim = await startSimulator({ tenant: 'tiny' });
    const root = await mkdtemp(join(tmpdir(), 'downstream-projection-'));
    const db = await DuckDBInstance.create(':memory:');
    const duck = await db.connect();
    try {
      // As the export function runs a stored definition: nothing of it is in the stack.
      const stored = parseReportDefinition({ name: 'stored-daily', timeZone: 'Europe/Berlin', formats: ['parquet'], datasets: { risks: {} } });
      const at = Date.parse('2026-11-23T06:00:00Z');
      const result = await runOf(stored)
        .withStorage(new LocalDirectoryStorage(join(root, 'reports')))
        .withLedger(new LocalLedger(join(root, '.ledger')))
        .against(sim.credentials())
        .at(new Date(at))
        .withRunId('r1')
        .export();
      // Athena's projection: the template with the partition values a query gives, the bucket a directory here.
      const template = resolvedUrl(glueTable('risks').Properties.TableInput.Parameters['storage.location.template'], 'bucket');
      const folder = template.replace('s3://bucket/', `${root}/`).replace('${report}', 'stored-daily').replace('${dt}', '2026-11-23');
      const rows = (await duck.runAndReadAll(`
        SELECT 'stored-daily' AS report, '2026-11-23' AS dt, run_id, count(*) AS n
        FROM read_parquet('${folder}**/*.parquet', hive_partitioning = true) GROUP BY ALL`)).getRowObjectsJS();
      expect(rows.map((r) => ({ ...r, n: Number(r.n) }))).toEqual([{ report: 'stored-daily', dt: '2026-11-23', run_id: 'r1', n: result.manifest.summary.rows.risks }]);
    } finally {
      duck.closeSync();
      await Promise.all([sim.close(), rm(root, { recursive: true, force: true })]);
    }
  }, 60_000);

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

  it('has one "latest run of a report" named query per table, in the workgroup and database, the report its parameter', () => {
    const queries = resources('AWS::Athena::NamedQuery');
    expect(queries.map((q) => String(q.Properties.Name)).sort()).toEqual(TABLE_SCHEMAS.map((t) => `${t.table}: latest run of a report`).sort());
    for (const q of queries) {
      expect(q.Properties.Database).toBe(database);
      expect(q.Properties.WorkGroup).toEqual({ Ref: synthesized.stack.getLogicalId(synthesized.stack.downstream.workGroup) });
      expect(q.Properties.QueryString).toContain('max_by(run_id, exported_at)');
      expect(q.Properties.QueryString).toContain('WHERE report = ? AND dt >=');
    }
    expect(queries.find((q) => q.Properties.Name.startsWith('risks:'))!.Properties.QueryString).toContain(`"${database}"."risks"`);
    // The newest complete run: the one the runs table lists for the table, never a run still copying.
    expect(queries.find((q) => q.Properties.Name.startsWith('board-items:'))!.Properties.QueryString).toContain(
      `FROM "${database}"."runs"\n  WHERE report = ? AND dt >= date_format(current_date - interval '35' day, '%Y-%m-%d') AND table_name = 'board-items'`,
    );
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
    expect(glueName('pi-objective-items')).toBe('pi_objective_items');
  });

  it('is cdk-nag clean', () => {
    const findings = unacknowledgedNagFindings(synthesized.app);
    expect(describeFindings(findings)).toEqual([]);
  });
});
