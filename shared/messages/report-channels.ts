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
import { alertTargets, channelTarget } from './alert-delivery';
import { keepOwed } from './alert-owed';
import { targetNews, type RunNews, type TargetNews } from './reader-news';

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
  /** The run's clock: read once for the time of the claims and of the links; the webhook poster reads Retry-After dates and the deadline on it. */
  readonly clock: Clock;
  readonly mail: { readonly send: (email: OutgoingEmail) => Promise<unknown>; readonly from: string | undefined } | undefined;
  /** Writes each channel's body instead of posting it (the outbox). */
  readonly write?: ChannelDeliveryDependencies['write'] | undefined;
  /** The run's alert news: a channel the alerts go to as well gets it as its post's banner (reader-news.ts). */
  readonly news?: RunNews | undefined;
}

/** Each channel's result; `covered`: the alert targets whose post opened with the lines crossed. */
export type RunChannelResults = ChannelResult[] & { covered?: string[] };

/**
 * Posts the run's message to the definition's chat channels and keeps each channel's failure
 * streak. Never throws: a channel's failure is in its result, and the e-mail and the other
 * channels go out regardless.
 */
export async function deliverRunToChannels(definition: ReportDefinition, result: ExportResult, context: RunChannelsContext): Promise<RunChannelResults> {
  const targets = definition.delivery?.channels ?? [];
  if (targets.length === 0) return [];
  const now = context.clock();
  let links: { baseUrl: string; key: LinkVerificationKeys['current'] } | undefined;
  try {
    if (context.links) links = { baseUrl: context.links.baseUrl, key: (await context.links.keys()).current };
  } catch (error) {
    // Without the signing key the message still goes out, without its buttons.
    context.log.error('link keys unreadable: chat messages go out without buttons', { report: definition.name, error: errorMessage(error) });
  }
  // Each channel in its own language (`locale`, default the report's); channels of one language share a message.
  const told = new Map<string, TargetNews>();
  const news = context.news;
  if (news) {
    for (const target of alertTargets(definition).channels.filter((a) => targets.some((t) => channelTarget(t) === channelTarget(a)))) {
      const lines = await targetNews(context.ledger, definition.name, channelTarget(target), news);
      if (lines.lines.length > 0) told.set(channelTarget(target), lines);
    }
  }
  const message = (target: ChannelTarget) => {
    const lines = told.get(channelTarget(target));
    const own = lines && news ? { lines: lines.lines, readings: news.readings } : undefined;
    return buildChannelMessage(definition, result, { links, now, freshCopyLink: context.freshCopyLink, locale: target.locale, news: own });
  };
  const post = { ...context.channels?.post, ...(context.deadline !== undefined && { deadline: context.deadline }) };
  const runKey = messageRunKey(definition.name, result.manifest.runId);
  // Each channel claims its post in the run ledger first, as the e-mail does: a retry does not post twice.
  const once = (channel: string, send: () => Promise<unknown>) =>
    sendOnce({ ledger: context.ledger, runKey, channel, log: context.log, now }, send);
  const results: RunChannelResults = await deliverToChannels(targets, message, { webhooks: context.channels?.webhooks, log: context.log, clock: context.clock, post, once, write: context.write });
  const noticeDeps = { ledger: context.ledger, send: context.mail?.send, from: context.mail?.from, log: context.log, now };
  await Promise.all(
    results.filter((r) => r.status !== 'skipped').map((r) =>
      noticeChannel(definition, r, result.manifest.runId, noticeDeps).catch((error: unknown) => {
        context.log.error('channel streak not recorded', { report: definition.name, channel: r.type, error: errorMessage(error) });
      }),
    ),
  );
  const covered = await coveredChannels(definition, targets, results, told, { ledger: context.ledger, runId: result.manifest.runId, now });
  if (covered.length > 0) results.covered = covered;
  return results;
}

/** The channels whose post of this run carried the banner (its alert owed to them cleared): the alert stage posts them nothing more. */
async function coveredChannels(
  definition: ReportDefinition,
  targets: readonly ChannelTarget[],
  results: readonly ChannelResult[],
  told: ReadonlyMap<string, TargetNews>,
  context: { readonly ledger: Ledger; readonly runId: string; readonly now: Date },
): Promise<string[]> {
  const covered: string[] = [];
  for (const [i, target] of targets.entries()) {
    const lines = told.get(channelTarget(target));
    if (!lines || results[i]?.status === 'failed') continue;
    covered.push(channelTarget(target));
    if (lines.owed > 0) await keepOwed(context.ledger, definition.name, channelTarget(target), context.runId, [], context.now);
  }
  return covered;
}
