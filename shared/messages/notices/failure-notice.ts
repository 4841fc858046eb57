import { randomBytes } from 'node:crypto';
import * as z from 'zod';
import { escapeHtml } from '../../email/email-content';
import type { OutgoingEmail } from '../../email/ses-mailer';
import { errorMeaningNamed, errorMessage } from '../../core/errors';
import type { Log } from '../../core/logger';
import type { ReportDefinition } from '../../report/definition/definition';
import { ledgerKey, type Ledger } from '../../ledger/ledger';

/**
 * Failure notifications of scheduled reports: the owners (`email.onFailure`, default the
 * recipients) get ONE e-mail when a report starts failing, however many retries and days the
 * streak lasts, and one more when it works again.
 *
 * The streak lives in the run ledger (`notify/<report>`), because Lambda invocations share nothing
 * else. A change of state is one compare-and-swap: every attempt that read the same version races to
 * write the next one, and only the one that succeeds sends. A stale writer (one that read a state
 * another attempt has already moved on from) loses the swap and sends nothing.
 */

export const notificationStateSchema = z.object({
  status: z.enum(['ok', 'failing']),
  /** When the current state began (ISO). */
  since: z.string(),
  runId: z.string(),
  reason: z.string().optional(),
  /** Random token of the attempt that wrote this state: tells a writer whether its write stood. */
  writer: z.string(),
});
export type NotificationState = z.infer<typeof notificationStateSchema>;

export function notificationStateKey(report: string): string {
  return ledgerKey('notify', report);
}

export interface NoticeDependencies {
  readonly ledger: Ledger;
  readonly send: (email: OutgoingEmail) => Promise<unknown>;
  readonly from: string;
  readonly log: Log;
  readonly now: Date;
}

export interface FailureFacts {
  readonly runId: string;
  readonly reason: string;
  readonly errorType: string;
  readonly retryable: boolean;
}

export type NoticeOutcome = 'sent' | 'no-owners' | 'unchanged' | 'lost-race';

const STOPPED_AT_A_LIMIT =
  "The run was stopped at a function's time or memory limit, although it was spread over several functions. If it keeps happening, ask the operators to narrow the report: fewer boards (one report per solution train), or CSV and Parquet without the workbook.";

/** Who is told: `email.onFailure`, else the recipients; nobody for a report without e-mail. */
export function ownersOf(definition: ReportDefinition): readonly string[] {
  return definition.email?.onFailure ?? definition.email?.to ?? [];
}

/** A scheduled run failed: tells the owners unless this failure streak was already announced. */
export function noticeFailure(definition: ReportDefinition, failure: FailureFacts, deps: NoticeDependencies): Promise<NoticeOutcome> {
  return transition(definition, { status: 'failing', runId: failure.runId, reason: failure.reason }, deps, (previous) =>
    previous?.status === 'failing' ? undefined : failureEmail(definition, failure, deps),
  );
}

/** A scheduled run succeeded: tells the owners that the report works again, if it was failing. */
export function noticeRecovery(definition: ReportDefinition, runId: string, deps: NoticeDependencies): Promise<NoticeOutcome> {
  return transition(definition, { status: 'ok', runId }, deps, (previous) =>
    previous?.status === 'failing' ? recoveryEmail(definition, previous, runId, deps) : undefined,
  );
}

async function transition(
  definition: ReportDefinition,
  next: Pick<NotificationState, 'status' | 'runId' | 'reason'>,
  deps: NoticeDependencies,
  emailFor: (previous: NotificationState | undefined) => Omit<OutgoingEmail, 'from' | 'to'> | undefined,
): Promise<NoticeOutcome> {
  const owners = ownersOf(definition);
  if (owners.length === 0) return 'no-owners';
  const key = notificationStateKey(definition.name);
  const read = await readState(deps.ledger, key, deps.log);
  const email = emailFor(read.state);
  // Same state as before (a retry of a failing report, or a report that keeps working): no write.
  if (email === undefined && (read.state?.status ?? 'ok') === next.status) return 'unchanged';

  const state: NotificationState = {
    ...next,
    since: deps.now.toISOString(),
    writer: randomBytes(9).toString('base64url'),
  };
  // One winner per state read: everyone who read the same version races for the next one.
  if (!(await deps.ledger.put(key, state, read.version))) return 'lost-race';
  if (email === undefined) return 'unchanged';
  try {
    await deps.send({ ...email, from: definition.email?.from ?? deps.from, to: owners });
  } catch (error) {
    // Put the previous state back (a working one if there was none), so the next failure tries to
    // tell the owners again. If another attempt moved on meanwhile, its state stands.
    deps.log.error('could not send the failure notification', { report: definition.name, error: errorMessage(error) });
    const previous: NotificationState = read.state ?? { status: 'ok', since: deps.now.toISOString(), runId: next.runId, writer: 'restored' };
    await deps.ledger.put(key, previous, read.version + 1);
    throw error;
  }
  deps.log.info('failure notification sent', { report: definition.name, status: next.status, owners: owners.length });
  return 'sent';
}

/** An unreadable state is treated as absent (and overwritten), with a warning: it only costs one extra e-mail. */
async function readState(ledger: Ledger, key: string, log: Log): Promise<{ version: number; state: NotificationState | undefined }> {
  const entry = await ledger.get(key);
  if (entry === undefined) return { version: 0, state: undefined };
  const parsed = notificationStateSchema.safeParse(entry.value);
  if (!parsed.success) log.warn('the notification state is unreadable; treating it as absent', { key, error: parsed.error.message });
  return { version: entry.version, state: parsed.success ? parsed.data : undefined };
}

/**
 * The advice of the failures of a fan-out's part that Lambda or Step Functions stopped, by the
 * platform's own error names (fan-out/failure.ts); ours carry their advice in their class.
 */
const PLATFORM_ADVICE: Readonly<Record<string, string>> = {
  'States.Timeout': STOPPED_AT_A_LIMIT,
  'Sandbox.Timedout': STOPPED_AT_A_LIMIT,
  'Runtime.OutOfMemory': STOPPED_AT_A_LIMIT,
  'Lambda.Unknown': STOPPED_AT_A_LIMIT,
  'Lambda.TooManyRequestsException':
    'The exporter was busy with other exports for longer than the run could wait. Nothing to do if the next run passes; if it keeps happening, ask the operators to raise its reserved concurrency (exportReservedConcurrency).',
};

/**
 * What the owner can do about a failure of this kind: the advice of the error's class (found by
 * the name it went by, errors.ts), else the platform's, else by whether another attempt may pass.
 */
export function adviceFor(failure: Pick<FailureFacts, 'errorType' | 'retryable'>): string {
  const advice = errorMeaningNamed(failure.errorType)?.advice ?? PLATFORM_ADVICE[failure.errorType];
  if (advice !== undefined) return advice;
  return failure.retryable
    ? 'This kind of failure often passes by itself: the run is retried and the next scheduled run will try again. If it keeps failing, ask the operators to look at the logs.'
    : 'Ask the operators to look at the logs for this run.';
}

function failureEmail(definition: ReportDefinition, failure: FailureFacts, deps: NoticeDependencies): Omit<OutgoingEmail, 'from' | 'to'> {
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
  deps: NoticeDependencies,
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
