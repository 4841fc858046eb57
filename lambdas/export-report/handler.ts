import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { loadExportLambdaConfig } from '../../shared/core/config';
import { RetryableExportError } from '../../shared/core/errors';
import { METRIC } from '../../shared/core/names';
import { createEventBridgeClient, EventBridgePublisher } from '../../shared/events/event-bridge';
import { systemClock } from '../../shared/core/clock';
import { jobExportSettings } from '../../shared/job/run-context';
import { RANDOM_RUN_IDS, RUN_DEFAULTS } from '../../shared/report/run/context';
import { runJob, type JobContext, type JobOutcome } from '../../shared/job/run-job';
import { runFanOutStep } from '../../shared/fan-out/steps';
import { fanOutStepSchema, isFanOutStep } from '../../shared/fan-out/event';
import { createSfnClient, StepFunctionsFanOutStarter } from '../../shared/fan-out/step-functions-starter';
import { JobStatusStore } from '../../shared/job/status/job-status';
import { exportJobRequestSchema, type ExportJobRequest } from '../../shared/job/request';
import { isQueuedRuns, queuedRunsSchema, runQueuedJobs } from '../../shared/job/queue-door';
import { countAttempt, LAMBDA_ASYNC_ATTEMPTS, type RunAttempt } from '../../shared/job/attempt';
import { inlinePolicy } from '../../shared/job/stages/resolve-definition';
import {
  SecretsManagerCredentialsSource,
  SecretsManagerLinkKeySource,
  SecretsManagerWebhookSource,
} from '../../shared/secrets/secret-source';
import { timerWait } from '../../shared/report/run/run-entry';
import { definitionStore, pacedSesMailer, reportsLedger, reportsStorage, s3Client, secretsClient } from '../adapters';
import { createPowertools, withLifecycle } from '../lifecycle';

// Built once per container and reused by every invocation it serves.
const config = loadExportLambdaConfig(process.env);
const { logger, metrics, tracer } = createPowertools();
const secrets = secretsClient(tracer);
const s3 = s3Client(config, tracer);
const storage = reportsStorage(s3, config);
const inline = inlinePolicy(config);
// The reports live in the definitions bucket, read per run through a short cache: an upload
// reaches the next run without a deploy, and no definition sits in the environment.
const definitions = definitionStore(s3, config);
const ledger = reportsLedger(config, tracer);
const jobs = new JobStatusStore(ledger);
const credentials = new SecretsManagerCredentialsSource({
  secretId: config.PLANNING_SECRET_ID,
  client: secrets,
  maxAgeSeconds: config.SECRET_MAX_AGE_SECONDS,
});
const linkKeys = new SecretsManagerLinkKeySource({ secretId: config.LINK_KEY_SECRET_ID, client: secrets, maxAgeSeconds: config.SECRET_MAX_AGE_SECONDS });
// Chat channels' webhook URLs, read from the secrets their definitions name (the stack grants read on those).
const webhooks = new SecretsManagerWebhookSource({ client: secrets, maxAgeSeconds: config.SECRET_MAX_AGE_SECONDS });
// Every message at the account's sending rate, shared by all runs at once through the ledger.
const mailer = pacedSesMailer(tracer, ledger, logger, config.MAIL_CONFIGURATION_SET);
const events = new EventBridgePublisher({
  busName: config.EVENT_BUS_NAME,
  client: tracer.captureAWSv3Client(createEventBridgeClient()),
});

// Reports too big for one function run as a Step Functions fan-out (docs/deploy.md, "Past one Lambda").
const fanOut = config.FAN_OUT_STATE_MACHINE_ARN
  ? { starter: new StepFunctionsFanOutStarter(config.FAN_OUT_STATE_MACHINE_ARN, tracer.captureAWSv3Client(createSfnClient())), rows: config.FAN_OUT_ROWS }
  : undefined;

/**
 * The job's context for one invocation: its export deadline is this invocation's remaining time.
 */
function jobContext(remainingMs: number): JobContext {
  return {
    clock: systemClock,
    log: logger,
    ids: RANDOM_RUN_IDS,
    ...RUN_DEFAULTS,
    storage,
    ledger,
    settings: jobExportSettings(config, systemClock().getTime(), remainingMs),
    planning: {
      credentials,
      onRequest: (e) => {
        metrics.addMetric(METRIC.ApiRequests, MetricUnit.Count, 1);
        if (e.retried) metrics.addMetric(METRIC.ApiRetries, MetricUnit.Count, 1);
      },
    },
    definitions,
    inline,
    jobs,
    events,
    bucket: config.REPORTS_BUCKET,
    sender: config.MAIL_FROM,
    mail: mailer,
    links: { baseUrl: config.LINK_BASE_URL, keys: () => linkKeys.getKeys() },
    channels: { webhooks },
    fanOut,
    // A retry that lands while a killed attempt's lease is lapsing waits for it instead of being skipped.
    leaseWait: timerWait,
    onComplete: (result, durationMs) => {
      const rows = Object.values(result.manifest.summary.rows).reduce((a, b) => a + b, 0);
      metrics.addMetric(METRIC.ExportedRows, MetricUnit.Count, rows);
      metrics.addMetric(METRIC.ExportDuration, MetricUnit.Milliseconds, durationMs);
    },
  };
}

/** One export job, its outcome counted; a retryable failure is thrown for the door's retry. */
async function exportJob(request: ExportJobRequest, remainingMs: number, known?: RunAttempt): Promise<JobOutcome> {
  logger.appendKeys({ report: request.report, exportId: request.exportId, source: request.source ?? 'manual' });
  let outcome: JobOutcome;
  // The queue door knows its attempt (the receive count); Lambda's asynchronous invocation says nothing
  // of its retries, so the ledger counts them: only the last attempt tells the owners of a retryable failure.
  const attempt = known ?? (await countAttempt(request, { ledger, clock: systemClock }, LAMBDA_ASYNC_ATTEMPTS));
  try {
    outcome = await runJob(request, { ...jobContext(remainingMs), attempt });
  } catch (error) {
    // An alarm counts a failed run once: a retryable failure another attempt follows is a retry, not a failure yet.
    const retried = error instanceof RetryableExportError && !attempt.last;
    metrics.addMetric(retried ? METRIC.ExportRetried : METRIC.ExportFailed, MetricUnit.Count, 1);
    throw error;
  }
  const metric = { succeeded: METRIC.ExportSucceeded, failed: METRIC.ExportFailed, skipped: METRIC.ExportSkipped }[outcome.status];
  metrics.addMetric(metric, MetricUnit.Count, 1);
  return outcome;
}

/**
 * A scheduled run's message from the scheduled-runs queue (a batch item failure when it is to be tried
 * again), the API's asynchronous invocation → one export job (or, for a report too big for one function,
 * the start of its fan-out); a step of a fan-out's state machine → that step.
 */
export const handler = withLifecycle({ logger, metrics, tracer }, async (event: unknown, context): Promise<unknown> => {
  if (isFanOutStep(event)) {
    const step = fanOutStepSchema.parse(event);
    logger.appendKeys({ fanOut: step.fanOut, report: step.fanOut === 'plan' ? step.report : step.request.report });
    return runFanOutStep(step, jobContext(context.getRemainingTimeInMillis()));
  }
  if (isQueuedRuns(event)) {
    const run = (request: ExportJobRequest, attempt: RunAttempt) => {
      logger.appendKeys({ receiveCount: attempt.number });
      return exportJob(request, context.getRemainingTimeInMillis(), attempt);
    };
    return runQueuedJobs(queuedRunsSchema.parse(event), run, logger);
  }
  return exportJob(exportJobRequestSchema.parse(event), context.getRemainingTimeInMillis());
});
