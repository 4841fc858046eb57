import type { ChannelTarget } from '../channels/delivery-option';
import { deliverToChannels, type ChannelDeliveryDependencies, type ChannelResult } from '../channels/deliver';
import type { ReportDefinition } from '../report/definition/definition';
import type { ExportResult } from '../report/run/result';
import { messageRunKey, sendOnce } from './message-claim';
import { chatLinks, currentSigningKey } from './message-links';
import { channelPosting, type MessagePorts } from './message-ports';
import { buildChannelMessage } from './report-message';
import { alertTargets, channelTarget } from './alert-delivery';
import { keepOwed, targetNews, type TargetNews } from './alert-owed';
import type { RunNews } from './reader-news';

/** Each channel's result; `covered`: the alert targets whose post opened with the lines crossed. */
export type RunChannelResults = ChannelResult[] & { covered?: string[] };

/**
 * What one run's chat messages are posted with: the report and its run, the job's context,
 * `freshCopyLink`: the buttons offer a fresh copy (not for an inline definition); `news`: the run's
 * alert news, a banner for a channel the alerts go to as well (reader-news.ts); `write`: each
 * channel's body is written instead of posted (the outbox).
 */
export interface RunChannelPosts {
  readonly definition: ReportDefinition;
  readonly result: ExportResult;
  readonly context: MessagePorts;
  readonly freshCopyLink: boolean;
  readonly news: RunNews | undefined;
  readonly write: ChannelDeliveryDependencies['write'];
}

/**
 * Posts the run's message to the definition's chat channels. Never throws: a channel's failure is
 * in its result (each channel's failure streak is the owners' notices step's, job/stages/notice.ts),
 * and the e-mail and the other channels go out regardless.
 */
export async function deliverRunToChannels(posts: RunChannelPosts): Promise<RunChannelResults> {
  const { definition, result, context, freshCopyLink, news, write } = posts;
  const targets = definition.delivery?.channels ?? [];
  if (targets.length === 0) return [];
  const now = context.clock();
  // Without the signing key the message still goes out, without its buttons.
  const signing = await currentSigningKey(context, definition.name, 'link keys unreadable: chat messages go out without buttons');
  const links = signing && chatLinks(definition, result, signing, now, freshCopyLink);
  const told = news ? await toldChannels(definition, targets, context, news) : new Map<string, TargetNews>();
  // Each channel in its own language (`locale`, default the report's); channels of one language share a message.
  const message = (target: ChannelTarget) => {
    const lines = told.get(channelTarget(target));
    const own = lines && news ? { lines: lines.lines, readings: news.readings } : undefined;
    return buildChannelMessage(definition, result, { links, locale: target.locale, news: own });
  };
  const runKey = messageRunKey(definition.name, result.manifest.runId);
  // Each channel claims its post in the run ledger first, as the e-mail does: a retry does not post twice.
  const once = (channel: string, send: () => Promise<unknown>) => sendOnce({ ledger: context.ledger, runKey, channel, log: context.log, now }, send);
  const results: RunChannelResults = await deliverToChannels(targets, message, channelPosting(context, once, write));
  const covered = await coveredChannels(definition, result, targets, results, told, context, now);
  if (covered.length > 0) results.covered = covered;
  return results;
}

/** The lines crossed each of the report's channels that the alerts go to as well is told in its post (those with any). */
async function toldChannels(definition: ReportDefinition, targets: readonly ChannelTarget[], context: MessagePorts, news: RunNews): Promise<Map<string, TargetNews>> {
  const told = new Map<string, TargetNews>();
  for (const target of alertTargets(definition).channels.filter((a) => targets.some((t) => channelTarget(t) === channelTarget(a)))) {
    const lines = await targetNews(context.ledger, definition.name, channelTarget(target), news.news, news.beyond);
    if (lines.lines.length > 0) told.set(channelTarget(target), lines);
  }
  return told;
}

/** The channels whose post of this run carried the banner (its alert owed to them cleared): the alert stage posts them nothing more. */
async function coveredChannels(
  definition: ReportDefinition,
  result: ExportResult,
  targets: readonly ChannelTarget[],
  results: readonly ChannelResult[],
  told: ReadonlyMap<string, TargetNews>,
  context: MessagePorts,
  now: Date,
): Promise<string[]> {
  const covered: string[] = [];
  for (const [i, target] of targets.entries()) {
    const lines = told.get(channelTarget(target));
    if (!lines || results[i]?.status === 'failed') continue;
    covered.push(channelTarget(target));
    if (lines.owed > 0) await keepOwed(context.ledger, definition.name, channelTarget(target), result.manifest.runId, [], now);
  }
  return covered;
}
