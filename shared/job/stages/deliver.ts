import type { ChannelResult } from '../../channels/deliver';
import { decideDelivery, NO_READERS, type DeliveryDecision } from '../../report/manifest/delivery-decision';
import { outboxRecorder, type RunRef } from '../../messages/outbox';
import { deliverRunToChannels } from '../../messages/report-channels';
import type { MailedRecipients, RefusedRecipient } from '../../messages/notices/recipient-notice';
import { deliverRunEmail, type EmailOutcome } from '../../messages/report-email-delivery';
import type { DeliveryContext, ExportedJob } from './delivery-ports';
import { isInline } from './resolve';
import type { RunNews } from '../../messages/reader-news';

/** What a door without transports tells its user. */
export const NO_TRANSPORT_HINT = 'npm run export -- --outbox <dir> writes them to files';

/**
 * What the deliver stage hands on: the run's delivery, and who its e-mail went to (none when nobody was
 * e-mailed), which the owners' notices step (notice.ts) reads for the recipients the mail service refused.
 */
export interface DeliveredRun {
  readonly delivery: RunDelivery;
  readonly mailed?: MailedRecipients | undefined;
}

/**
 * The deliver stage of a job (after export, before alert): the run's e-mail and chat messages, each
 * at most once per run (claimed in the ledger first, message-claim.ts), when the decision the run
 * published in its manifest (`delivery`, docs/delivery.md) says they go out. The messages are built
 * by the same functions for every door; only the transport differs: SES and the webhooks in AWS, the
 * outbox (files) for the demo and `npm run export -- --outbox`, so what the demo writes is what a
 * deployed stack sends.
 */
export async function deliverRun(job: ExportedJob, context: DeliveryContext, news?: RunNews): Promise<DeliveredRun> {
  const { definition } = job;
  const decision = publishedDecision(job);
  const nothing = { sent: false, emailed: false, channels: [], written: [] };
  if (!decision.send) return { delivery: { ...nothing, reason: decision.reason } };
  if (!definition.email && (definition.delivery?.channels.length ?? 0) === 0) return { delivery: { ...nothing, reason: NO_READERS } };
  if (!context.outbox && !context.mail && !context.channels) {
    // The command line without --outbox: nothing here could carry a message, which is no failure.
    return { delivery: { ...nothing, reason: `not sent: nothing here sends messages (${NO_TRANSPORT_HINT})` } };
  }
  return sendRunMessages(job, context, decision, news);
}

/** The chat messages, then the e-mail, of a run whose decision says they go out. */
async function sendRunMessages(job: ExportedJob, context: DeliveryContext, decision: DeliveryDecision, news: RunNews | undefined): Promise<DeliveredRun> {
  const { definition, result } = job;
  const run: RunRef = { report: definition.name, runId: result.manifest.runId, runFolder: result.runFolder };
  const outbox = context.outbox && outboxRecorder(context.outbox, run, 'report');
  // The e-mail's moment (its claims, links and Date header): the clock read as the stage starts, before the channels post.
  const now = context.clock();
  const write = outbox?.channelWriter(definition.delivery?.channels ?? []);
  const inline = isInline(job.request);
  const channels = await deliverRunToChannels({ definition, result, context, freshCopyLink: !inline, news, write });
  const mailed = await deliverRunEmail({ definition, result, context, now, inline, news, outbox });
  const email = mailed.status;
  const emailed = email === 'sent';
  const sent = emailed || channels.some((c) => c.status !== 'failed');
  const again = email !== 'sent' && channels.every((c) => c.status === 'skipped') && (email === 'skipped' || channels.length > 0);
  const reason = `${again ? `not sent again: an earlier attempt of run ${run.runId} sent its messages` : decision.reason}${unsubscribedNote(mailed.suppressed)}${refusedNote(mailed)}`;
  // The channels post at once; the list is read by people: the e-mail first, then by name.
  const order = (path: string) => (/email\.[a-z]+$/.test(path) ? `0${path}` : `1${path}`);
  const refused = mailed.refused.length > 0 ? { refused: mailed.refused } : {};
  const covered = [...(mailed.covered ?? []), ...(channels.covered ?? [])];
  const written = [...(outbox?.written ?? [])].sort((a, b) => order(a).localeCompare(order(b)));
  const delivery = { sent, reason, emailed, channels, ...refused, ...(covered.length > 0 && { covered }), written };
  return { delivery, ...(email !== 'none' && { mailed: { recipients: mailed.recipients, mailed: mailed.mailed, refused: mailed.refused } }) };
}

/** Whether the run's message went out and why (the decision's `reason`, or what happened instead). */
export interface RunDelivery extends Pick<DeliveryDecision, 'reason'> {
  /** Anything went out on this attempt: the e-mail (`emailed`) or a chat channel (`channels`). */
  readonly sent: boolean;
  readonly emailed: boolean;
  readonly channels: readonly ChannelResult[];
  /** Recipients the mail service refused (the others were mailed); absent when none was. */
  readonly refused?: readonly RefusedRecipient[];
  /** Where the outbox put the messages (empty when they were sent). */
  readonly written: readonly string[];
  /** Alert targets whose message of this run opened with the lines crossed (reader-news.ts): the alert stage sends them nothing more. */
  readonly covered?: readonly string[];
}

/** Said after the reason when some recipients asked not to be e-mailed this report (or bounced). */
function unsubscribedNote(suppressed: number): string {
  return suppressed === 0 ? '' : ` (${suppressed} ${suppressed === 1 ? 'recipient is' : 'recipients are'} not e-mailed: unsubscribed or bounced)`;
}

/** Said after the reason when the mail service refused some recipients: how many got it, and who did not. */
function refusedNote(mailed: EmailOutcome): string {
  if (mailed.refused.length === 0) return '';
  const who = mailed.refused.map((r) => `${r.address} (${r.reason})`).join(', ');
  return `; e-mail sent to ${mailed.mailed} of ${mailed.recipients} recipients; refused: ${who}`;
}

/**
 * The decision the run published in its manifest; a manifest from before decisions were kept (a
 * rerun of an old run) is decided now, by the same rule.
 */
function publishedDecision(job: ExportedJob): DeliveryDecision {
  const kept = job.result.manifest.delivery;
  return kept ? { ...kept, when: kept.when as DeliveryDecision['when'] } : decideDelivery(job.definition, job.result);
}
