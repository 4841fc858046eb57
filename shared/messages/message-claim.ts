import { randomBytes } from 'node:crypto';
import * as z from 'zod';
import { RetryableExportError } from '../core/errors';
import type { Log } from '../core/logger';
import type { Sleep } from '../core/retry/retry';
import { ledgerKey, type Ledger } from '../ledger/ledger';
import { ledgerRecord, type LedgerRecord } from '../ledger/ledger-record';
import { daysAfter } from '../core/clock';

/**
 * Each message of a run goes out once: before a channel (e-mail, Slack, Teams, a failure notice)
 * sends anything for a run, it claims (run, channel) in the ledger with a compare-and-swap. A retry
 * of the run, a duplicate delivery of the scheduled event or a second attempt racing the first finds
 * the claim and sends nothing. A send that fails gives the claim back, so the next retry sends.
 *
 * Claim, send, then mark sent: a sender killed between its claim and its send (or before it marked
 * the message sent) leaves a claim without a `sent` mark. Such a claim is never read as "sent": a
 * retry that finds it older than SEND_TIMEOUT_MS takes it and sends; one that finds it younger waits
 * until it is that old (the context's `leaseWait`) and looks again, or, with no way to wait, fails retryable
 * so a later retry sends. Every sender ends its send well within SEND_TIMEOUT_MS (SES's request, the
 * webhook's attempts and waits), so a claim that old was never going to be marked sent.
 */

/** Longer than any send (a webhook's three attempts and their waits take at most about 90 s); short enough for Lambda's retries. */
export const SEND_TIMEOUT_MS = 3 * 60_000;
/** How often a retry looks again at another attempt's claim without a `sent` mark while it waits. */
export const UNSENT_POLL_MS = 10_000;
/** Claims outlive every retry of a run (a scheduled run's retries end within hours). */
const CLAIM_DAYS = 35;

const claimStateSchema = z.object({
  status: z.enum(['sending', 'sent', 'released']),
  /** When the state was written (ISO). */
  at: z.string(),
  /** Random token of the claimant: tells a writer whether the claim is still its own. */
  token: z.string(),
});
type ClaimState = z.infer<typeof claimStateSchema>;

/** The run a message belongs to: the same for every attempt and every delivery of the run. */
export function messageRunKey(report: string, runId: string): string {
  return `${report}/${runId}`;
}

export interface MessageClaim {
  /** True: this caller sends, then calls sent() (or release() when sending failed). */
  readonly granted: boolean;
  /** Why not granted, for the log. */
  readonly reason: string | undefined;
  /**
   * Not granted because another claimant holds a claim without a `sent` mark younger than
   * SEND_TIMEOUT_MS: from this time on the claim is taken over if it still has no mark.
   */
  readonly unsentUntil?: Date | undefined;
  /** Records the message as sent: no later attempt of the run sends it again. */
  sent(): Promise<void>;
  /** Gives the claim back after a failed send, so a retry of the run sends. */
  release(): Promise<void>;
}

export interface ClaimOptions {
  /** The time of the claim (the run context's clock, read once). */
  readonly now: Date;
}

/**
 * Claims the message of `channel` (e.g. `email`, `slack`, `teams`) for the run `runKey` (see
 * messageRunKey). Only a granted claim may send.
 */
export async function claimMessage(ledger: Ledger, runKey: string, channel: string, options: ClaimOptions): Promise<MessageClaim> {
  const record = claimRecord(ledger, runKey, channel);
  const { now } = options;
  const token = randomBytes(9).toString('base64url');
  const refusal = (current: ClaimState | undefined): string | undefined => {
    if (current?.status === 'sent') return `the ${channel} message of run ${runKey} was already sent (${current.at})`;
    if (unsentUntil(current, now)) return `the ${channel} message of run ${runKey} is being sent by another attempt (claimed ${current?.at ?? ''})`;
    return undefined;
  };
  const claimed = await record.change((current) => (refusal(current) === undefined ? { status: 'sending', at: now.toISOString(), token } : undefined), {
    lost: 'answer',
    expiresAt: expiry(now),
  });
  if (claimed.outcome === 'written') return granted(record, token, now);
  const reason = (claimed.outcome === 'kept' && refusal(claimed.value)) || `the ${channel} message of run ${runKey} kept being claimed by others`;
  return refused(reason, claimed.outcome === 'kept' ? unsentUntil(claimed.value, now) : undefined);
}

/** When a claim without a `sent` mark may be taken over, if that is still ahead of `now`. */
function unsentUntil(current: ClaimState | undefined, now: Date): Date | undefined {
  if (current?.status !== 'sending') return undefined;
  const until = Date.parse(current.at) + SEND_TIMEOUT_MS;
  return now.getTime() < until ? new Date(until) : undefined;
}

/** Who claims a message, and how it waits for another's claim without a `sent` mark to time out. */
export interface SendClaim {
  readonly ledger: Ledger;
  readonly runKey: string;
  readonly channel: string;
  readonly log: Log;
  readonly now: Date;
  /** Waits for an unsent claim of another attempt to time out (the export function's timers); without it the send fails retryable. */
  readonly leaseWait?: Sleep | undefined;
}

/**
 * Sends through `send` only if the claim is granted: the usual way to use claimMessage. Resolves
 * 'sent', or 'skipped' (logged with the reason) when the message was sent. A failed send gives the
 * claim back and rethrows. Another attempt's claim without a `sent` mark is waited out, then taken
 * if it still has none; without a wait (or when another took it meanwhile) a RetryableExportError
 * says when a retry sends: a message is never reported sent on the word of a claim alone.
 */
export async function sendOnce(claim: SendClaim, send: () => Promise<unknown>): Promise<'sent' | 'skipped'> {
  let held = await claimMessage(claim.ledger, claim.runKey, claim.channel, { now: claim.now });
  if (!held.granted && held.unsentUntil && claim.leaseWait) {
    claim.log.warn('another attempt claimed this message and has not marked it sent: waiting for its mark or its send to time out', { channel: claim.channel, until: held.unsentUntil.toISOString() });
    // Looked at again every UNSENT_POLL_MS: a live sender marks it within seconds, a killed one never.
    const until = held.unsentUntil.getTime();
    for (let at = claim.now.getTime(); !held.granted && held.unsentUntil && at < until; ) {
      const step = Math.min(UNSENT_POLL_MS, until - at);
      await claim.leaseWait(step);
      at += step;
      held = await claimMessage(claim.ledger, claim.runKey, claim.channel, { now: new Date(at) });
    }
  }
  if (!held.granted && held.unsentUntil) {
    throw new RetryableExportError(`${held.reason ?? 'the message is being sent by another attempt'}, not marked sent yet: a retry from ${held.unsentUntil.toISOString()} sends it unless that attempt did`);
  }
  if (!held.granted) {
    claim.log.info('message not sent again', { channel: claim.channel, reason: held.reason });
    return 'skipped';
  }
  try {
    await send();
  } catch (error) {
    await held.release().catch(() => undefined);
    throw error;
  }
  await held.sent();
  return 'sent';
}

function refused(reason: string, unsentUntil: Date | undefined): MessageClaim {
  const nothing = () => Promise.resolve();
  return { granted: false, reason, unsentUntil, sent: nothing, release: nothing };
}

function granted(record: LedgerRecord<ClaimState>, token: string, claimedAt: Date): MessageClaim {
  /** Moves the claim to `status` while it is still this claimant's (a takeover after SEND_TIMEOUT_MS wins). `at` stays the claim's time. */
  const settle = async (status: 'sent' | 'released'): Promise<void> => {
    // A claim that kept changing under us is another claimant's by now: nothing of ours to settle.
    await record.change((current) => (current?.token === token ? { status, at: claimedAt.toISOString(), token } : undefined), {
      lost: 'answer',
      expiresAt: expiry(claimedAt),
    });
  };
  return { granted: true, reason: undefined, sent: () => settle('sent'), release: () => settle('released') };
}

/** The claim of one channel's message of one run; a claim of another shape reads as none (it is taken over). */
function claimRecord(ledger: Ledger, runKey: string, channel: string): LedgerRecord<ClaimState> {
  return ledgerRecord(ledger, ledgerKey('message', runKey, channel), claimStateSchema, { what: `the ${channel} message claim of run ${runKey}`, invalid: 'absent' });
}

function expiry(now: Date): Date {
  return daysAfter(now, CLAIM_DAYS);
}
