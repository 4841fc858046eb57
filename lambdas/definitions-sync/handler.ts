import { loadSyncLambdaConfig } from '../../shared/core/config';
import { METRIC } from '../../shared/core/names';
import { createSchedulerClient, EventBridgeReportScheduler } from '../../shared/definitions/scheduler-client';
import { syncReportSchedules, type SyncResult } from '../../shared/definitions/schedule-sync';
import { reportsOfSyncEvent, syncEventSchema } from '../../shared/definitions/sync-event';
import { definitionStore, s3Client } from '../adapters';
import { createPowertools, withLifecycle } from '../lifecycle';
import { outcomeMetrics, type OutcomeCount } from '../middleware/outcome-metrics';
import { parseEvent } from '../middleware/parse-event';

// Built once per container and reused by every invocation it serves.
const config = loadSyncLambdaConfig(process.env);
const { logger, metrics, tracer } = createPowertools();
const store = definitionStore(s3Client(config, tracer), config);
const scheduler = new EventBridgeReportScheduler(
  {
    groupName: config.SCHEDULE_GROUP,
    targetArn: config.SCHEDULE_TARGET_ARN,
    roleArn: config.SCHEDULER_ROLE_ARN,
    deadLetterArn: config.SCHEDULER_DEAD_LETTER_ARN,
  },
  tracer.captureAWSv3Client(createSchedulerClient(config.AWS_ENDPOINT_URL_SCHEDULER)),
);

/** A change under definitions/ (or a manual `{ "reports": [...] }`) → that report's schedule. */
export const handler = withLifecycle(
  { logger, metrics, tracer },
  (event): Promise<SyncResult[]> => syncReportSchedules(reportsOfSyncEvent(event), { store, scheduler, log: logger }),
  [parseEvent(syncEventSchema), outcomeMetrics(metrics, invalidDefinitions)],
);

/** Stored reports that could not be synced, for the alarm on invalid definitions. */
function invalidDefinitions(results: readonly SyncResult[]): readonly OutcomeCount[] {
  const invalid = results.filter((r) => r.action === 'invalid').length;
  return invalid > 0 ? [[METRIC.DefinitionInvalid, invalid]] : [];
}
