// @tier slow
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import aslValidator from 'asl-validator';
import { Validations } from 'aws-cdk-lib';
import { Match } from 'aws-cdk-lib/assertions';
import type { IConstruct } from 'constructs';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_SCHEDULED_CONCURRENCY, loadInfraConfig, type InfraConfig } from '../../infra/config';
import { METRIC, METRICS_NAMESPACE, SCHEDULED_RUNS, SERVICE_NAME, type MetricName } from '../../shared/core/names';
import { allStates, asArray, describeFindings, policyStatements, renderedDefinition, synthesize, unacknowledgedNagFindings, type Synthesized } from './support';

/**
 * The real stack (real esbuild bundling) with a configuration that switches everything on:
 * e-mail, an alarm address, one scheduled and one on-demand report. Synthesized once; every test
 * reads the same template.
 */
const SES_IDENTITY = 'arn:aws:ses:eu-central-1:123456789012:identity/acme.example.com';

const config: InfraConfig = loadInfraConfig({
  reports: [
    {
      definition: {
        name: 'acme-weekly',
        timeZone: 'Europe/Berlin',
        datasets: { risks: {}, okrs: {} },
        email: { to: ['planning@acme.example.com'] },
      },
      schedule: { cron: 'cron(0 7 ? * MON *)', timeZone: 'Europe/Berlin' },
    },
    { definition: { name: 'ad-hoc', datasets: { boardItems: {} } }, schedule: null },
  ],
  retentionDays: 30,
  mailFrom: 'reports@acme.example.com',
  sesIdentityArn: SES_IDENTITY,
  alarmEmail: 'ops@acme.example.com',
  exportMemoryMb: 2048,
  exportTimeoutMinutes: 10,
  exportReservedConcurrency: 4,
  fanOutWorkers: 2,
});

/**
 * The metrics the handlers publish, read from their source: every metric name is a constant of
 * shared/core/names.ts (a name typed as a string there would fail here).
 */
function metricsPublishedByHandlers(): MetricName[] {
  const dir = join(__dirname, '..', '..', 'lambdas');
  const sources = readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts'))
    .map((file) => readFileSync(join(dir, file), 'utf8'));
  const names = new Set<MetricName>();
  for (const source of sources) {
    expect(source, 'a handler names a metric with a string literal').not.toMatch(/addMetric\(\s*['"`]/);
    for (const match of source.matchAll(/\bMETRIC\.(\w+)/g)) names.add(METRIC[match[1] as keyof typeof METRIC]);
  }
  return [...names].filter((name) => name !== undefined).sort();
}

let synthesized: Synthesized;
let ids: {
  bucket: string;
  logBucket: string;
  exportFn: string;
  apiFn: string;
  exportRolePolicy: string;
  apiRolePolicy: string;
  syncFn: string;
  syncRolePolicy: string;
  definitions: string;
  scheduleGroup: string;
  invokeRole: string;
  planningSecret: string;
  linkSecret: string;
  failedQueue: string;
  schedulerDlq: string;
  scheduledRuns: string;
  scheduledRunsDlq: string;
  topic: string;
  api: string;
  ledger: string;
};

beforeAll(() => {
  synthesized = synthesize(config);
  const { stack } = synthesized;
  const id = (c: IConstruct) => stack.getLogicalId(c.node.defaultChild as Parameters<typeof stack.getLogicalId>[0]);
  const policyOf = (role: IConstruct) => id(role.node.findChild('DefaultPolicy'));
  ids = {
    bucket: id(stack.reports.bucket),
    logBucket: id(stack.reports.logBucket),
    exportFn: id(stack.exportFunction.function),
    apiFn: id(stack.apiFunction.function),
    exportRolePolicy: policyOf(stack.exportFunction.role),
    apiRolePolicy: policyOf(stack.apiFunction.role),
    syncFn: id(stack.syncFunction.function),
    syncRolePolicy: policyOf(stack.syncFunction.role),
    definitions: id(stack.definitions.bucket),
    scheduleGroup: stack.schedules.group.scheduleGroupName,
    invokeRole: id(stack.schedules.invokeRole),
    planningSecret: id(stack.secrets.planningSecret),
    linkSecret: id(stack.secrets.linkKeySecret),
    failedQueue: id(stack.failedExportsQueue.queue),
    schedulerDlq: id(stack.schedules.deadLetterQueue),
    scheduledRuns: id(stack.scheduledRuns.queue),
    scheduledRunsDlq: id(stack.scheduledRuns.deadLetterQueue),
    topic: id(stack.alarms.topic),
    api: id(stack.api.api),
    ledger: id(stack.ledger.table),
  };
}, 180_000);

const arn = (logicalId: string) => ({ 'Fn::GetAtt': [logicalId, 'Arn'] });
const statementsOf = (policy: string) => policyStatements(synthesized.template).filter((s) => s.policy === policy).map((s) => s.statement);

describe('reports bucket', () => {
  it('blocks public access, encrypts with SSE-S3, logs to the access-log bucket and is retained', () => {
    synthesized.template.hasResource('AWS::S3::Bucket', {
      DeletionPolicy: 'Retain',
      Properties: Match.objectLike({
        BucketEncryption: { ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }] },
        PublicAccessBlockConfiguration: { BlockPublicAcls: true, BlockPublicPolicy: true, IgnorePublicAcls: true, RestrictPublicBuckets: true },
        LoggingConfiguration: { DestinationBucketName: { Ref: ids.logBucket }, LogFilePrefix: 'reports-bucket/' },
      }),
    });
  });

  it('expires objects under the prefix after retentionDays, staged table files after 3 days, and aborts stale multipart uploads after a day', () => {
    synthesized.template.hasResourceProperties('AWS::S3::Bucket', {
      LifecycleConfiguration: {
        Rules: Match.arrayWith([
          Match.objectLike({ Prefix: 'reports/', ExpirationInDays: 30, Status: 'Enabled' }),
          // What abandoned attempts staged (docs/run-atomicity.md, "Publishing into the tables").
          Match.objectLike({ Id: 'expire-abandoned-staging', Prefix: 'reports/_staging/', ExpirationInDays: 3, Status: 'Enabled' }),
          Match.objectLike({ AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 }, Status: 'Enabled' }),
        ]),
      },
    });
  });

  it('denies requests without TLS on the reports bucket and on the log bucket', () => {
    for (const bucket of [ids.bucket, ids.logBucket]) {
      synthesized.template.hasResourceProperties('AWS::S3::BucketPolicy', {
        Bucket: { Ref: bucket },
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({ Effect: 'Deny', Action: 's3:*', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
          ]),
        },
      });
    }
  });

  it('lets only S3 log delivery for this bucket write access logs', () => {
    synthesized.template.hasResourceProperties('AWS::S3::BucketPolicy', {
      Bucket: { Ref: ids.logBucket },
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Effect: 'Allow',
            Principal: { Service: 'logging.s3.amazonaws.com' },
            Action: 's3:PutObject',
            Condition: Match.objectLike({ ArnLike: { 'aws:SourceArn': arn(ids.bucket) } }),
          }),
        ]),
      },
    });
  });
});

describe('run ledger table', () => {
  it('bills on demand, expires items by TTL, keeps point-in-time recovery, encrypts with KMS and is retained', () => {
    synthesized.template.hasResource('AWS::DynamoDB::Table', {
      DeletionPolicy: 'Retain',
      Properties: Match.objectLike({
        BillingMode: 'PAY_PER_REQUEST',
        KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
        AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
        TimeToLiveSpecification: { AttributeName: 'expiresAt', Enabled: true },
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        // SSEEnabled without a key id: KMS with the AWS managed key aws/dynamodb.
        SSESpecification: { SSEEnabled: true },
        DeletionProtectionEnabled: true,
      }),
    });
    synthesized.template.resourceCountIs('AWS::DynamoDB::Table', 1);
  });

  it('names the table in an output for the export command (--ledger-table)', () => {
    synthesized.template.hasOutput('LedgerTableName', { Value: { Ref: ids.ledger } });
  });
});

describe('functions', () => {
  it('run Node.js 22 on arm64 with active tracing, ESM handler index.handler', () => {
    for (const fn of [ids.exportFn, ids.apiFn, ids.syncFn]) {
      expect(synthesized.template.toJSON().Resources[fn].Properties).toMatchObject({
        Runtime: 'nodejs22.x',
        Architectures: ['arm64'],
        Handler: 'index.handler',
        TracingConfig: { Mode: 'Active' },
      });
    }
  });

  it('size export-report from the config and reserve its concurrency when the config asks for it', () => {
    expect(synthesized.template.toJSON().Resources[ids.exportFn].Properties).toMatchObject({
      MemorySize: 2048,
      Timeout: 600,
      ReservedConcurrentExecutions: 4,
      // Room for the comparison's scratch file (docs/changes.md).
      EphemeralStorage: { Size: 1024 },
    });
    for (const fn of [ids.apiFn, ids.syncFn]) expect(synthesized.template.toJSON().Resources[fn].Properties.EphemeralStorage).toBeUndefined();
  });

  it('log to explicit log groups with retention and use no AWS managed policies', () => {
    // The four functions' (export, API, sync, mail events), the HTTP API's access log and the fan-out's executions.
    synthesized.template.resourcePropertiesCountIs('AWS::Logs::LogGroup', { RetentionInDays: 90 }, 6);
    const resources = synthesized.template.toJSON().Resources;
    for (const fn of [ids.exportFn, ids.apiFn, ids.syncFn]) {
      const props = resources[fn].Properties;
      expect(props.LoggingConfig.LogGroup).toEqual({ Ref: expect.any(String) });
      // Our functions' roles; aws-cdk-lib's deploy-time handlers (BucketDeployment, bucket notifications) bring their own.
      const role = props.Role['Fn::GetAtt'][0] as string;
      expect(resources[role].Properties.ManagedPolicyArns).toBeUndefined();
    }
  });

  it('set exactly the environment variables shared/core/config.ts reads', () => {
    const shared = [
      'REPORTS_BUCKET',
      'REPORTS_PREFIX',
      'LEDGER_TABLE',
      'LINK_KEY_SECRET_ID',
      'LINK_BASE_URL',
      'API_CONCURRENCY',
      'API_TIMEOUT_MS',
      'SECRET_MAX_AGE_SECONDS',
      'DEFINITIONS_BUCKET',
      'DEFINITIONS_MAX_AGE_SECONDS',
      'INLINE_DEFINITIONS',
      'INLINE_PREFIX',
      'INLINE_EMAIL_DOMAINS',
      'NODE_OPTIONS',
      'POWERTOOLS_SERVICE_NAME',
      'POWERTOOLS_METRICS_NAMESPACE',
    ];
    const env = (fn: string) => synthesized.template.toJSON().Resources[fn].Properties.Environment.Variables as Record<string, unknown>;
    expect(Object.keys(env(ids.exportFn)).sort()).toEqual([...shared, 'API_RATE_PER_SECOND', 'PLANNING_SECRET_ID', 'EVENT_BUS_NAME', 'MAIL_FROM', 'MAIL_CONFIGURATION_SET', 'FAN_OUT_STATE_MACHINE_ARN', 'FAN_OUT_ROWS'].sort());
    expect(Object.keys(env(ids.apiFn)).sort()).toEqual([...shared, 'EXPORT_FUNCTION_NAME', 'RUN_LINK_REUSE_MINUTES', 'RUN_LINK_STARTS_PER_HOUR'].sort());
    expect(env(ids.apiFn)).toMatchObject({ RUN_LINK_REUSE_MINUTES: '5', RUN_LINK_STARTS_PER_HOUR: '6' });

    const exportEnv = env(ids.exportFn);
    expect(exportEnv).toMatchObject({
      REPORTS_BUCKET: { Ref: ids.bucket },
      REPORTS_PREFIX: 'reports',
      LEDGER_TABLE: { Ref: ids.ledger },
      PLANNING_SECRET_ID: { Ref: ids.planningSecret },
      LINK_KEY_SECRET_ID: { Ref: ids.linkSecret },
      EVENT_BUS_NAME: 'default',
      // The tenant's rate every run keeps together through the ledger (docs/architecture.md, "A fleet at one hour").
      API_RATE_PER_SECOND: '20',
      MAIL_FROM: 'reports@acme.example.com',
      // Inline definitions stay off unless the configuration turns them on.
      INLINE_DEFINITIONS: 'off',
      INLINE_PREFIX: 'adhoc-',
      INLINE_EMAIL_DOMAINS: '',
      NODE_OPTIONS: '--enable-source-maps',
      POWERTOOLS_SERVICE_NAME: 'planning-report-exporter',
      POWERTOOLS_METRICS_NAMESPACE: 'PlanningReportExporter',
    });
    expect(env(ids.apiFn).EXPORT_FUNCTION_NAME).toEqual({ Ref: ids.exportFn });
    expect(exportEnv.DEFINITIONS_BUCKET).toEqual({ Ref: ids.definitions });
  });

  it('put no report definition in any environment variable', () => {
    const functions = Object.values(synthesized.template.findResources('AWS::Lambda::Function'));
    for (const fn of functions) {
      const variables = JSON.stringify(fn.Properties.Environment?.Variables ?? {});
      expect(variables).not.toMatch(/acme-weekly|ad-hoc|planning@acme|datasets/);
    }
  });

  it('build LINK_BASE_URL from the API id alone, so the functions do not depend on routes or stage', () => {
    const url = synthesized.template.toJSON().Resources[ids.exportFn].Properties.Environment.Variables.LINK_BASE_URL;
    expect(url).toEqual({
      'Fn::Join': ['', ['https://', { Ref: ids.api }, '.execute-api.', { Ref: 'AWS::Region' }, '.', { Ref: 'AWS::URLSuffix' }]],
    });
  });

  it('send failed asynchronous exports to an encrypted queue after two retries', () => {
    synthesized.template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
      FunctionName: { Ref: ids.exportFn },
      Qualifier: '$LATEST',
      MaximumRetryAttempts: 2,
      DestinationConfig: { OnFailure: { Destination: arn(ids.failedQueue) } },
    });
    for (const queue of [ids.failedQueue, ids.schedulerDlq, ids.scheduledRuns, ids.scheduledRunsDlq]) {
      expect(synthesized.template.toJSON().Resources[queue].Properties).toMatchObject({ SqsManagedSseEnabled: true });
      synthesized.template.hasResourceProperties('AWS::SQS::QueuePolicy', {
        Queues: [{ Ref: queue }],
        PolicyDocument: {
          Statement: Match.arrayWith([Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } })]),
        },
      });
    }
  });

  it('bundle every handler as ESM with the require shim, with source maps', () => {
    const assets = readdirSync(synthesized.app.outdir).filter((d) => d.startsWith('asset.'));
    const bundles = assets
      .map((d) => join(synthesized.app.outdir, d))
      .filter((d) => statSync(d).isDirectory() && readdirSync(d).includes('index.mjs'));
    // export-report, export-api, definitions-sync, mail-events.
    expect(bundles).toHaveLength(4);
    for (const dir of bundles) {
      const code = readFileSync(join(dir, 'index.mjs'), 'utf8');
      expect(code.startsWith("import { createRequire } from 'module'; const require = createRequire(import.meta.url);")).toBe(true);
      expect(readdirSync(dir)).toContain('index.mjs.map');
      // Regression guard, not the goal (see docs/deploy.md for the sizes): a bundle that suddenly
      // grows past this pulled in something it should not have.
      expect(statSync(join(dir, 'index.mjs')).size).toBeLessThan(3 * 1024 * 1024);
    }
  });

  /** The folder CDK bundled a function's asset into. */
  const assetOf = (fn: string) => {
    const key = (synthesized.template.toJSON().Resources[fn].Properties.Code as { S3Key: string }).S3Key;
    return join(synthesized.app.outdir, `asset.${key.replace(/\.zip$/, '')}`);
  };

  it('copies the PDF\'s fonts beside the export function\'s bundle, and beside no other', () => {
    expect(readdirSync(join(assetOf(ids.exportFn), 'fonts')).sort()).toEqual(['LICENSE.txt', 'LiberationSans-Bold.ttf', 'LiberationSans-Regular.ttf']);
    // Only code beside the others: index.mjs, the chunks it imports when first needed, their source maps.
    for (const fn of [ids.apiFn, ids.syncFn]) {
      const files = readdirSync(assetOf(fn));
      expect(files).toContain('index.mjs');
      expect(files.filter((f) => !/^[\w-]+\.mjs(\.map)?$/.test(f))).toEqual([]);
    }
  });

  it('splits the renderers out of the export function\'s index.mjs, each a chunk beside it, beside the fonts they read', () => {
    const files = readdirSync(assetOf(ids.exportFn));
    for (const renderer of ['document', 'workbook', 'parquet-sink']) expect(files.some((f) => f.startsWith(`${renderer}-`) && f.endsWith('.mjs'))).toBe(true);
    expect(readFileSync(join(assetOf(ids.exportFn), 'index.mjs'), 'utf8')).not.toContain('WOFF2 fonts cannot be read in this bundle');
  });
});

/** Read-only on the stored reports: what both export functions and the sync function get. */
const definitionReads = [
  expect.objectContaining({ Action: 's3:GetObject', Resource: { 'Fn::Join': ['', [{ 'Fn::GetAtt': [expect.stringMatching(/^Definitions/), 'Arn'] }, '/definitions/*']] } }),
  expect.objectContaining({ Action: 's3:ListBucket', Resource: { 'Fn::GetAtt': [expect.stringMatching(/^Definitions/), 'Arn'] } }),
];

describe('least privilege', () => {
  it('uses "*" as a resource only for X-Ray, SES\'s sending rate and the fan-out\'s log delivery, which have no resource-level permissions', () => {
    const wildcard = policyStatements(synthesized.template).filter(({ statement }) => asArray(statement.Resource).includes('*'));
    expect(wildcard.length).toBeGreaterThan(0);
    for (const { policy, statement } of wildcard) {
      const actions = asArray(statement.Action as string | string[]);
      if (policy.startsWith('FanOutStateMachineRole')) {
        expect(actions.every((a) => a.startsWith('xray:') || /^logs:(Create|Delete|Describe|Get|List|Put|Update)\w*(LogDelivery|LogDeliveries|LogGroups|ResourcePolicies|ResourcePolicy)$/.test(a)), actions.join()).toBe(true);
      } else if (statement.Sid === 'ReadSendRate') {
        // The account's sending rate, which every run's mail keeps to (shared/messages/paced-mailer.ts).
        expect(actions).toEqual(['ses:GetAccount']);
      } else {
        expect(actions.sort()).toEqual(['xray:PutTelemetryRecords', 'xray:PutTraceSegments']);
      }
    }
  });

  it('limits export-report object access to the prefix', () => {
    const s3 = statementsOf(ids.exportRolePolicy).filter((s) => asArray(s.Action as string | string[]).some((a) => a.startsWith('s3:')));
    expect(s3).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          Action: ['s3:AbortMultipartUpload', 's3:DeleteObject', 's3:GetObject', 's3:PutObject', 's3:PutObjectTagging'],
          Resource: { 'Fn::Join': ['', [arn(ids.bucket), '/reports/*']] },
        }),
        expect.objectContaining({ Action: 's3:ListBucket', Resource: arn(ids.bucket) }),
        ...definitionReads,
      ]),
    );
    expect(s3).toHaveLength(4);
  });

  it('lets export-api only read under the prefix (job status lives in the ledger)', () => {
    const s3 = statementsOf(ids.apiRolePolicy).filter((s) => asArray(s.Action as string | string[]).some((a) => a.startsWith('s3:')));
    expect(s3).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ Action: 's3:GetObject', Resource: { 'Fn::Join': ['', [arn(ids.bucket), '/reports/*']] } }),
        expect.objectContaining({ Action: 's3:ListBucket', Resource: arn(ids.bucket) }),
        ...definitionReads,
      ]),
    );
    expect(s3).toHaveLength(4);
  });

  it('gives export-report item reads and conditional puts on the ledger, and export-api the same on job items only', () => {
    const dynamo = (policy: string) => statementsOf(policy).filter((s) => asArray(s.Action as string | string[]).some((a) => a.startsWith('dynamodb:')));
    expect(dynamo(ids.exportRolePolicy)).toEqual([
      expect.objectContaining({ Effect: 'Allow', Action: ['dynamodb:GetItem', 'dynamodb:PutItem'], Resource: arn(ids.ledger) }),
    ]);
    expect(dynamo(ids.exportRolePolicy)[0]!.Condition).toBeUndefined();
    expect(dynamo(ids.apiRolePolicy)).toEqual([
      expect.objectContaining({
        Action: ['dynamodb:GetItem', 'dynamodb:PutItem'],
        Resource: arn(ids.ledger),
        Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['job/*', 'run-link/*', 'suppress/*'] } },
      }),
    ]);
  });

  it('gives export-report both secrets and export-api only the link key', () => {
    const secrets = (policy: string) =>
      statementsOf(policy)
        .filter((s) => asArray(s.Action as string | string[]).includes('secretsmanager:GetSecretValue'))
        .flatMap((s) => asArray(s.Resource));
    expect(secrets(ids.exportRolePolicy)).toEqual(expect.arrayContaining([{ Ref: ids.planningSecret }, { Ref: ids.linkSecret }]));
    // And the webhook secrets of reports stored without a deploy (test/infra/webhook-secrets.test.ts).
    expect(secrets(ids.exportRolePolicy).filter((r) => JSON.stringify(r).includes(':secret:planning-report-exporter/webhooks/*'))).toHaveLength(1);
    expect(secrets(ids.exportRolePolicy)).toHaveLength(3);
    expect(secrets(ids.apiRolePolicy)).toEqual([{ Ref: ids.linkSecret }]);
  });

  it('allows lambda:InvokeFunction from the API only on the export function', () => {
    const invoke = statementsOf(ids.apiRolePolicy).filter((s) => asArray(s.Action as string | string[]).includes('lambda:InvokeFunction'));
    expect(invoke).toEqual([expect.objectContaining({ Resource: arn(ids.exportFn) })]);
    // Nobody else may invoke anything but the export function.
    for (const { statement } of policyStatements(synthesized.template)) {
      if (!asArray(statement.Action as string | string[]).includes('lambda:InvokeFunction')) continue;
      for (const resource of asArray(statement.Resource)) expect(JSON.stringify(resource)).toContain(ids.exportFn);
    }
  });

  it('sends every report e-mail with a configuration set whose bounces and complaints reach mail-events', () => {
    synthesized.template.hasResourceProperties('AWS::SES::ConfigurationSet', { Name: Match.stringLikeRegexp('-report-mail$') });
    synthesized.template.hasResourceProperties('AWS::SES::ConfigurationSetEventDestination', {
      EventDestination: Match.objectLike({ Enabled: true, MatchingEventTypes: ['bounce', 'complaint'], EventBridgeDestination: Match.anyValue() }),
    });
    synthesized.template.hasResourceProperties('AWS::Events::Rule', {
      EventPattern: { source: ['aws.ses'], 'detail-type': ['Email Bounced', 'Email Complaint Received'], detail: { mail: { tags: { 'ses:configuration-set': [Match.stringLikeRegexp('-report-mail$')] } } } },
    });
    const exportEnv = synthesized.template.toJSON().Resources[ids.exportFn].Properties.Environment.Variables as Record<string, unknown>;
    expect(exportEnv.MAIL_CONFIGURATION_SET).toEqual({ Ref: expect.stringMatching(/^MailEventsSet/) });
    // mail-events touches the suppressed recipients only.
    const suppress = policyStatements(synthesized.template).filter((s) => JSON.stringify(s.statement.Condition ?? {}).includes('suppress/*'));
    expect(suppress.map((s) => s.statement.Condition)).toContainEqual({ 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['suppress/*'] } });
  });

  it('scopes SES to the configured identity and PutEvents to the default bus', () => {
    expect(statementsOf(ids.exportRolePolicy)).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          Action: ['ses:SendEmail', 'ses:SendRawEmail'],
          // The identity, and the configuration set every report e-mail names (its bounces and complaints).
          Resource: [SES_IDENTITY, expect.objectContaining({ 'Fn::Join': expect.arrayContaining([expect.arrayContaining([':configuration-set/'])]) })],
        }),
        // The account's sending rate, which the runs' mail keeps to together (GetAccount has no resource type).
        expect.objectContaining({ Sid: 'ReadSendRate', Action: 'ses:GetAccount', Resource: '*' }),
        expect.objectContaining({
          Action: 'events:PutEvents',
          Resource: {
            'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':events:', { Ref: 'AWS::Region' }, ':', { Ref: 'AWS::AccountId' }, ':event-bus/default']],
          },
        }),
      ]),
    );
    expect(statementsOf(ids.apiRolePolicy).some((s) => JSON.stringify(s.Action).includes('ses:'))).toBe(false);
  });
});

describe('link-signing key secret', () => {
  it('is generated (no value in the template) with a long random secret and retained', () => {
    synthesized.template.hasResource('AWS::SecretsManager::Secret', {
      DeletionPolicy: 'Retain',
      Properties: Match.objectLike({
        GenerateSecretString: Match.objectLike({
          SecretStringTemplate: JSON.stringify({ currentId: 'k1' }),
          GenerateStringKey: 'currentSecret',
          PasswordLength: 64,
        }),
      }),
    });
    const secrets = Object.values(synthesized.template.findResources('AWS::SecretsManager::Secret'));
    for (const secret of secrets) expect(secret.Properties.SecretString).toBeUndefined();
  });
});

describe('stored reports and their schedules', () => {
  it('keeps the definitions in a versioned, encrypted, TLS-only, logged and retained bucket that tells EventBridge of changes', () => {
    synthesized.template.hasResource('AWS::S3::Bucket', {
      DeletionPolicy: 'Retain',
      Properties: Match.objectLike({
        VersioningConfiguration: { Status: 'Enabled' },
        BucketEncryption: { ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }] },
        LoggingConfiguration: { DestinationBucketName: { Ref: ids.logBucket }, LogFilePrefix: 'definitions-bucket/' },
        PublicAccessBlockConfiguration: Match.objectLike({ BlockPublicAcls: true, RestrictPublicBuckets: true }),
      }),
    });
    synthesized.template.hasResourceProperties('Custom::S3BucketNotifications', {
      BucketName: { Ref: ids.definitions },
      NotificationConfiguration: { EventBridgeConfiguration: {} },
    });
  });

  it('uploads the reports of cdk.json on deploy under definitions/, never pruning pushed ones, after the sync rule exists', () => {
    const [deployment] = Object.values(synthesized.template.findResources('Custom::CDKBucketDeployment'));
    expect(deployment?.Properties).toMatchObject({ DestinationBucketName: { Ref: ids.definitions }, DestinationBucketKeyPrefix: 'definitions/', Prune: false });
    const rule = Object.keys(synthesized.template.findResources('AWS::Events::Rule')).find((k) => k.startsWith('DefinitionChanged'));
    expect(deployment?.DependsOn).toEqual(expect.arrayContaining([rule, ids.syncFn]));
  });

  it('wakes the sync function for objects created or deleted under definitions/ of that bucket only', () => {
    synthesized.template.hasResourceProperties('AWS::Events::Rule', {
      EventPattern: {
        source: ['aws.s3'],
        'detail-type': ['Object Created', 'Object Deleted'],
        detail: { bucket: { name: [{ Ref: ids.definitions }] }, object: { key: [{ prefix: 'definitions/' }] } },
      },
      Targets: [Match.objectLike({ Arn: arn(ids.syncFn), RetryPolicy: { MaximumRetryAttempts: 4, MaximumEventAgeInSeconds: 7200 } })],
    });
    // No reservation: overlapping syncs read the stored object again until it agrees (schedule-sync.ts).
    expect(synthesized.template.toJSON().Resources[ids.syncFn].Properties.ReservedConcurrentExecutions).toBeUndefined();
    expect(synthesized.template.toJSON().Resources[ids.syncFn].Properties.Environment.Variables).toEqual({
      DEFINITIONS_BUCKET: { Ref: ids.definitions },
      SCHEDULE_GROUP: ids.scheduleGroup,
      SCHEDULE_TARGET_ARN: arn(ids.scheduledRuns),
      SCHEDULER_ROLE_ARN: arn(ids.invokeRole),
      SCHEDULER_DEAD_LETTER_ARN: arn(ids.schedulerDlq),
      NODE_OPTIONS: '--enable-source-maps',
      POWERTOOLS_SERVICE_NAME: SERVICE_NAME,
      POWERTOOLS_METRICS_NAMESPACE: METRICS_NAMESPACE,
    });
  });

  it('lets the sync function manage schedules of its group only, pass only the invoke role to Scheduler, and read definitions', () => {
    const statements = statementsOf(ids.syncRolePolicy).filter((s) => !JSON.stringify(s.Action).includes('logs:') && !JSON.stringify(s.Action).includes('xray:'));
    expect(statements).toEqual([
      ...definitionReads,
      expect.objectContaining({
        Action: ['scheduler:CreateSchedule', 'scheduler:DeleteSchedule', 'scheduler:GetSchedule', 'scheduler:UpdateSchedule'],
        Resource: {
          'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':scheduler:', { Ref: 'AWS::Region' }, ':', { Ref: 'AWS::AccountId' }, `:schedule/${ids.scheduleGroup}/*`]],
        },
      }),
      expect.objectContaining({
        Action: 'iam:PassRole',
        Resource: arn(ids.invokeRole),
        Condition: { StringEquals: { 'iam:PassedToService': 'scheduler.amazonaws.com' } },
      }),
    ]);
  });

  it('makes no schedule at deploy: the sync function makes one per stored report, in the stack\'s group', () => {
    synthesized.template.resourceCountIs('AWS::Scheduler::Schedule', 0);
    synthesized.template.resourceCountIs('AWS::Scheduler::ScheduleGroup', 1);
    synthesized.template.hasResourceProperties('AWS::Scheduler::ScheduleGroup', { Name: ids.scheduleGroup });
  });

  it('deletes the schedule group with the stack: its name is the stack\'s, so one left behind would stop the next deploy at "already exists"', () => {
    synthesized.template.hasResource('AWS::Scheduler::ScheduleGroup', { DeletionPolicy: 'Delete', UpdateReplacePolicy: 'Delete' });
    expect(ids.scheduleGroup).toMatch(/^PlanningReportExporter-/);
  });

  it('uses an invoke role only Scheduler of this account and group can assume, to send runs to the scheduled-runs queue and dead-letter', () => {
    const role = synthesized.template.toJSON().Resources[ids.invokeRole];
    expect(role.Properties.AssumeRolePolicyDocument.Statement).toEqual([
      expect.objectContaining({
        Principal: { Service: 'scheduler.amazonaws.com' },
        Condition: {
          StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } },
          ArnLike: { 'aws:SourceArn': expect.objectContaining({ 'Fn::Join': expect.anything() }) },
        },
      }),
    ]);
    expect(JSON.stringify(role.Properties.AssumeRolePolicyDocument)).toContain(ids.scheduleGroup);
    const invokeStatements = policyStatements(synthesized.template).filter(({ policy }) => policy.startsWith('SchedulesInvokeRole')).map((s) => s.statement);
    expect(invokeStatements).toEqual(
      expect.arrayContaining([
        // Schedules made before the queue still invoke the function until the sync writes them again.
        expect.objectContaining({ Action: 'lambda:InvokeFunction', Resource: arn(ids.exportFn) }),
        expect.objectContaining({ Action: expect.arrayContaining(['sqs:SendMessage']), Resource: expect.arrayContaining([arn(ids.scheduledRuns), arn(ids.schedulerDlq)]) }),
      ]),
    );
  });

  it('hands scheduled runs to the export function from an encrypted queue, one at a time, at most scheduledConcurrency at once, dead-lettered after three receives', () => {
    const queue = synthesized.template.toJSON().Resources[ids.scheduledRuns].Properties;
    expect(queue).toMatchObject({
      SqsManagedSseEnabled: true,
      // Six times the function's timeout (AWS's guidance for an SQS event source).
      VisibilityTimeout: 6 * config.exportTimeoutMinutes * 60,
      RedrivePolicy: { deadLetterTargetArn: arn(ids.scheduledRunsDlq), maxReceiveCount: SCHEDULED_RUNS.maxReceiveCount },
    });
    synthesized.template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: ids.exportFn },
      EventSourceArn: arn(ids.scheduledRuns),
      BatchSize: 1,
      // The configuration's: the default 5, here the reservation of 4 (never above it).
      ScalingConfig: { MaximumConcurrency: Math.min(DEFAULT_SCHEDULED_CONCURRENCY, config.exportReservedConcurrency ?? Infinity) },
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
    synthesized.template.resourceCountIs('AWS::Lambda::EventSourceMapping', 1);
    // The function may take and delete the queue's messages.
    expect(statementsOf(ids.exportRolePolicy)).toEqual(
      expect.arrayContaining([expect.objectContaining({ Action: expect.arrayContaining(['sqs:ReceiveMessage', 'sqs:DeleteMessage']), Resource: arn(ids.scheduledRuns) })]),
    );
  });
});

/** An alarm above zero on the metric, to the alarm topic. */
const alarmOn = (metricName: string, dimensions: unknown, namespace: string) =>
  synthesized.template.hasResourceProperties('AWS::CloudWatch::Alarm', {
    MetricName: metricName,
    Namespace: namespace,
    Dimensions: dimensions,
    Threshold: 0,
    ComparisonOperator: 'GreaterThanThreshold',
    TreatMissingData: 'notBreaching',
    AlarmActions: [{ Ref: ids.topic }],
  });

describe('fan-out of reports too big for one function', () => {
  const machine = () => Object.values(synthesized.template.findResources('AWS::StepFunctions::StateMachine'))[0]!;

  it('is plan → a Distributed Map of workers that tolerates every failure → assemble, all on the export function', () => {
    const definition = JSON.stringify(machine().Properties.DefinitionString);
    expect(definition).toContain('\\"Type\\":\\"Map\\"');
    expect(definition).toContain('\\"ProcessorConfig\\":{\\"Mode\\":\\"DISTRIBUTED\\",\\"ExecutionType\\":\\"STANDARD\\"}');
    expect(definition).toContain('\\"ToleratedFailurePercentage\\":100');
    expect(definition).toContain('\\"MaxConcurrency\\":2');
    for (const step of ['plan', 'work', 'assemble', 'fail']) expect(definition).toContain(`\\"fanOut\\":\\"${step}\\"`);
    expect(definition).toContain(ids.exportFn);
  });

  it('is a valid Amazon States Language definition (asl-validator)', () => {
    const result = aslValidator(renderedDefinition(synthesized.template));
    expect(result.errorsText('\n')).toBe('');
    expect(result.isValid).toBe(true);
  });

  it('catches every task state: plan, the map and assemble go to the failure step, which goes to a failed end either way', () => {
    const { States: states } = renderedDefinition(synthesized.template);
    const tasks = allStates(states).filter(([, state]) => state.Type === 'Task');
    expect(tasks.map(([name]) => name).sort()).toEqual(['Assemble', 'FetchBoards', 'Plan', 'TellFailure']);
    for (const [name, state] of tasks) expect(state.Catch?.map((c) => c.ErrorEquals), name).toEqual([['States.ALL']]);
    const catchOf = (name: string) => states[name]!.Catch?.[0];
    for (const [name, part] of [['Plan', 'plan'], ['Workers', 'workers'], ['Assemble', 'assemble']] as const) {
      // The error is added to the state ($.error), tagged with the part, and handed to the failure step.
      expect(catchOf(name), name).toEqual({ ErrorEquals: ['States.ALL'], ResultPath: '$.error', Next: `${name}Failed` });
      expect(states[`${name}Failed`], name).toEqual({ Type: 'Pass', Parameters: { 'failed': part, 'error.$': '$.error' }, Next: 'TellFailure' });
    }
    expect(states.TellFailure?.Parameters).toEqual({ 'fanOut': 'fail', 'request.$': '$$.Execution.Input', 'failed.$': '$.failed', 'error.$': '$.error' });
    expect(states.TellFailure?.Next).toBe('RunFailed');
    expect(catchOf('TellFailure')?.Next).toBe('FailureUntold');
    expect(states.RunFailed).toEqual({ Type: 'Fail', Error: 'FanOutFailed', CausePath: '$.reason' });
    expect(states.FailureUntold).toMatchObject({ Type: 'Fail', Error: 'FanOutFailureUntold' });
    // A worker's failure leaves its boards to the assembler instead of failing the run.
    expect(states.Workers?.ItemProcessor?.States.FetchBoards?.Catch?.[0]?.Next).toBe('BoardsLeftToAssembler');
    // The assembler's failed run (told by its job) fails the execution with its reason.
    expect(states.RunOutcome?.Choices).toEqual([
      { And: [{ Variable: '$.status', IsPresent: true }, { Variable: '$.status', StringEquals: 'failed' }], Next: 'RunFailed' },
    ]);
  });

  it('retries throttling with jittered, capped backoff on every Lambda task, and Lambda\'s transient errors', () => {
    const lambdaTasks = allStates(renderedDefinition(synthesized.template).States).filter(
      ([, state]) => state.Type === 'Task' && state.Resource === `arn:aws:lambda:eu-central-1:123456789012:function:${ids.exportFn}`,
    );
    expect(lambdaTasks).toHaveLength(4);
    for (const [name, state] of lambdaTasks) {
      expect(state.Retry?.[0], name).toEqual({
        ErrorEquals: ['Lambda.TooManyRequestsException'],
        IntervalSeconds: 10,
        BackoffRate: 2,
        MaxDelaySeconds: 120,
        MaxAttempts: 20,
        JitterStrategy: 'FULL',
      });
      expect(state.Retry?.[1], name).toEqual({
        ErrorEquals: ['Lambda.ClientExecutionTimeoutException', 'Lambda.ServiceException', 'Lambda.AWSLambdaException', 'Lambda.SdkClientException'],
        IntervalSeconds: 2,
        BackoffRate: 2,
        MaxAttempts: 6,
        JitterStrategy: 'FULL',
      });
    }
    // The assembler's retryable failure is retried as the single path's scheduled run is, twice.
    const assemble = lambdaTasks.find(([name]) => name === 'Assemble')?.[1];
    expect(assemble?.Retry?.[2]).toMatchObject({ ErrorEquals: ['RetryableExportError'], MaxAttempts: 2, JitterStrategy: 'FULL' });
    // Each try is told its retry count, so only the last tells the owners of a retryable failure (shared/job/attempt.ts).
    expect(assemble?.Parameters).toEqual({ 'fanOut': 'assemble', 'request.$': '$.request', 'attempt.$': '$$.State.RetryCount' });
  });

  it('logs and traces executions, ends within four hours (past every step\'s limits and retries), and alarms when one fails', () => {
    expect(renderedDefinition(synthesized.template).TimeoutSeconds).toBe(14_400);
    expect(machine().Properties).toMatchObject({
      TracingConfiguration: { Enabled: true },
      LoggingConfiguration: { Level: 'ALL', IncludeExecutionData: false },
    });
    const machineId = Object.keys(synthesized.template.findResources('AWS::StepFunctions::StateMachine'))[0]!;
    alarmOn('ExecutionsFailed', [{ Name: 'StateMachineArn', Value: { Ref: machineId } }], 'AWS/States');
    // It says who told whom: the assembler, or the failure step; nobody only when that failed too.
    const [alarm] = Object.values(synthesized.template.findResources('AWS::CloudWatch::Alarm', { Properties: { MetricName: 'ExecutionsFailed' } }));
    const description = (alarm?.Properties as { AlarmDescription: string }).AlarmDescription;
    expect(description).toMatch(/TellFailure, which also released the run's lease/);
    expect(description).toMatch(/Nobody was told only if TellFailure failed too \(state FailureUntold\)/);
    expect(description.length).toBeLessThanOrEqual(1024);
  });

  it('lets the export function start this state machine only, and tells it the ARN without a reference', () => {
    const start = statementsOf(ids.exportRolePolicy).filter((s) => asArray(s.Action as string | string[]).includes('states:StartExecution'));
    expect(start).toHaveLength(1);
    expect(JSON.stringify(start[0]!.Resource)).toContain(':stateMachine:PlanningReportExporter-fan-out');
    const env = synthesized.template.toJSON().Resources[ids.exportFn].Properties.Environment.Variables;
    expect(JSON.stringify(env.FAN_OUT_STATE_MACHINE_ARN)).toContain(':stateMachine:PlanningReportExporter-fan-out');
    expect(machine().Properties.StateMachineName).toBe('PlanningReportExporter-fan-out');
    expect(env.FAN_OUT_ROWS).toBe('600000');
  });
});

describe('HTTP API', () => {
  it('authorizes the export routes with IAM and leaves the link and run-link routes to their tokens', () => {
    synthesized.template.resourceCountIs('AWS::ApiGatewayV2::Route', 9);
    synthesized.template.hasResourceProperties('AWS::ApiGatewayV2::Route', { RouteKey: 'GET /unsubscribe/{token}', AuthorizationType: 'NONE' });
    synthesized.template.hasResourceProperties('AWS::ApiGatewayV2::Route', { RouteKey: 'POST /unsubscribe/{token}', AuthorizationType: 'NONE' });
    synthesized.template.hasResourceProperties('AWS::ApiGatewayV2::Route', { RouteKey: 'GET /run/{token}', AuthorizationType: 'NONE' });
    synthesized.template.hasResourceProperties('AWS::ApiGatewayV2::Route', { RouteKey: 'POST /run/{token}', AuthorizationType: 'NONE' });
    synthesized.template.hasResourceProperties('AWS::ApiGatewayV2::Route', { RouteKey: 'GET /run/{token}/download', AuthorizationType: 'NONE' });
    synthesized.template.hasResourceProperties('AWS::ApiGatewayV2::Route', { RouteKey: 'GET /run/{token}/status', AuthorizationType: 'NONE' });
    synthesized.template.hasResourceProperties('AWS::ApiGatewayV2::Route', { RouteKey: 'POST /exports', AuthorizationType: 'AWS_IAM' });
    synthesized.template.hasResourceProperties('AWS::ApiGatewayV2::Route', { RouteKey: 'GET /exports/{id}', AuthorizationType: 'AWS_IAM' });
    synthesized.template.hasResourceProperties('AWS::ApiGatewayV2::Route', { RouteKey: 'GET /links/{token}', AuthorizationType: 'NONE' });
  });

  it('throttles the default stage and writes access logs without the request path (it carries link tokens)', () => {
    synthesized.template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      StageName: '$default',
      AutoDeploy: true,
      DefaultRouteSettings: { ThrottlingRateLimit: 10, ThrottlingBurstLimit: 20 },
      AccessLogSettings: { DestinationArn: Match.anyValue(), Format: Match.stringLikeRegexp('\\$context\\.routeKey') },
    });
    const [stage] = Object.values(synthesized.template.findResources('AWS::ApiGatewayV2::Stage'));
    expect(stage?.Properties.AccessLogSettings.Format).not.toMatch(/\$context\.(path|resourcePath)/);
  });

  it('throttles the run-link routes tighter than the stage, after the routes exist', () => {
    const stages = synthesized.template.findResources('AWS::ApiGatewayV2::Stage');
    const [stage] = Object.values(stages);
    expect(stage?.Properties.RouteSettings).toEqual({
      'GET /run/{token}': { ThrottlingRateLimit: 2, ThrottlingBurstLimit: 5 },
      'POST /run/{token}': { ThrottlingRateLimit: 2, ThrottlingBurstLimit: 5 },
      'GET /run/{token}/status': { ThrottlingRateLimit: 5, ThrottlingBurstLimit: 10 },
      'GET /run/{token}/download': { ThrottlingRateLimit: 5, ThrottlingBurstLimit: 10 },
      'GET /unsubscribe/{token}': { ThrottlingRateLimit: 2, ThrottlingBurstLimit: 5 },
      'POST /unsubscribe/{token}': { ThrottlingRateLimit: 2, ThrottlingBurstLimit: 5 },
    });
    const routes = synthesized.template.findResources('AWS::ApiGatewayV2::Route');
    const runRouteIds = Object.entries(routes).filter(([, r]) => String(r.Properties.RouteKey).includes(' /run/')).map(([id]) => id);
    expect(runRouteIds).toHaveLength(4);
    expect(stage?.DependsOn).toEqual(expect.arrayContaining(runRouteIds));
  });
});

describe('alarms', () => {

  it('alarms when more than 20 run links are refused in 5 minutes', () => {
    synthesized.template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'RunLinkRefused',
      Namespace: 'PlanningReportExporter',
      Dimensions: [{ Name: 'service', Value: 'planning-report-exporter' }],
      Statistic: 'Sum',
      Period: 300,
      Threshold: 20,
      ComparisonOperator: 'GreaterThanThreshold',
      TreatMissingData: 'notBreaching',
      AlarmActions: [{ Ref: ids.topic }],
    });
  });

  it('alarms on export-report errors, its three dead-letter queues and the ExportFailed metric', () => {
    alarmOn('Errors', [{ Name: 'FunctionName', Value: { Ref: ids.exportFn } }], 'AWS/Lambda');
    alarmOn('ApproximateNumberOfMessagesVisible', [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [ids.failedQueue, 'QueueName'] } }], 'AWS/SQS');
    alarmOn('ApproximateNumberOfMessagesVisible', [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [ids.schedulerDlq, 'QueueName'] } }], 'AWS/SQS');
    alarmOn('ApproximateNumberOfMessagesVisible', [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [ids.scheduledRunsDlq, 'QueueName'] } }], 'AWS/SQS');
    alarmOn('ExportFailed', [{ Name: 'service', Value: 'planning-report-exporter' }], 'PlanningReportExporter');
  });

  it('alarms when a stored report\'s schedule may be wrong: sync errors, undelivered sync events, invalid stored reports', () => {
    alarmOn('Errors', [{ Name: 'FunctionName', Value: { Ref: ids.syncFn } }], 'AWS/Lambda');
    const failedSyncs = Object.keys(synthesized.template.findResources('AWS::SQS::Queue')).find((k) => k.startsWith('FailedSyncs'))!;
    alarmOn('ApproximateNumberOfMessagesVisible', [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [failedSyncs, 'QueueName'] } }], 'AWS/SQS');
    alarmOn('DefinitionInvalid', [{ Name: 'service', Value: 'planning-report-exporter' }], 'PlanningReportExporter');
  });

  it('watches only metrics a handler publishes, in the handlers\' namespace and service', () => {
    const emitted = metricsPublishedByHandlers();
    expect(emitted).toEqual(expect.arrayContaining([METRIC.ExportFailed, METRIC.RunLinkRefused]));
    const alarms = Object.values(synthesized.template.findResources('AWS::CloudWatch::Alarm')) as {
      Properties: { MetricName?: string; Namespace?: string; Dimensions?: { Name: string; Value: unknown }[] };
    }[];
    const custom = alarms.map((a) => a.Properties).filter((p) => !p.Namespace?.startsWith('AWS/'));
    expect(custom.length).toBeGreaterThanOrEqual(2);
    for (const alarm of custom) {
      expect(alarm.Namespace).toBe(METRICS_NAMESPACE);
      expect(emitted).toContain(alarm.MetricName);
      expect(alarm.Dimensions).toEqual([{ Name: 'service', Value: SERVICE_NAME }]);
    }
    const env = (fn: string) => synthesized.template.toJSON().Resources[fn].Properties.Environment.Variables as Record<string, unknown>;
    for (const fn of [ids.exportFn, ids.apiFn]) {
      expect(env(fn)).toMatchObject({ POWERTOOLS_METRICS_NAMESPACE: METRICS_NAMESPACE, POWERTOOLS_SERVICE_NAME: SERVICE_NAME });
    }
  });

  it('publishes to a KMS-encrypted, TLS-only topic with the e-mail subscription', () => {
    synthesized.template.hasResourceProperties('AWS::SNS::Topic', { KmsMasterKeyId: Match.anyValue() });
    synthesized.template.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email',
      Endpoint: 'ops@acme.example.com',
      TopicArn: { Ref: ids.topic },
    });
    synthesized.template.hasResourceProperties('AWS::SNS::TopicPolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } })]),
      },
    });
    synthesized.template.hasResourceProperties('AWS::KMS::Key', {
      EnableKeyRotation: true,
      KeyPolicy: {
        Statement: Match.arrayWith([Match.objectLike({ Principal: { Service: 'cloudwatch.amazonaws.com' } })]),
      },
    });
  });
});

describe('outputs', () => {
  it('exports the API URL, bucket, secrets and function names', () => {
    const outputs = Object.keys(synthesized.template.toJSON().Outputs as object);
    expect(outputs).toEqual(
      expect.arrayContaining(['ApiUrl', 'ReportsBucketName', 'PlanningSecretId', 'LinkKeySecretArn', 'ExportFunctionName', 'ApiFunctionName']),
    );
  });
});

describe('cdk-nag AwsSolutions', () => {
  it('has no unacknowledged errors or warnings', () => {
    const findings = unacknowledgedNagFindings(synthesized.app);
    expect(describeFindings(findings)).toEqual([]);
  });

  it('gives every acknowledgement a specific reason', () => {
    const acknowledgements: { path: string; id: string; reason: string }[] = [];
    for (const construct of synthesized.app.node.findAll()) {
      for (const entry of construct.node.metadata) {
        if (entry.type !== Validations.ACKNOWLEDGED_RULES_METADATA_KEY) continue;
        for (const [id, reason] of Object.entries(entry.data as Record<string, string>)) {
          acknowledgements.push({ path: construct.node.path, id, reason });
        }
      }
    }
    expect(acknowledgements.length).toBeGreaterThan(0);
    for (const ack of acknowledgements) {
      expect(ack.id, ack.path).toMatch(/AwsSolutions-/);
      expect(ack.reason.length, `${ack.path} ${ack.id}`).toBeGreaterThan(60);
    }
  });
});
