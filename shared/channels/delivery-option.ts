import * as z from 'zod';
import { CHANNELS } from './channels';
import { localeTagSchema } from '../core/locale-schema';

/**
 * `delivery` of a report definition: when the run's message goes out at all, and to which chat
 * channels beside e-mail. A channel names where its incoming-webhook URL is kept (a Secrets
 * Manager secret and a field of its JSON), never the URL: the URL lets anyone post into the channel.
 */
export const DELIVERY_WHEN = ['always', 'changed', 'attention', 'alerts-only'] as const;
export type DeliveryWhen = (typeof DELIVERY_WHEN)[number];

const channelTypes = () => CHANNELS.map((c) => c.type);

export const webhookRefSchema = z.strictObject({
  /** Name of the Secrets Manager secret (a JSON object of webhook URLs); the stack grants read on it. */
  secretId: z
    .string()
    .regex(/^[A-Za-z0-9/_+=.@-]{1,512}$/, 'must be a Secrets Manager secret name (letters, digits and /_+=.@-), not a URL or an ARN'),
  /** The field of that JSON object that holds this channel's URL. */
  key: z.string().trim().min(1, 'name the field of the secret that holds the webhook URL').max(128),
});
export type WebhookRef = z.infer<typeof webhookRefSchema>;

export const channelTargetSchema = z.strictObject({
  type: z.string().refine((t) => channelTypes().includes(t), { error: () => `must be one of ${channelTypes().join(', ')}` }),
  webhook: webhookRefSchema,
  /** The language this channel's messages are written in (default: the report's `locale`). */
  locale: localeTagSchema(200, "for the report's locale").optional(),
});
export type ChannelTarget = z.infer<typeof channelTargetSchema>;

export const deliveryOptionSchema = z.strictObject({
  /**
   * "always"; "changed": only when the comparison with the earlier run found changes (or there was
   * none to compare with); "attention": only when "Needs attention" lists something. The export
   * always runs and is kept either way. "alerts-only": never the report's message, only the alerts
   * (`alerts`), for a report scheduled daily between the weekly ones.
   */
  when: z.enum(DELIVERY_WHEN, { error: () => `must be one of ${DELIVERY_WHEN.join(', ')}` }).default('always'),
  channels: z
    .array(channelTargetSchema)
    .max(10, 'at most 10 channels per report')
    .refine((list) => new Set(list.map((c) => `${c.type} ${c.webhook.secretId} ${c.webhook.key}`)).size === list.length, 'list each channel once')
    .default([]),
});
export type DeliveryOption = z.infer<typeof deliveryOptionSchema>;
