import { randomBytes } from 'node:crypto';
import * as z from 'zod';
import type { Log } from '../../core/logger';
import type { Ledger } from '../../ledger/ledger';
import { ledgerRecord, type LedgerRecord } from '../../ledger/ledger-record';
import type { Mailer } from '../message-ports';

/**
 * The one engine of the owners' notices: "tell the owners once" when a report starts failing or works
 * again (failure-notice.ts), when a chat channel does (channel-notice.ts), when the fields the planning
 * API sends beyond the columns change (field-notice.ts). Each notice is a rule: the ledger entry of
 * its state (per report, and per webhook for a channel), a transition from the previous state and an
 * event to the next state and the message that move sends, and the state that counts as "nothing told
 * yet". The engine does the rest, the same for all three:
 *
 * - one compare-and-swap per state read: every attempt that read the same version races to write the
 *   next one, and only the winner sends. A writer that lost does not read and decide again: the
 *   winner tells, and a stale writer (one that read a state another attempt has moved on from) sends
 *   nothing;
 * - a send that fails does not advance the state: the state read is put back (or the rule's initial
 *   one where there was none), so the next run tells the owners again. If another attempt has moved
 *   the state on meanwhile, its state stands.
 */
export interface NoticeRule<S, E, M> {
  /** Where the state lives. */
  readonly record: LedgerRecord<S>;
  /**
   * The next state after `event` and what that move tells (no message: the state moves quietly), or
   * undefined when the event changes nothing. `previous` is undefined when there is none or it is
   * unreadable. Pure: it may be called by every racing attempt, and only the winner sends.
   */
  transition(previous: S | undefined, event: E): NoticeStep<S, M> | undefined;
  /** The state a failed send puts back where there was none: one from which the same event tells again. */
  initial(event: E): S;
}

export interface NoticeStep<S, M> {
  readonly next: S;
  readonly message: M | undefined;
}

export type NoticeResult =
  /** `sent`: the state moved and the owners were told; `recorded`: it moved with nothing to tell. */
  | { readonly outcome: 'sent' | 'recorded' | 'unchanged' | 'lost-race' }
  /** The send failed; the state was put back, so the next run tells again. */
  | { readonly outcome: 'not-sent'; readonly error: unknown };

/** Applies `event` to the rule's state and sends what the move tells; errors of the ledger are thrown. */
export async function applyNotice<S, E, M>(rule: NoticeRule<S, E, M>, event: E, send: (message: M) => Promise<unknown>): Promise<NoticeResult> {
  const read = await rule.record.read();
  const step = rule.transition(read.value, event);
  if (step === undefined) return { outcome: 'unchanged' };
  if (!(await rule.record.put(step.next, read.version))) return { outcome: 'lost-race' };
  if (step.message === undefined) return { outcome: 'recorded' };
  try {
    await send(step.message);
  } catch (error) {
    // Our state is version read.version + 1: put the previous one back only while it is still ours.
    await rule.record.put(read.value ?? rule.initial(event), read.version + 1);
    return { outcome: 'not-sent', error };
  }
  return { outcome: 'sent' };
}

/**
 * What an owners' notice is told with, named as the run context names it: the ledger its state
 * lives in, the mail and the sender of the report's notices (chosen once by the notices step,
 * job/stages/notice.ts: a definition's `email.from` before the configured one), the log and the
 * moment of the run.
 */
export interface OwnerNoticePorts {
  readonly ledger: Ledger;
  readonly mail: Mailer;
  readonly sender: string;
  readonly log: Log;
  readonly now: Date;
}

/** The state of a streak (a report's failures, a chat channel's) in the ledger. */
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

/** A run's end as a streak sees it: its status, the run, and a failing one's reason. */
export interface StreakMove {
  readonly status: NotificationState['status'];
  readonly runId: string;
  readonly reason?: string | undefined;
}

/**
 * The state of a streak (a report's, or a chat channel's) in the ledger. An unreadable state is
 * treated as absent (and overwritten), after `unreadable` is told: it only costs one extra e-mail.
 */
export function notificationRecord(ledger: Ledger, key: string, unreadable: 'absent' | ((problem: string) => void)): LedgerRecord<NotificationState> {
  return ledgerRecord(ledger, key, notificationStateSchema, { what: `the notification state ${key}`, invalid: unreadable });
}

/**
 * The next state of a streak when a run ends `status` (none before counts as `ok`): undefined while
 * the status stays, so a retry of a failing report or a report that keeps working changes nothing.
 */
export function streakMove(previous: NotificationState | undefined, event: StreakMove, now: Date): NotificationState | undefined {
  if ((previous?.status ?? 'ok') === event.status) return undefined;
  return {
    status: event.status,
    since: now.toISOString(),
    runId: event.runId,
    ...(event.reason !== undefined && { reason: event.reason }),
    writer: randomBytes(9).toString('base64url'),
  };
}
