import type { Clock } from '../core/clock';
import { errorMessage } from '../core/errors';
import type { Log } from '../core/logger';
import type { Channel, ChannelMessage } from './channel';
import { channelOf } from './channels';
import type { ChannelTarget, WebhookRef } from './delivery-option';
import { postWebhook, webhookBody, type WebhookPostSettings } from './webhook-post';

/** Reads a webhook URL from where the definition says it is kept (the secrets adapter). */
export interface WebhookUrlSource {
  webhookUrl(ref: WebhookRef): Promise<string>;
}

export interface ChannelResult {
  readonly type: string;
  /** Where the URL is kept, for people fixing it: `secret "x", field "y"`. */
  readonly webhook: string;
  /** `skipped`: an earlier attempt of the same run already posted it (see `once`). */
  readonly status: 'sent' | 'failed' | 'skipped';
  /** Why it failed; never the URL. */
  readonly error?: string;
}

export interface ChannelDeliveryDependencies {
  readonly webhooks: WebhookUrlSource | undefined;
  readonly log: Log;
  readonly post?: WebhookPostSettings;
  /** The run's clock (Retry-After dates, the deadline). */
  readonly clock: Clock;
  /**
   * Runs a post at most once per run and channel (the caller claims it in the run ledger first), so a
   * retried or twice-delivered run does not post again. Without it every call posts.
   */
  readonly once?: (channelKey: string, send: () => Promise<unknown>) => Promise<'sent' | 'skipped'>;
  /**
   * Hands each channel's body (the exact bytes a webhook would get) to this instead of posting it:
   * the outbox of the demo and the command line. No webhook URL is read then.
   */
  readonly write?: ((target: ChannelTarget, body: string) => Promise<unknown>) | undefined;
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
  message: ChannelMessage | ((target: ChannelTarget) => ChannelMessage),
  deps: ChannelDeliveryDependencies,
): Promise<ChannelResult[]> {
  // One message for all, or each channel's own (in its language).
  return postToChannels(targets, (channel, target) => channel.payload(typeof message === 'function' ? message(target) : message), deps);
}

/** Posts what `payloadOf` builds for each channel (the report's message, an alert), each on its own, as deliverToChannels does. */
export async function postToChannels(
  targets: readonly ChannelTarget[],
  payloadOf: (channel: Channel, target: ChannelTarget) => unknown,
  deps: ChannelDeliveryDependencies,
): Promise<ChannelResult[]> {
  return Promise.all(targets.map((target) => deliverOne(target, payloadOf, deps)));
}

async function deliverOne(target: ChannelTarget, payloadOf: (channel: Channel, target: ChannelTarget) => unknown, deps: ChannelDeliveryDependencies): Promise<ChannelResult> {
  const webhook = describeWebhook(target.webhook);
  const channel = channelOf(target.type);
  let url: string | undefined;
  try {
    if (!channel) throw new Error(`there is no channel "${target.type}"`);
    const payload = payloadOf(channel, target);
    const { webhooks, write } = deps;
    if (!write && !webhooks) throw new Error('no webhook secret reader is configured');
    const post = async () => {
      if (write) return write(target, webhookBody(payload));
      url = await webhooks!.webhookUrl(target.webhook);
      return postWebhook(url, payload, channel.label, { ...deps.post, clock: deps.clock });
    };
    const key = `${target.type}:${target.webhook.secretId}:${target.webhook.key}`;
    const outcome = deps.once ? await deps.once(key, post) : (await post(), 'sent' as const);
    deps.log.info(outcome === 'sent' ? 'report message posted' : 'report message already posted for this run', { channel: target.type, webhook });
    return { type: target.type, webhook, status: outcome };
  } catch (error) {
    const reason = withoutUrl(errorMessage(error), url);
    deps.log.error('report message not posted', { channel: target.type, webhook, error: reason });
    return { type: target.type, webhook, status: 'failed', error: reason };
  }
}

/**
 * A second guard: whatever produced the message, the URL does not leave this function, nor any part
 * of it that may be its secret (a path segment or query value that is not a plain word), since a
 * reason travels on to the owners' e-mail, the ledger and the log.
 */
function withoutUrl(text: string, url: string | undefined): string {
  if (!url) return text;
  let out = text.split(url).join('[webhook URL]');
  for (const part of secretParts(url)) out = out.split(part).join('[webhook URL]');
  return out;
}

/** Path segments and query values of 8 characters or more other than plain words (`services`, `triggers`). */
function secretParts(url: string): string[] {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return [];
  }
  const parts = [...parsed.pathname.split('/'), ...[...parsed.searchParams.values()]];
  const decoded = parts.flatMap((p) => {
    try {
      return [p, decodeURIComponent(p)];
    } catch {
      return [p];
    }
  });
  // Longest first, so a part inside a longer one does not leave the rest of the longer one behind.
  return [...new Set(decoded.filter((p) => p.length >= 8 && !/^[A-Za-z]+$/.test(p)))].sort((a, b) => b.length - a.length);
}
