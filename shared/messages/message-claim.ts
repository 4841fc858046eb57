import { randomBytes } from 'node:crypto';
import * as z from 'zod';
import type { Log } from '../core/logger';
import { ledgerKey, type Ledger } from '../ledger/ledger';
import { ledgerRecord, type LedgerRecord } from '../ledger/ledger-record';

/**
 * Each message of a run goes out once: before a channel (e-mail, Slack, Teams, a failure notice)
 * sends anything for a run, it claims (run, channel) in the ledger with a compare-and-swap. A retry
 * of the run, a duplicate delivery of the scheduled event or a second attempt racing the first finds
 * the claim and sends nothing. A send that fails gives the claim back, so the next retry sends; a
 * sender that died between claim and send leaves a claim that another may take after CLAIM_MS.
 */

/** How long a claim without `sent` blocks others: far longer than any send, short enough for a retry. */
export const CLAIM_MS = 15 * 60_000;
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
    if (current?.status === 'sending' && now.getTime() - Date.parse(current.at) < CLAIM_MS) {
      return `the ${channel} message of run ${runKey} is being sent by another attempt (claimed ${current.at})`;
    }
    return undefined;
  };
  const claimed = await record.change((current) => (refusal(current) === undefined ? { status: 'sending', at: now.toISOString(), token } : undefined), {
    lost: 'answer',
    expiresAt: expiry(now),
  });
  if (claimed.outcome === 'written') return granted(record, token, now);
  return refused((claimed.outcome === 'kept' && refusal(claimed.value)) || `the ${channel} message of run ${runKey} kept being claimed by others`);
}

/**
 * Sends through `send` only if the claim is granted: the usual way to use claimMessage. Resolves
 * 'sent' or 'skipped' (logged with the reason); a failed send gives the claim back and rethrows.
 */
export async function sendOnce(
  claim: { ledger: Ledger; runKey: string; channel: string; log: Log; now: Date },
  send: () => Promise<unknown>,
): Promise<'sent' | 'skipped'> {
  const held = await claimMessage(claim.ledger, claim.runKey, claim.channel, { now: claim.now });
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

function refused(reason: string): MessageClaim {
  const nothing = () => Promise.resolve();
  return { granted: false, reason, sent: nothing, release: nothing };
}

function granted(record: LedgerRecord<ClaimState>, token: string, claimedAt: Date): MessageClaim {
  /** Moves the claim to `status` while it is still this claimant's (a takeover after CLAIM_MS wins). `at` stays the claim's time. */
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
  return new Date(now.getTime() + CLAIM_DAYS * 86_400_000);
}
