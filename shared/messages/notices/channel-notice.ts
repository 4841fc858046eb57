import type { ChannelResult } from '../../channels/deliver';
import { channelOf } from '../../channels/channels';
import { errorMessage } from '../../core/errors';
import { escapeHtml } from '../../email/email-content';
import { ledgerKey } from '../../ledger/ledger';
import type { ReportDefinition } from '../../report/definition/definition';
import { ownersOf } from './failure-notice';
import { applyNotice, notificationRecord, streakMove, type NoticeRule, type NotificationState, type OwnerNoticePorts } from './owner-notice';

/**
 * A chat channel that stops taking the report is told once per failure streak, like a failing
 * report (failure-notice.ts): the owners get one e-mail when it starts failing and one when it
 * works again, however many runs fail in between. Without a mail sender or owners the log says it,
 * also once. The streak lives in the ledger per report and webhook; it is a rule of the owners'
 * notice engine (owner-notice.ts): one compare-and-swap decides which attempt tells, and an e-mail
 * that could not be sent leaves the streak where it was, so the next run tells the owners.
 */
export type ChannelNoticePorts = Omit<OwnerNoticePorts, 'mail' | 'sender'> & {
  readonly mail: OwnerNoticePorts['mail'] | undefined;
  readonly sender: string | undefined;
};

/** `failed`: the owners could not be told; the streak stays where it was, so the next run tells them. */
export type ChannelNoticeOutcome = 'told' | 'unchanged' | 'lost-race' | 'failed';

/** What a channel carries: the report's message, or its alerts (a streak of its own: one may fail while the other posts). */
export type ChannelPost = 'message' | 'alert';

export function channelNoticeKey(report: string, result: Pick<ChannelResult, 'type' | 'webhook'>, post: ChannelPost = 'message'): string {
  return ledgerKey('notify', report, `channel ${result.type} ${result.webhook}${post === 'alert' ? ' alert' : ''}`);
}

export async function noticeChannel(
  definition: ReportDefinition,
  result: ChannelResult,
  runId: string,
  deps: ChannelNoticePorts,
  post: ChannelPost = 'message',
): Promise<ChannelNoticeOutcome> {
  const outcome = await applyNotice(channelRule(definition, result, runId, deps, post), result, (notice) => tell(definition, result, notice, deps));
  if (outcome.outcome === 'not-sent') {
    deps.log.error('could not tell the owners about the channel', { report: definition.name, channel: result.type, error: errorMessage(outcome.error) });
    return 'failed';
  }
  return outcome.outcome === 'sent' || outcome.outcome === 'recorded' ? 'told' : outcome.outcome;
}

/** What the owners are told of a channel: its subject, its lines and which way the streak moved. */
interface ChannelNotice {
  readonly subject: string;
  readonly lines: readonly string[];
  readonly failing: boolean;
}

/** The channel's streak: one notice when it starts failing, one when it works again. */
function channelRule(definition: ReportDefinition, result: ChannelResult, runId: string, deps: ChannelNoticePorts, post: ChannelPost): NoticeRule<NotificationState, ChannelResult, ChannelNotice> {
  return {
    record: notificationRecord(deps.ledger, channelNoticeKey(definition.name, result, post), 'absent'),
    transition: (previous, event) => {
      const next = streakMove(previous, { status: event.status === 'failed' ? 'failing' : 'ok', runId, reason: event.error }, deps.now);
      return next && { next, message: channelNotice(definition, event, previous, post) };
    },
    initial: () => ({ status: 'ok', since: deps.now.toISOString(), runId, writer: 'restored' }),
  };
}

function channelNotice(definition: ReportDefinition, result: ChannelResult, previous: NotificationState | undefined, post: ChannelPost): ChannelNotice {
  const title = definition.title ?? definition.name;
  const channel = channelOf(result.type)?.label ?? result.type;
  // An alert channel's notice says so; what could not be posted is owed to the channel by the next run.
  const label = post === 'alert' ? `${channel} alert` : channel;
  const failing = result.status === 'failed';
  const lines = failing
    ? [
        `The ${label} message of the report "${title}" could not be posted.`,
        '',
        `What failed: ${result.error ?? 'unknown'}`,
        `Webhook: ${result.webhook}`,
        '',
        `What to do: check that the channel still exists and that the webhook URL in ${result.webhook} is current (replace it with put-secret-value if it was removed). The export itself was kept and the other channels were served.${post === 'alert' ? ' Each run posts the alert again until it goes out or the figure is back on its side of the line.' : ''}`,
        '',
        'You get this e-mail once per failure streak; another follows when the channel works again.',
      ]
    : [`The ${label} message of the report "${title}" is posted again.`, '', `Failing since: ${previous?.since ?? 'unknown'}`, 'Nothing to do.'];
  const subject = failing ? `Report "${title}": ${label} delivery is failing` : `Report "${title}": ${label} delivery works again`;
  return { subject, lines, failing };
}

/** E-mails the notice to the owners; without a mail sender or owners the log says it instead (also once). */
async function tell(definition: ReportDefinition, result: ChannelResult, notice: ChannelNotice, deps: ChannelNoticePorts): Promise<void> {
  const { subject, lines, failing } = notice;
  const owners = ownersOf(definition);
  const { mail, sender } = deps;
  if (!mail || !sender || owners.length === 0) {
    const log = failing ? deps.log.error.bind(deps.log) : deps.log.info.bind(deps.log);
    log(`${subject} (nobody to e-mail: no owners or no mail sender)`, { report: definition.name, channel: result.type, webhook: result.webhook });
    return;
  }
  await mail.send({ from: sender, to: owners, subject, text: `${lines.join('\n')}\n`, html: htmlOf(lines) });
  deps.log.info('channel notice sent', { report: definition.name, channel: result.type, status: failing ? 'failing' : 'ok' });
}

function htmlOf(lines: readonly string[]): string {
  const body = lines.map((l) => (l === '' ? '<br>' : `<p style="margin:0 0 4px 0">${escapeHtml(l)}</p>`)).join('\n');
  return `<!doctype html><html><body style="font-family:sans-serif">${body}</body></html>`;
}
