import { errorMessage } from '../core/errors';
import type { Log } from '../core/logger';
import type { ChannelMessage } from './channel';
import { channelOf } from './channels';
import type { ChannelTarget, WebhookRef } from './delivery-option';
import { postWebhook, type WebhookPostOptions } from './webhook-post';

/** Reads a webhook URL from where the definition says it is kept (the secrets adapter). */
export interface WebhookUrlSource {
  webhookUrl(ref: WebhookRef): Promise<string>;
}

export interface ChannelResult {
  readonly type: string;
  /** Where the URL is kept, for people fixing it: `secret "x", field "y"`. */
  readonly webhook: string;
  readonly status: 'sent' | 'failed';
  /** Why it failed; never the URL. */
  readonly error?: string;
}

export interface ChannelDeliveryDependencies {
  readonly webhooks: WebhookUrlSource | undefined;
  readonly log: Log;
  readonly post?: WebhookPostOptions;
}

export function describeWebhook(ref: WebhookRef): string {
  return `secret "${ref.secretId}", field "${ref.key}"`;
}

/**
 * Posts the message to every channel at once. Each channel succeeds or fails on its own: a failure
 * is returned (and logged), never thrown, so one broken webhook cannot stop the others or the e-mail.
 */
export async function deliverToChannels(
  targets: readonly ChannelTarget[],
  message: ChannelMessage,
  deps: ChannelDeliveryDependencies,
): Promise<ChannelResult[]> {
  return Promise.all(targets.map((target) => deliverOne(target, message, deps)));
}

async function deliverOne(target: ChannelTarget, message: ChannelMessage, deps: ChannelDeliveryDependencies): Promise<ChannelResult> {
  const webhook = describeWebhook(target.webhook);
  const channel = channelOf(target.type);
  let url: string | undefined;
  try {
    if (!channel) throw new Error(`there is no channel "${target.type}"`);
    if (!deps.webhooks) throw new Error('no webhook secret reader is configured');
    url = await deps.webhooks.webhookUrl(target.webhook);
    await postWebhook(url, channel.payload(message), channel.label, deps.post);
    deps.log.info('report message posted', { channel: target.type, webhook });
    return { type: target.type, webhook, status: 'sent' };
  } catch (error) {
    const reason = withoutUrl(errorMessage(error), url);
    deps.log.error('report message not posted', { channel: target.type, webhook, error: reason });
    return { type: target.type, webhook, status: 'failed', error: reason };
  }
}

/** A second guard: whatever produced the message, the URL does not leave this function. */
function withoutUrl(text: string, url: string | undefined): string {
  return url ? text.split(url).join('[webhook URL]') : text;
}
