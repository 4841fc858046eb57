import { systemClock } from '../../shared/core/clock';
import { loadMailEventsLambdaConfig } from '../../shared/core/config';
import { DefinitionStore } from '../../shared/definitions/definition-store';
import { createSesClient, SesMailer } from '../../shared/email/ses-mailer';
import { handleMailEvent, sesEventBridgeSchema } from '../../shared/messages/recipients/mail-events';
import { createDynamoDbClient, DynamoDbLedger } from '../../shared/ledger/dynamodb-ledger';
import { createS3Client } from '../../shared/storage/s3-client';
import { S3Storage } from '../../shared/storage/s3-storage';
import { createPowertools, withLifecycle } from '../lifecycle';
import { parseEvent } from '../middleware/parse-event';

// Built once per container and reused by every invocation it serves.
const config = loadMailEventsLambdaConfig(process.env);
const { logger, metrics, tracer } = createPowertools();
// Suppressions are the stack's (not scoped to a storage root), as the export function reads them.
const ledger = new DynamoDbLedger({ tableName: config.LEDGER_TABLE, client: tracer.captureAWSv3Client(createDynamoDbClient()) });
const definitions = new DefinitionStore(
  new S3Storage({ client: tracer.captureAWSv3Client(createS3Client(config.AWS_ENDPOINT_URL_S3)), bucket: config.DEFINITIONS_BUCKET, prefix: '' }),
);
const mailer = new SesMailer({ client: tracer.captureAWSv3Client(createSesClient()) });

/** An SES bounce or complaint event (EventBridge) → the recipient suppressed for its report, the owners told once. */
export const handler = withLifecycle(
  { logger, metrics, tracer },
  (event) => handleMailEvent(event, { ledger, definitions, send: (email) => mailer.send(email), from: config.MAIL_FROM, log: logger, now: systemClock() }),
  [parseEvent(sesEventBridgeSchema)],
);
