import type { ChannelTarget } from '../channels/delivery-option';
import { deliverToChannels, type ChannelDeliveryDependencies, type ChannelResult, type WebhookUrlSource } from '../channels/deliver';
import type { WebhookPostSettings } from '../channels/webhook-post';
import type { Clock } from '../core/clock';
import { errorMessage } from '../core/errors';
import type { Log } from '../core/logger';
import type { OutgoingEmail } from '../email/ses-mailer';
import type { Ledger } from '../ledger/ledger';
import type { LinkVerificationKeys } from '../links/link-token';
import type { ReportDefinition } from '../report/definition/definition';
import type { ExportResult } from '../report/run/result';
import { noticeChannel } from './notices/channel-notice';
import { messageRunKey, sendOnce } from './message-claim';
import { buildChannelMessage } from './report-message';

/** What the export job needs for chat channels: the webhook reader, and the poster's settings (tests). */
export interface ChannelJobDependencies {
  readonly webhooks: WebhookUrlSource;
  readonly post?: WebhookPostSettings;
}

export interface RunChannelsContext {
  readonly channels: ChannelJobDependencies | undefined;
  readonly links: { readonly baseUrl: string; readonly keys: () => Promise<LinkVerificationKeys> } | undefined;
  readonly freshCopyLink: boolean;
  /** The job's deadline (epoch ms): webhook retries stop there. */
  readonly deadline: number | undefined;
  readonly ledger: Ledger;
  readonly log: Log;
  readonly now: Date;
  /** The run's clock: the webhook poster reads Retry-After dates and the deadline on it. */
  readonly clock: Clock;
  readonly mail: { readonly send: (email: OutgoingEmail) => Promise<unknown>; readonly from: string | undefined } | undefined;
  /** Writes each channel's body instead of posting it (the outbox). */
  readonly write?: ChannelDeliveryDependencies['write'] | undefined;
}

/**
 * Posts the run's message to the definition's chat channels and keeps each channel's failure
 * streak. Never throws: a channel's failure is in its result, and the e-mail and the other
 * channels go out regardless.
 */
export async function deliverRunToChannels(definition: ReportDefinition, result: ExportResult, context: RunChannelsContext): Promise<ChannelResult[]> {
  const targets = definition.delivery?.channels ?? [];
  if (targets.length === 0) return [];
  let links: { baseUrl: string; key: LinkVerificationKeys['current'] } | undefined;
  try {
    if (context.links) links = { baseUrl: context.links.baseUrl, key: (await context.links.keys()).current };
  } catch (error) {
    // Without the signing key the message still goes out, without its buttons.
    context.log.error('link keys unreadable: chat messages go out without buttons', { report: definition.name, error: errorMessage(error) });
  }
  // Each channel in its own language (`locale`, default the report's); channels of one language share a message.
  const messages = new Map<string | undefined, ReturnType<typeof buildChannelMessage>>();
  const message = (target: ChannelTarget) => {
    const built = messages.get(target.locale) ?? buildChannelMessage(definition, result, { links, now: context.now, freshCopyLink: context.freshCopyLink, locale: target.locale });
    messages.set(target.locale, built);
    return built;
  };
  const post = { ...context.channels?.post, ...(context.deadline !== undefined && { deadline: context.deadline }) };
  const runKey = messageRunKey(definition.name, result.manifest.runId);
  // Each channel claims its post in the run ledger first, as the e-mail does: a retry does not post twice.
  const once = (channel: string, send: () => Promise<unknown>) =>
    sendOnce({ ledger: context.ledger, runKey, channel, log: context.log, now: context.now }, send);
  const results = await deliverToChannels(targets, message, { webhooks: context.channels?.webhooks, log: context.log, clock: context.clock, post, once, write: context.write });
  const noticeDeps = { ledger: context.ledger, send: context.mail?.send, from: context.mail?.from, log: context.log, now: context.now };
  await Promise.all(
    results.filter((r) => r.status !== 'skipped').map((r) =>
      noticeChannel(definition, r, result.manifest.runId, noticeDeps).catch((error: unknown) => {
        context.log.error('channel streak not recorded', { report: definition.name, channel: r.type, error: errorMessage(error) });
      }),
    ),
  );
  return results;
}
