import { CfnOutput, Duration, Stack, Validations, type StackProps } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as events from 'aws-cdk-lib/aws-events';
import * as eventTargets from 'aws-cdk-lib/aws-events-targets';
import * as iam from 'aws-cdk-lib/aws-iam';
import { SqsDestination } from 'aws-cdk-lib/aws-lambda-destinations';
import * as logs from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import {
  DEFAULT_API_CONCURRENCY,
  DEFAULT_API_TIMEOUT_MS,
  DEFAULT_FAN_OUT_ROWS,
  DEFAULT_RUN_LINK_REUSE_MINUTES,
  DEFAULT_RUN_LINK_STARTS_PER_HOUR,
} from '../shared/core/defaults';
import {
  DEFAULT_EVENT_BUS_NAME,
  DEFAULT_REPORTS_PREFIX,
  METRIC,
  METRICS_NAMESPACE,
  SERVICE_NAME,
} from '../shared/core/names';
import type { ApiLambdaEnvironment, ExportLambdaEnvironment, SyncLambdaEnvironment } from '../shared/core/config';
import { DEFINITIONS_PREFIX } from '../shared/definitions/stored-definition';
import { LAMBDA_ASYNC_ATTEMPTS } from '../shared/job/attempt';
import { REPO_ROOT, type InfraConfig } from './config';
import { DefinitionsBucket } from './constructs/definitions-bucket';
import { ReportMailEvents } from './constructs/report-mail-events';
import { ReportFanOut } from './constructs/report-fan-out';
import { ExportHttpApi } from './constructs/export-http-api';
import { ExporterAlarms, FIVE_MINUTES } from './constructs/exporter-alarms';
import { ExporterFunction, PDF_FONTS } from './constructs/exporter-function';
import { ExporterSecrets } from './constructs/exporter-secrets';
import { ReportSchedules } from './constructs/report-schedules';
import { ScheduledRuns } from './constructs/scheduled-runs';
import { ReportsBucket } from './constructs/reports-bucket';
import { RunLedgerTable } from './constructs/run-ledger-table';
import { DownstreamTables } from './constructs/downstream-tables';
import { SecureQueue } from './constructs/secure-queue';
import { grantWebhookSecrets } from './constructs/webhook-secrets';

/** Root of everything the Lambdas write in the bucket (REPORTS_PREFIX). */
const REPORTS_PREFIX = DEFAULT_REPORTS_PREFIX;
const EVENT_BUS_NAME = DEFAULT_EVENT_BUS_NAME;

const LOG_RETENTION = logs.RetentionDays.THREE_MONTHS;
/** /tmp of the export function (and the fan-out's assembler, the same function), in MiB. */
export const EXPORT_SCRATCH_MB = 1_024;
/**
 * Refused run links (bad signature, expired, revoked) per 5 minutes before the alarm: a person with
 * an old link makes a few; someone trying tokens makes many.
 */
export const RUN_LINK_REFUSED_ALARM_THRESHOLD = 20;

export interface ReportExporterStackProps extends StackProps {
  readonly config: InfraConfig;
  /** Repository root (entries and lock file); defaults to this repository. */
  readonly repoRoot?: string;
}

export class ReportExporterStack extends Stack {
  readonly reports: ReportsBucket;
  readonly definitions: DefinitionsBucket;
  readonly syncFunction: ExporterFunction;
  readonly fanOut: ReportFanOut;
  readonly ledger: RunLedgerTable;
  readonly secrets: ExporterSecrets;
  readonly api: ExportHttpApi;
  readonly exportFunction: ExporterFunction;
  readonly apiFunction: ExporterFunction;
  readonly failedExportsQueue: SecureQueue;
  readonly schedules: ReportSchedules;
  readonly scheduledRuns: ScheduledRuns;
  readonly alarms: ExporterAlarms;
  readonly downstream: DownstreamTables;
  /** Bounces and complaints of the reports' e-mail; only where the stack sends e-mail. */
  readonly mailEvents: ReportMailEvents | undefined;
  private readonly config: InfraConfig;

  constructor(scope: Construct, id: string, props: ReportExporterStackProps) {
    super(scope, id, props);
    const { config } = props;
    this.config = config;
    const repoRoot = props.repoRoot ?? REPO_ROOT;

    this.reports = new ReportsBucket(this, 'Storage', { prefix: REPORTS_PREFIX, retentionDays: config.retentionDays });
    const bucket = this.reports.bucket;
    this.definitions = new DefinitionsBucket(this, 'Definitions', { logBucket: this.reports.logBucket });
    this.ledger = new RunLedgerTable(this, 'Ledger');
    // Glue tables and Athena over every report's Parquet tables, deployed or stored (docs/downstream.md).
    this.downstream = new DownstreamTables(this, 'Downstream', { bucket, logBucket: this.reports.logBucket, prefix: REPORTS_PREFIX });
    this.secrets = new ExporterSecrets(this, 'Secrets', {
      ...(config.planningSecretName !== undefined && { planningSecretName: config.planningSecretName }),
    });
    this.api = new ExportHttpApi(this, 'Http', { logRetention: LOG_RETENTION });

    // lambdaSchema in shared/core/config.ts (both functions parse it); the types below check the keys.
    const sharedEnvironment = {
      REPORTS_BUCKET: bucket.bucketName,
      REPORTS_PREFIX,
      LEDGER_TABLE: this.ledger.table.tableName,
      LINK_KEY_SECRET_ID: this.secrets.linkKeySecret.secretArn,
      LINK_BASE_URL: this.api.url,
      API_CONCURRENCY: String(DEFAULT_API_CONCURRENCY),
      API_TIMEOUT_MS: String(DEFAULT_API_TIMEOUT_MS),
      SECRET_MAX_AGE_SECONDS: '300',
      DEFINITIONS_BUCKET: this.definitions.bucket.bucketName,
      DEFINITIONS_MAX_AGE_SECONDS: '60',
      INLINE_DEFINITIONS: config.inlineDefinitions.enabled ? 'on' : 'off',
      INLINE_PREFIX: config.inlineDefinitions.prefix,
      INLINE_EMAIL_DOMAINS: config.inlineDefinitions.emailDomains.join(','),
      NODE_OPTIONS: '--enable-source-maps',
      POWERTOOLS_SERVICE_NAME: SERVICE_NAME,
      POWERTOOLS_METRICS_NAMESPACE: METRICS_NAMESPACE,
    } satisfies Partial<ExportLambdaEnvironment & ApiLambdaEnvironment>;
    // SES is opt-in: without an identity there is neither a sender nor a permission to send.
    const mailEnabled = config.sesIdentityArn !== undefined;
    this.mailEvents =
      config.sesIdentityArn === undefined
        ? undefined
        : new ReportMailEvents(this, 'MailEvents', {
            repoRoot,
            ledger: this.ledger,
            definitions: this.definitions,
            sesIdentityArn: config.sesIdentityArn,
            mailFrom: config.mailFrom,
            logRetention: LOG_RETENTION,
          });

    this.exportFunction = new ExporterFunction(this, 'ExportReport', {
      repoRoot,
      entry: 'lambdas/export-report/handler.ts',
      description: 'planning-report-exporter: export-report (scheduled and on-demand exports)',
      memorySize: config.exportMemoryMb,
      // The comparison's key map is a scratch file, ~37 bytes a baseline row while it is built
      // (docs/changes.md): 10 million rows as the fan-out's assembler would take most of the default 512 MiB.
      ephemeralStorageMb: EXPORT_SCRATCH_MB,
      // It writes the PDF (the API, the sync and the mail events never do).
      besideBundle: [PDF_FONTS],
      timeout: Duration.minutes(config.exportTimeoutMinutes),
      // No reservation unless configured: a new account (quota 10) has nothing to reserve. What bounds
      // the planning API's load without one: docs/deploy.md, "Concurrency".
      ...(config.exportReservedConcurrency !== undefined && { reservedConcurrentExecutions: config.exportReservedConcurrency }),
      logRetention: LOG_RETENTION,
      environment: {
        ...sharedEnvironment,
        // The tenant's rate, kept by all its runs at once through the ledger (docs/architecture.md, "A fleet at one hour").
        API_RATE_PER_SECOND: String(config.planningApiRatePerSecond),
        // Only the export function reads the planning API credentials.
        PLANNING_SECRET_ID: this.secrets.planningSecretId,
        EVENT_BUS_NAME,
        ...(mailEnabled && config.mailFrom !== undefined && { MAIL_FROM: config.mailFrom }),
        ...(this.mailEvents && { MAIL_CONFIGURATION_SET: this.mailEvents.configurationSet.configurationSetName }),
        // Built from the state machine's fixed name: a reference would make a cycle (it invokes this function).
        FAN_OUT_STATE_MACHINE_ARN: ReportFanOut.arnIn(this),
        FAN_OUT_ROWS: String(DEFAULT_FAN_OUT_ROWS),
      } satisfies ExportLambdaEnvironment,
    });
    const exportFn = this.exportFunction.function;

    this.apiFunction = new ExporterFunction(this, 'ExportApi', {
      repoRoot,
      entry: 'lambdas/export-api/handler.ts',
      description: 'planning-report-exporter: export-api (HTTP API)',
      memorySize: 512,
      // API Gateway gives up after 30 s.
      timeout: Duration.seconds(29),
      logRetention: LOG_RETENTION,
      environment: {
        ...sharedEnvironment,
        EXPORT_FUNCTION_NAME: exportFn.functionName,
        RUN_LINK_REUSE_MINUTES: String(config.runLinkReuseMinutes ?? DEFAULT_RUN_LINK_REUSE_MINUTES),
        RUN_LINK_STARTS_PER_HOUR: String(config.runLinkStartsPerHour ?? DEFAULT_RUN_LINK_STARTS_PER_HOUR),
      } satisfies ApiLambdaEnvironment,
    });
    const apiFn = this.apiFunction.function;
    this.api.addRoutes(apiFn);

    // Async invocations (the API, run links; schedules made before the scheduled-runs queue): a run that
    // fails transiently throws and is retried with the same run id; what still fails lands here.
    this.failedExportsQueue = new SecureQueue(this, 'FailedExports', {
      purpose: 'asynchronous export-report invocations that failed after all retries (Lambda on-failure destination)',
    });
    exportFn.configureAsyncInvoke({
      onFailure: new SqsDestination(this.failedExportsQueue.queue),
      // The export counts its attempts against this (shared/job/attempt.ts): only the last tells the owners of a retryable failure.
      retryAttempts: LAMBDA_ASYNC_ATTEMPTS - 1,
      maxEventAge: Duration.hours(6),
    });

    this.fanOut = new ReportFanOut(this, 'FanOut', {
      target: exportFn,
      // The map's concurrency; with a reservation, at most half of its slots (infra/config.ts): the rest stay the exports'.
      workers: config.fanOutWorkers,
      logRetention: LOG_RETENTION,
    });
    this.grantExportPermissions(config);
    this.grantApiPermissions();

    // Scheduled runs reach the function through a queue, at most scheduledConcurrency at once (docs/architecture.md, "A fleet at one hour").
    this.scheduledRuns = new ScheduledRuns(this, 'ScheduledRuns', {
      target: exportFn,
      functionTimeout: Duration.minutes(config.exportTimeoutMinutes),
      maxConcurrency: config.scheduledConcurrency,
    });
    this.schedules = new ReportSchedules(this, 'Schedules', { target: this.scheduledRuns.queue, exportFunction: exportFn });

    this.alarms = new ExporterAlarms(this, 'Alarms', {
      ...(config.alarmEmail !== undefined && { alarmEmail: config.alarmEmail }),
    });
    this.syncFunction = this.definitionsSync(repoRoot);
    this.alarms.alarmAboveZero(
      'ExportErrors',
      exportFn.metricErrors({ period: FIVE_MINUTES, statistic: cloudwatch.Stats.SUM }),
      'export-report invocations failed (Lambda Errors > 0). Check the function log group.',
    );
    this.alarms.alarmAboveZero(
      'ApiErrors',
      apiFn.metricErrors({ period: FIVE_MINUTES, statistic: cloudwatch.Stats.SUM }),
      'export-api invocations failed (Lambda Errors > 0).',
    );
    this.alarms.alarmAboveZero(
      'ApiServerErrors',
      this.api.stage.metricServerError({ period: FIVE_MINUTES, statistic: cloudwatch.Stats.SUM }),
      'The HTTP API answered 5xx.',
    );
    this.alarms.alarmAbove(
      'RunLinkRefused',
      new cloudwatch.Metric({
        namespace: METRICS_NAMESPACE,
        metricName: METRIC.RunLinkRefused,
        dimensionsMap: { service: SERVICE_NAME },
        period: FIVE_MINUTES,
        statistic: cloudwatch.Stats.SUM,
      }),
      RUN_LINK_REFUSED_ALARM_THRESHOLD,
      `More than ${RUN_LINK_REFUSED_ALARM_THRESHOLD} run links were refused in 5 minutes (custom metric RunLinkRefused): someone may be trying tokens. The export-api log says why each was refused.`,
    );
    this.alarms.alarmAboveZero(
      'FailedExportsQueueDepth',
      this.failedExportsQueue.queue.metricApproximateNumberOfMessagesVisible({ period: FIVE_MINUTES, statistic: cloudwatch.Stats.MAXIMUM }),
      'An export failed after all retries: the failed invocation is in the failed-exports queue.',
    );
    this.alarms.alarmAboveZero(
      'SchedulerDeadLetterQueueDepth',
      this.schedules.deadLetterQueue.metricApproximateNumberOfMessagesVisible({ period: FIVE_MINUTES, statistic: cloudwatch.Stats.MAXIMUM }),
      'EventBridge Scheduler could not deliver a scheduled run to the scheduled-runs queue: the undelivered event is in the scheduler dead-letter queue.',
    );
    this.alarms.alarmAboveZero(
      'ScheduledRunsDeadLetterQueueDepth',
      this.scheduledRuns.deadLetterQueue.metricApproximateNumberOfMessagesVisible({ period: FIVE_MINUTES, statistic: cloudwatch.Stats.MAXIMUM }),
      'A scheduled run failed on every receive: its message is in the scheduled-runs dead-letter queue (the export-report log of its last receive says why).',
    );
    this.alarms.alarmAboveZero(
      'FanOutExecutionsFailed',
      this.fanOut.stateMachine.metricFailed({ period: FIVE_MINUTES, statistic: cloudwatch.Stats.SUM }),
      'A fan-out execution failed (a report too big for one function); its cause says what failed. ReportFailed was published and the owners told (once per failure streak): by the assembler when its run failed, as every export does; else by the failure step TellFailure, which also released the run\'s lease, when Plan, the workers\' map or Assemble failed (killed, timed out, throttled past its retries). Nobody was told only if TellFailure failed too (state FailureUntold). The execution history says which step.',
    );
    this.alarms.alarmAboveZero(
      'ExportFailedMetric',
      new cloudwatch.Metric({
        namespace: METRICS_NAMESPACE,
        metricName: METRIC.ExportFailed,
        dimensionsMap: { service: SERVICE_NAME },
        period: FIVE_MINUTES,
        statistic: cloudwatch.Stats.SUM,
      }),
      'An export failed for good (custom metric ExportFailed): a failure no retry mends (e.g. a bad definition), or the last attempt of a run. Attempts another follows count as ExportRetried, not here: one failed run, one count.',
    );

    this.addOutputs();
  }

  /**
   * definitions-sync: an object created or deleted under definitions/ → that report's schedule.
   * No reserved concurrency (a new account has none to give): syncs may overlap, and each one reads the
   * stored object again after it wrote the schedule until the two agree (shared/definitions/schedule-sync.ts),
   * so the last schedule written is the last write's, whatever order the events came in.
   */
  private definitionsSync(repoRoot: string): ExporterFunction {
    const sync = new ExporterFunction(this, 'DefinitionsSync', {
      repoRoot,
      entry: 'lambdas/definitions-sync/handler.ts',
      description: 'planning-report-exporter: definitions-sync (one Scheduler schedule per stored report)',
      memorySize: 256,
      timeout: Duration.minutes(1),
      logRetention: LOG_RETENTION,
      environment: {
        DEFINITIONS_BUCKET: this.definitions.bucket.bucketName,
        SCHEDULE_GROUP: this.schedules.group.scheduleGroupName,
        SCHEDULE_TARGET_ARN: this.scheduledRuns.queue.queueArn,
        SCHEDULER_ROLE_ARN: this.schedules.invokeRole.roleArn,
        SCHEDULER_DEAD_LETTER_ARN: this.schedules.deadLetterQueue.queueArn,
        NODE_OPTIONS: '--enable-source-maps',
        POWERTOOLS_SERVICE_NAME: SERVICE_NAME,
        POWERTOOLS_METRICS_NAMESPACE: METRICS_NAMESPACE,
      } satisfies SyncLambdaEnvironment,
    });
    this.definitions.grantDefinitionReader(sync.role);
    this.schedules.grantScheduleManager(sync.role);
    const rule = new events.Rule(this, 'DefinitionChanged', {
      description: 'A stored report was added, changed or deleted: sync its schedule',
      eventPattern: {
        source: ['aws.s3'],
        detailType: ['Object Created', 'Object Deleted'],
        detail: {
          bucket: { name: [this.definitions.bucket.bucketName] },
          object: { key: [{ prefix: DEFINITIONS_PREFIX }] },
        },
      },
    });
    const failedSyncs = new SecureQueue(this, 'FailedSyncs', {
      purpose: 'definition changes EventBridge could not hand to the sync function (rule target)',
    });
    rule.addTarget(
      new eventTargets.LambdaFunction(sync.function, {
        deadLetterQueue: failedSyncs.queue,
        retryAttempts: 4,
        maxEventAge: Duration.hours(2),
      }),
    );
    // The reports of cdk.json are uploaded once the rule exists, so their schedules appear in this deploy.
    this.definitions.deployReports(this.config.reports, [rule, sync.function]);
    this.alarmOnSync(sync, failedSyncs);
    return sync;
  }

  /** A report whose schedule could not be made is a report that silently never runs. */
  private alarmOnSync(sync: ExporterFunction, failedSyncs: SecureQueue): void {
    this.alarms.alarmAboveZero(
      'SyncErrors',
      sync.function.metricErrors({ period: FIVE_MINUTES, statistic: cloudwatch.Stats.SUM }),
      'definitions-sync failed: a stored report\'s schedule may be missing or stale. Its log names the report; re-sync with {"reports":["<name>"]}.',
    );
    this.alarms.alarmAboveZero(
      'FailedSyncsQueueDepth',
      failedSyncs.queue.metricApproximateNumberOfMessagesVisible({ period: FIVE_MINUTES, statistic: cloudwatch.Stats.MAXIMUM }),
      'A definition change never reached definitions-sync: the event is in the failed-syncs queue.',
    );
    this.alarms.alarmAboveZero(
      'DefinitionInvalid',
      new cloudwatch.Metric({
        namespace: METRICS_NAMESPACE,
        metricName: METRIC.DefinitionInvalid,
        dimensionsMap: { service: SERVICE_NAME },
        period: FIVE_MINUTES,
        statistic: cloudwatch.Stats.SUM,
      }),
      'A stored report is not a valid definition (custom metric DefinitionInvalid); its schedule was left as it was. Run npm run reports -- validate on it.',
    );
  }

  /**
   * export-report: write, read and delete under the prefix only, every ledger item, both secrets,
   * SES on the one identity, PutEvents on the bus.
   */
  private grantExportPermissions(config: InfraConfig): void {
    const role = this.exportFunction.role;
    this.reports.grantReportWriter(role);
    this.definitions.grantDefinitionReader(role);
    this.fanOut.grantStart(role);
    this.ledger.grantRunItems(role);
    this.secrets.planningSecret.grantRead(role);
    this.secrets.linkKeySecret.grantRead(role);
    // Chat channels: the webhook secrets the configured reports name, and no others.
    grantWebhookSecrets(this, config.reports, role, config.planningSecretName);
    events.EventBus.fromEventBusName(this, 'DefaultBus', EVENT_BUS_NAME).grantPutEventsTo(role);
    if (config.sesIdentityArn !== undefined) {
      role.addToPrincipalPolicy(
        new iam.PolicyStatement({
          sid: 'SendReportEmail',
          actions: ['ses:SendEmail', 'ses:SendRawEmail'],
          // SES checks the configuration set a message names as well as its identity.
          resources: [config.sesIdentityArn, ...(this.mailEvents ? [this.mailEvents.configurationSetArn] : [])],
        }),
      );
      // The account's sending rate, which every run's mail keeps to together (shared/messages/paced-mailer.ts).
      role.addToPrincipalPolicy(new iam.PolicyStatement({ sid: 'ReadSendRate', actions: ['ses:GetAccount'], resources: ['*'] }));
      Validations.of(role).acknowledge({
        id: 'AwsSolutions-IAM5[Resource::*]',
        reason:
          'Only actions without a resource type use "*": the X-Ray actions xray:PutTraceSegments and xray:PutTelemetryRecords, and ses:GetAccount (the account\'s sending rate, read-only).',
      });
    }
  }

  /** export-api: read manifests and files (to presign), job status and run links in the ledger, invoke export-report. */
  private grantApiPermissions(): void {
    const role = this.apiFunction.role;
    this.reports.grantReportReader(role);
    this.definitions.grantDefinitionReader(role);
    this.ledger.grantJobItems(role);
    this.secrets.linkKeySecret.grantRead(role);
    this.exportFunction.grantInvokeUnqualified(role);
  }

  private addOutputs(): void {
    const output = (id: string, value: string, description: string) => new CfnOutput(this, id, { value, description });
    output('ApiUrl', this.api.url, 'Base URL of the HTTP API (POST /exports, GET /exports/{id}, GET /links/{token}, GET /run/{token})');
    output('ReportsBucketName', this.reports.bucket.bucketName, `Bucket with the reports under ${REPORTS_PREFIX}/`);
    output('LedgerTableName', this.ledger.table.tableName, 'DynamoDB run ledger (leases, latest, job status); the export command takes it as --ledger-table');
    output('AccessLogBucketName', this.reports.logBucket.bucketName, 'Server access logs of the reports bucket');
    output('PlanningSecretId', this.secrets.planningSecretId, 'Secret with the planning API credentials JSON (put-secret-value here)');
    output('LinkKeySecretArn', this.secrets.linkKeySecret.secretArn, 'Secret with the link-signing key set');
    output('ExportFunctionName', this.exportFunction.function.functionName, 'export-report Lambda');
    output('ApiFunctionName', this.apiFunction.function.functionName, 'export-api Lambda');
    output('FailedExportsQueueUrl', this.failedExportsQueue.queue.queueUrl, 'Failed asynchronous export invocations');
    output('DefinitionsBucketName', this.definitions.bucket.bucketName, 'Stored reports, one JSON object per report under definitions/ (npm run reports -- push --bucket <this>)');
    output('ScheduleGroupName', this.schedules.group.scheduleGroupName, 'EventBridge Scheduler group with one schedule per scheduled report (npm run reports -- list)');
    output('SchedulerDeadLetterQueueUrl', this.schedules.deadLetterQueue.queueUrl, 'Scheduled invocations that could not be delivered');
    output('FanOutStateMachineArn', this.fanOut.stateMachine.stateMachineArn, 'Step Functions fan-out of reports too big for one function (start one by hand with {"report", "scheduledTime"})');
    output('AlarmTopicArn', this.alarms.topic.topicArn, 'SNS topic of all alarms (subscribe more endpoints here)');
  }
}
