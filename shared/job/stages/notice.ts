import type { ChannelResult } from '../../channels/deliver';
import { errorMessage } from '../../core/errors';
import type { ReportDefinition } from '../../report/definition/definition';
import type { RunContext } from '../../report/run/context';
import { noticeChannel, type ChannelNoticePorts, type ChannelPost } from '../../messages/notices/channel-notice';
import { noticeFailure, noticeRecovery, ownersOf, type FailureFacts } from '../../messages/notices/failure-notice';
import { noticeFieldChanges } from '../../messages/notices/field-notice';
import type { OwnerNoticePorts } from '../../messages/notices/owner-notice';
import { noticeRefusedRecipients, type MailedRecipients, type RefusedPost } from '../../messages/notices/recipient-notice';
import { senderOf } from '../../messages/message-ports';
import type { AlertedRun } from './alert';
import type { DeliveredRun } from './deliver';
import type { DeliveryPorts, ExportedJob } from './delivery-ports';
import { isInline, isScheduled } from './resolve';

/**
 * The owners' notices step, last on the run line (and the failure path's notice): the stages before
 * it tell the owners nothing themselves, they hand on what happened (the delivery's and the alert's
 * channel results, who their e-mails went to) and this step tells each notice kind its facts, in the
 * order the owners always got them: the report's chat channels' streaks, its refused recipients, the
 * alert channels' streaks, the alert's refused recipients, then (scheduled runs) the report's
 * failure streak and the fields the API sends beyond the columns. The notice ports are built here
 * once. A notice that fails is logged: it never fails the job.
 */
export type NoticeContext = Pick<RunContext, 'ledger' | 'log' | 'clock'> & Pick<DeliveryPorts, 'mail' | 'sender' | 'outbox'>;

/** A run that went through deliver and alert: what the owners may have to hear of. */
export type NoticedJob = ExportedJob & DeliveredRun & AlertedRun;

export async function noticeOwners(job: NoticedJob, context: NoticeContext): Promise<void> {
  const { definition, request } = job;
  const runId = job.result.manifest.runId;
  const ports = noticePorts(definition, context);
  // The ports of the notices that are e-mailed: none without a mail transport or a sender.
  const emailed = mailing(ports);
  await noticeChannels(definition, runId, job.delivery.channels, ports, 'message');
  // The outbox's messages and an inline definition's recipients are nobody's to be told of.
  if (!context.outbox && !isInline(request)) {
    await noticeRefused(definition, runId, job.mailed, emailed, 'message');
    await noticeChannels(definition, runId, job.alerts.channels, ports, 'alert');
    await noticeRefused(definition, runId, job.alertMailed, emailed, 'alert');
  }
  if (isScheduled(request)) {
    await noticeStreak(definition, { runId }, ports);
    if (emailed) await noticeFieldChanges(definition, job.result.manifest, emailed);
  }
}

/** A scheduled run failed for good: the owners hear it once per streak (failure-notice.ts). */
export function noticeOwnersOfFailure(definition: ReportDefinition, failure: FailureFacts, context: NoticeContext): Promise<void> {
  return noticeStreak(definition, failure, noticePorts(definition, context));
}

/** What every notice is told with, built once: a definition's `email.from` before the configured sender. */
function noticePorts(definition: ReportDefinition, context: NoticeContext): ChannelNoticePorts {
  return { ledger: context.ledger, mail: context.mail, sender: senderOf(definition, context.sender), log: context.log, now: context.clock() };
}

/** The ports of a notice that is e-mailed or not kept at all: none without a mail transport or a sender. */
function mailing(ports: ChannelNoticePorts): OwnerNoticePorts | undefined {
  const { mail, sender } = ports;
  return mail && sender ? { ...ports, mail, sender } : undefined;
}

/** Each posted (or failed) channel's failure streak; the owners hear once per streak (channel-notice.ts). */
async function noticeChannels(definition: ReportDefinition, runId: string, results: readonly ChannelResult[], ports: ChannelNoticePorts, post: ChannelPost): Promise<void> {
  for (const result of results.filter((r) => r.status !== 'skipped')) {
    await noticeChannel(definition, result, runId, ports, post).catch((error: unknown) => {
      const what = post === 'alert' ? 'alert channel streak not recorded' : 'channel streak not recorded';
      ports.log.error(what, { report: definition.name, channel: result.type, error: errorMessage(error) });
    });
  }
}

/** Newly refused recipients of an e-mail that went out (recipient-notice.ts); the set shrinking is kept quietly. */
async function noticeRefused(definition: ReportDefinition, runId: string, mailed: MailedRecipients | undefined, ports: OwnerNoticePorts | undefined, post: RefusedPost): Promise<void> {
  if (mailed && ports) await noticeRefusedRecipients(definition, { runId, ...mailed }, ports, post);
}

/** The report's failure streak: it started failing, or works again (failure-notice.ts). */
async function noticeStreak(definition: ReportDefinition, outcome: { runId: string } | FailureFacts, ports: ChannelNoticePorts): Promise<void> {
  const owners = mailing(ports);
  if (!owners) {
    if (ownersOf(definition).length > 0) ports.log.warn('no mail sender configured: the owners cannot be told', { report: definition.name });
    return;
  }
  try {
    if ('reason' in outcome) await noticeFailure(definition, outcome, owners);
    else await noticeRecovery(definition, outcome.runId, owners);
  } catch (error) {
    ports.log.error('failure notification failed', { report: definition.name, error: errorMessage(error) });
  }
}
