import { systemClock } from '../../shared/core/clock';
import { loadMailEventsLambdaConfig } from '../../shared/core/config';
import { handleMailEvent, sesEventBridgeSchema } from '../../shared/messages/recipients/mail-events';
import { definitionStore, s3Client, sesMailer, tableLedger } from '../adapters';
import { createPowertools, withLifecycle } from '../lifecycle';
import { parseEvent } from '../middleware/parse-event';

// Built once per container and reused by every invocation it serves.
const config = loadMailEventsLambdaConfig(process.env);
const { logger, metrics, tracer } = createPowertools();
// Suppressions are the stack's (not scoped to a storage root), as the export function reads them.
const ledger = tableLedger(config, tracer);
const definitions = definitionStore(s3Client(config, tracer), config);
const mailer = sesMailer(tracer);

/** An SES bounce or complaint event (EventBridge) → the recipient suppressed for its report, the owners told once. */
export const handler = withLifecycle(
  { logger, metrics, tracer },
  (event) => handleMailEvent(event, { ledger, definitions, send: (email) => mailer.send(email), from: config.MAIL_FROM, log: logger, now: systemClock() }),
  [parseEvent(sesEventBridgeSchema)],
);
