import { S3EventNotificationEventBridgeSchema } from '@aws-lambda-powertools/parser/schemas';
import * as z from 'zod';
import { reportNameOfKey } from './stored-definition';

/**
 * What wakes the definitions-sync function: S3's EventBridge event for an object created or
 * deleted under `definitions/` of the definitions bucket (Powertools' schema of that event,
 * narrowed to the two kinds the stack's rule sends), or `{ "reports": [...] }` to re-sync named
 * reports by hand (`aws lambda invoke`), e.g. after a schedule was edited in the console.
 */
const s3Detail = S3EventNotificationEventBridgeSchema.shape.detail;
const s3ObjectEvent = S3EventNotificationEventBridgeSchema.extend({
  source: z.literal('aws.s3'),
  'detail-type': z.enum(['Object Created', 'Object Deleted']),
  // Powertools takes an IPv4 address only; a client on S3's dual-stack endpoints has an IPv6 one.
  detail: s3Detail.extend({ 'source-ip-address': z.string().optional() }),
});
const manualEvent = z.strictObject({ reports: z.array(z.string()).min(1) });

export const syncEventSchema = z.union([s3ObjectEvent, manualEvent]);

/**
 * The reports an event is about. S3 keys in events are URL-encoded (a space is `+`); other keys
 * under the prefix (not `<name>.json`) name no report and are ignored.
 */
export function reportsOfSyncEvent(event: z.infer<typeof syncEventSchema>): string[] {
  if (!('source' in event)) return event.reports;
  const key = decodeURIComponent(event.detail.object.key.replace(/\+/g, ' '));
  const name = reportNameOfKey(key);
  return name === undefined ? [] : [name];
}
