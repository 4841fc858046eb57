import { MAIL_PACE_SHARE } from '../core/defaults';
import { errorMessage } from '../core/errors';
import type { Log } from '../core/logger';
import type { Sleep } from '../core/retry/retry';
import { isSendThrottled, type OutgoingEmail } from '../email/ses-mailer';
import { ledgerKey, type Ledger } from '../ledger/ledger';
import { ledgerRatePacer, type RatePacer } from '../ledger/rate-pacer';

/**
 * Mail sent at the account's sending rate, by every run at once. SES takes `MaxSendRate` messages a
 * second from the whole account (14 on a new production account) and refuses the rest with a throttle;
 * a fleet of reports at one minute crosses that in its first second. So every message first takes a
 * moment of the account's pace (one ledger entry, `pace/mail/ses`, shared by every run), and a throttle
 * SES answers anyway (another sender of the account, a lowered quota) holds the pace off for everyone
 * and sends the same message again, in this attempt: the run's claim on the recipient stays held, so
 * nobody is mailed twice, and the run does not fail for it, so no owner is told of a throttle.
 */
export interface MailTransport {
  send(email: OutgoingEmail): Promise<unknown>;
}

export interface PacedMailerOptions {
  /** The account's pace; resolved on the first message (reading the rate is a call to SES). */
  readonly pace: () => Promise<RatePacer>;
  readonly now: () => number;
  readonly sleep: Sleep;
  readonly log: Log;
  /** Sends of one message before its throttle is thrown (retryable) to the run's retry: default 8. */
  readonly attempts?: number;
}

/** After a throttle, the pace is held off this long times the throttles of the message so far (capped). */
const THROTTLE_BACKOFF_MS = 1000;
const MAX_BACKOFF_MS = 20_000;

/** The mailer, each message sent at the account's pace and again after a throttle. */
export function pacedMailer<M extends MailTransport>(mailer: M, options: PacedMailerOptions): MailTransport {
  const { now, sleep, log, attempts = 8 } = options;
  let pace: Promise<RatePacer> | undefined;
  const paceOnce = (): Promise<RatePacer> => {
    pace ??= options.pace().catch((error: unknown) => {
      pace = undefined;
      throw error;
    });
    return pace;
  };
  return {
    async send(email) {
      const pacer = await paceOnce();
      for (let attempt = 1; ; attempt++) {
        await waitForMoment(pacer, now, sleep);
        try {
          return await mailer.send(email);
        } catch (error) {
          if (!isSendThrottled(error) || attempt >= attempts) throw error;
          const backoffMs = Math.min(MAX_BACKOFF_MS, THROTTLE_BACKOFF_MS * attempt);
          log.warn('mail throttled by the sending rate; sending again', { attempt, backoffMs, error: errorMessage(error) });
          await pacer.holdOff(now() + backoffMs);
        }
      }
    },
  };
}

/** Fresh moments a message takes after waking late, before it sends late anyway (a throttle then is sent again). */
const MAX_LATE_WAKES = 3;

/**
 * Waits for a moment of the pace. A wait that wakes more than a moment past its own (a loaded event
 * loop, a paused process) does not send then: its moment's second is already the next ones' too, and
 * SES counts what arrives in each second, so a late send bursts past the rate. It takes a fresh moment
 * instead, as a token bucket's late caller takes the next token; the moment it missed stays unused. A
 * moment already past when it is given (an idle pace, the ledger's own latency) is sent at once.
 */
async function waitForMoment(pacer: RatePacer, now: () => number, sleep: Sleep): Promise<void> {
  const momentMs = 1000 / pacer.ratePerSecond;
  for (let late = 0; ; late++) {
    const moment = await pacer.reserve();
    const waitMs = moment - now();
    if (waitMs <= 0) return;
    await sleep(waitMs);
    if (now() - moment <= momentMs || late >= MAX_LATE_WAKES) return;
  }
}

/** Where the account's pace is kept: one entry for every sender of the stack. */
export const MAIL_PACE_KEY = ledgerKey('pace', 'mail', 'ses');

/**
 * The account's mail pace: `MAIL_PACE_SHARE` of the rate `readRate` gives (SES GetAccount), or of `fallbackRate` when it cannot
 * be read (a role without ses:GetAccount, SES unreachable for a moment), told once in the log.
 */
export function accountMailPace(
  ledger: Ledger,
  readRate: () => Promise<number>,
  options: { readonly now: () => number; readonly pause: Sleep; readonly log: Log; readonly fallbackRate: number },
): () => Promise<RatePacer> {
  return async () => {
    const ratePerSecond = await readRate().catch((error: unknown) => {
      options.log.warn('could not read the sending rate; pacing mail at the fallback rate', { fallbackRate: options.fallbackRate, error: errorMessage(error) });
      return options.fallbackRate;
    });
    return ledgerRatePacer(ledger, MAIL_PACE_KEY, { ratePerSecond: ratePerSecond * MAIL_PACE_SHARE, batch: 1, now: options.now, pause: options.pause });
  };
}
