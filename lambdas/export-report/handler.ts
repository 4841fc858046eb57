import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { Tracer } from '@aws-lambda-powertools/tracer';
import { SESv2Client } from '@aws-sdk/client-sesv2';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { Context } from 'aws-lambda';
import * as z from 'zod';
import { createS3Client } from '../../shared/aws-clients';
import { loadExportLambdaConfig } from '../../shared/config';
import { EventBridgePublisher } from '../../shared/delivery/event-bridge';
import { SesMailer } from '../../shared/delivery/email';
import { S3Storage } from '../../shared/delivery/s3-storage';
import { runExportJob, type ExportJobOutcome } from '../../shared/jobs/export-job';
import { JobStatusStore } from '../../shared/jobs/job-status';
import { parseConfiguredDefinitions } from '../../shared/jobs/resolve-definition';
import { createLogger } from '../../shared/logger';
import { SecretsManagerCredentialsSource, SecretsManagerLinkKeySource } from '../../shared/secrets/secret-source';

// Built once per container and reused by every invocation it serves.
const config = loadExportLambdaConfig(process.env);
const logger = createLogger();
const metrics = new Metrics({ namespace: 'PlanningReportExporter', serviceName: 'planning-report-exporter' });
const tracer = new Tracer({ serviceName: 'planning-report-exporter' });
const secretsClient = tracer.captureAWSv3Client(new SecretsManagerClient({}));
const storage = new S3Storage({
  client: tracer.captureAWSv3Client(createS3Client(config.AWS_ENDPOINT_URL_S3)),
  bucket: config.REPORTS_BUCKET,
  prefix: config.REPORTS_PREFIX,
  // Matches the stack's bucket (S3-managed keys); explicit so every object says how it is encrypted.
  serverSideEncryption: 'AES256',
});
const definitions = parseConfiguredDefinitions(config.REPORT_DEFINITIONS);
const credentials = new SecretsManagerCredentialsSource({
  secretId: config.PLANNING_SECRET_ID,
  client: secretsClient,
  maxAgeSeconds: config.SECRET_MAX_AGE_SECONDS,
});
const linkKeys = new SecretsManagerLinkKeySource({ secretId: config.LINK_KEY_SECRET_ID, client: secretsClient });
const mailer = new SesMailer({ client: tracer.captureAWSv3Client(new SESv2Client({})) });
const events = new EventBridgePublisher({
  busName: config.EVENT_BUS_NAME,
  client: tracer.captureAWSv3Client(new EventBridgeClient({})),
});

/** The schedule's payload and the API's asynchronous invocation share this shape. */
const jobRequestSchema = z.looseObject({
  report: z.string().optional(),
  definition: z.unknown().optional(),
  overrides: z.record(z.string(), z.unknown()).optional(),
  source: z.enum(['schedule', 'api', 'manual']).optional(),
  exportId: z.string().optional(),
  scheduledTime: z.string().optional(),
  executionId: z.string().optional(),
});

export const handler = async (event: unknown, context: Context): Promise<ExportJobOutcome> => {
  logger.addContext(context);
  const request = jobRequestSchema.parse(event);
  logger.appendKeys({ report: request.report, exportId: request.exportId, source: request.source ?? 'manual' });
  try {
    const outcome = await runExportJob(request, {
      definitions,
      credentials,
      storage,
      jobs: new JobStatusStore(storage),
      events,
      log: logger,
      bucket: config.REPORTS_BUCKET,
      concurrency: config.API_CONCURRENCY,
      timeoutMs: config.API_TIMEOUT_MS,
      mail: {
        send: (email) => mailer.send(email),
        from: config.MAIL_FROM,
        linkBaseUrl: config.LINK_BASE_URL,
        linkKeys: () => linkKeys.getKeys(),
      },
      onRequest: (e) => {
        metrics.addMetric('ApiRequests', MetricUnit.Count, 1);
        if (e.retried) metrics.addMetric('ApiRetries', MetricUnit.Count, 1);
      },
      onComplete: (result, durationMs) => {
        const rows = Object.values(result.manifest.summary.rows as Record<string, number>).reduce((a, b) => a + b, 0);
        metrics.addMetric('ExportedRows', MetricUnit.Count, rows);
        metrics.addMetric('ExportDuration', MetricUnit.Milliseconds, durationMs);
      },
    });
    metrics.addMetric(outcome.status === 'succeeded' ? 'ExportSucceeded' : 'ExportFailed', MetricUnit.Count, 1);
    return outcome;
  } catch (error) {
    metrics.addMetric('ExportFailed', MetricUnit.Count, 1);
    throw error;
  } finally {
    metrics.publishStoredMetrics();
    logger.resetKeys();
  }
};
