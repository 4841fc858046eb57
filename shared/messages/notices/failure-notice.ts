import { PLATFORM_ERRORS } from './platform-errors';
import { escapeHtml } from '../../email/email-content';
import type { OutgoingEmail } from '../../email/ses-mailer';
import { recipientAddress } from '../../email/email-address';
import { errorMeaningNamed, errorMessage } from '../../core/errors';
import type { ReportDefinition } from '../../report/definition/definition';
import { ledgerKey } from '../../ledger/ledger';
import { applyNotice, notificationRecord, streakMove, type NoticeRule, type NotificationState, type OwnerNoticePorts, type StreakMove } from './owner-notice';

/**
 * Failure notifications of scheduled reports: the owners (`email.onFailure`, default the
 * recipients) get ONE e-mail when a report starts failing, however many retries and days the
 * streak lasts, and one more when it works again.
 *
 * The streak lives in the run ledger (`notify/<report>`), because Lambda invocations share nothing
 * else. It is a rule of the owners' notice engine (owner-notice.ts): one compare-and-swap per move,
 * so of the attempts that read a state only one tells, and a send that fails leaves the streak
 * where it was, so the next run tells again. Chat channels keep their streaks the same way
 * (channel-notice.ts).
 */

export function notificationStateKey(report: string): string {
  return ledgerKey('notify', report);
}

export interface FailureFacts {
  readonly runId: string;
  readonly reason: string;
  readonly errorType: string;
  readonly retryable: boolean;
}

export type NoticeOutcome = 'sent' | 'no-owners' | 'unchanged' | 'lost-race';

/** Who is told: `email.onFailure`, else the recipients; nobody for a report without e-mail. */
export function ownersOf(definition: ReportDefinition): readonly string[] {
  return definition.email?.onFailure ?? definition.email?.to.map(recipientAddress) ?? [];
}

/** A scheduled run failed: tells the owners unless this failure streak was already announced. */
export function noticeFailure(definition: ReportDefinition, failure: FailureFacts, deps: OwnerNoticePorts): Promise<NoticeOutcome> {
  return tellStreak(definition, { status: 'failing', runId: failure.runId, reason: failure.reason, failure }, deps);
}

/** A scheduled run succeeded: tells the owners that the report works again, if it was failing. */
export function noticeRecovery(definition: ReportDefinition, runId: string, deps: OwnerNoticePorts): Promise<NoticeOutcome> {
  return tellStreak(definition, { status: 'ok', runId }, deps);
}

/** A run's end as the report's streak sees it: the move (owner-notice.ts), and what failed. */
interface StreakEvent extends StreakMove {
  readonly failure?: FailureFacts;
}

async function tellStreak(definition: ReportDefinition, event: StreakEvent, deps: OwnerNoticePorts): Promise<NoticeOutcome> {
  const owners = ownersOf(definition);
  if (owners.length === 0) return 'no-owners';
  const send = (email: Omit<OutgoingEmail, 'from' | 'to'>) => deps.mail.send({ ...email, from: deps.sender, to: owners });
  const result = await applyNotice(streakRule(definition, deps), event, send);
  if (result.outcome === 'not-sent') {
    deps.log.error('could not send the failure notification', { report: definition.name, error: errorMessage(result.error) });
    throw result.error;
  }
  if (result.outcome !== 'sent') return result.outcome === 'lost-race' ? 'lost-race' : 'unchanged';
  deps.log.info('failure notification sent', { report: definition.name, status: event.status, owners: owners.length });
  return 'sent';
}

/** The streak of a report: one e-mail when it starts failing, one when it works again. */
function streakRule(definition: ReportDefinition, deps: OwnerNoticePorts): NoticeRule<NotificationState, StreakEvent, Omit<OutgoingEmail, 'from' | 'to'>> {
  const key = notificationStateKey(definition.name);
  return {
    record: notificationRecord(deps.ledger, key, (problem) => deps.log.warn('the notification state is unreadable; treating it as absent', { key, error: problem })),
    transition: (previous, event) => {
      const next = streakMove(previous, event, deps.now);
      if (next === undefined) return undefined;
      // A move to `ok` comes only from a failing state, so a recovery always has one to quote.
      return { next, message: event.failure ? failureEmail(definition, event.failure, deps) : previous && recoveryEmail(definition, previous, event.runId, deps) };
    },
    initial: (event) => ({ status: 'ok', since: deps.now.toISOString(), runId: event.runId, writer: 'restored' }),
  };
}

/**
 * What the owner can do about a failure of this kind: the advice of the error's class (found by
 * the name it went by, errors.ts), else the platform's, else by whether another attempt may pass.
 */
export function adviceFor(failure: Pick<FailureFacts, 'errorType' | 'retryable'>): string {
  const advice = errorMeaningNamed(failure.errorType)?.advice ?? PLATFORM_ERRORS[failure.errorType]?.advice;
  if (advice !== undefined) return advice;
  return failure.retryable
    ? 'This kind of failure often passes by itself: the run is retried and the next scheduled run will try again. If it keeps failing, ask the operators to look at the logs.'
    : 'Ask the operators to look at the logs for this run.';
}

function failureEmail(definition: ReportDefinition, failure: FailureFacts, deps: OwnerNoticePorts): Omit<OutgoingEmail, 'from' | 'to'> {
  const title = definition.title ?? definition.name;
  const lines = [
    `The scheduled report "${title}" failed.`,
    '',
    `Run: ${failure.runId}`,
    `When: ${deps.now.toISOString()}`,
    `What failed: ${failure.reason}`,
    '',
    `What to do: ${adviceFor(failure)}`,
    '',
    'You get this e-mail once per failure streak: not for every retry or every day it keeps failing. Another e-mail follows when the report works again.',
  ];
  return { subject: `Report "${title}" is failing`, ...bodies(lines) };
}

function recoveryEmail(
  definition: ReportDefinition,
  previous: NotificationState,
  runId: string,
  deps: OwnerNoticePorts,
): Omit<OutgoingEmail, 'from' | 'to'> {
  const title = definition.title ?? definition.name;
  const lines = [
    `The scheduled report "${title}" works again.`,
    '',
    `Failing since: ${previous.since} (run ${previous.runId})`,
    `Working again: ${deps.now.toISOString()} (run ${runId})`,
    '',
    'Nothing to do. The recipients got this run\'s report as usual.',
  ];
  return { subject: `Report "${title}" works again`, ...bodies(lines) };
}

function bodies(lines: readonly string[]): { text: string; html: string } {
  const html = lines.map((l) => (l === '' ? '<br>' : `<p style="margin:0 0 4px 0">${escapeHtml(l)}</p>`)).join('\n');
  return { text: `${lines.join('\n')}\n`, html: `<!doctype html><html><body style="font-family:sans-serif">${html}</body></html>` };
}
