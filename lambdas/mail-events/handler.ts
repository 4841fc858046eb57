import { systemClock } from '../../shared/core/clock';
import { loadMailEventsLambdaConfig } from '../../shared/core/config';
import { timerSleep } from '../../shared/core/retry/retry';
import { BURST_SETTLE_MS, handleMailEvent, sesEventBridgeSchema } from '../../shared/messages/recipients/mail-events';
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

/**
 * The handler, waiting for a burst of events to settle with `settle` before telling the owners once
 * (mail-events.ts): BURST_SETTLE_MS in the Lambda; a test waits on its own events instead.
 */
export function mailEventsHandler(settle: () => Promise<void>) {
  return withLifecycle(
    { logger, metrics, tracer },
    (event) => handleMailEvent(event, { ledger, definitions, mail: mailer, sender: config.MAIL_FROM, log: logger, clock: systemClock, settle }),
    [parseEvent(sesEventBridgeSchema)],
  );
}

/** An SES bounce or complaint event (EventBridge) → the recipient suppressed for its report, the owners told once per burst. */
export const handler = mailEventsHandler(() => timerSleep(BURST_SETTLE_MS));
