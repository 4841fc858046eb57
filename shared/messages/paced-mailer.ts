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
        const waitMs = (await pacer.reserve()) - now();
        if (waitMs > 0) await sleep(waitMs);
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

/** Where the account's pace is kept: one entry for every sender of the stack. */
export const MAIL_PACE_KEY = ledgerKey('pace', 'mail', 'ses');

/**
 * The account's mail pace: the rate `readRate` gives (SES GetAccount), or `fallbackRate` when it cannot
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
    return ledgerRatePacer(ledger, MAIL_PACE_KEY, { ratePerSecond, batch: 1, now: options.now, pause: options.pause });
  };
}
