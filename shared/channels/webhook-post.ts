import type { Clock } from '../core/clock';
import { ChannelDeliveryError } from '../core/errors';
import { retrying, timerSleep, type Sleep } from '../core/retry/retry';
import { failureOf, isRetryable, parseRetryAfter, type Failure } from '../core/retry/retry-policy';

/**
 * POSTs a JSON body to an incoming webhook. The URL is the credential (anyone holding it can post
 * into the channel), so it appears in no error, log or return value: errors name the channel and
 * the HTTP status or the network error's code only, with a fixed sentence, and carry no `cause`
 * (fetch's errors can quote the request). The answer's body is never quoted: the server is free to
 * echo the secret part of its URL in it. What is retried is the exporter's one retry policy (core/retry/retry-policy.ts:
 * 408, 429 and 5xx but 501 and 505, a lost connection, a timeout), waiting as long as Retry-After
 * asks when it is within `maxWaitMs`; other statuses fail at once, since the same body would be
 * refused again.
 *
 * Redirects are never followed: fetch would follow a 301/302 with a GET (nothing posted, yet a 2xx at
 * the end would read as sent) and a 307/308 by posting the whole message, link tokens included, to
 * whatever host the answer names. A redirect is a failed post instead, not retried: the same URL
 * redirects again, and only a person can tell whether the new address is the channel's.
 */
export interface WebhookPostOptions {
  readonly fetch?: typeof fetch;
  /** Per attempt. */
  readonly timeoutMs?: number;
  readonly attempts?: number;
  /** Injected so tests wait on events, not on the clock. */
  readonly sleep?: Sleep;
  /** The run's clock: a Retry-After date and the deadline are times on it. */
  readonly clock: Clock;
  /** The signal that ends an attempt after `ms`. Default AbortSignal.timeout; tests end it themselves. */
  readonly timeoutSignal?: (ms: number) => AbortSignal;
  /** A Retry-After longer than this is not waited for: the post fails as retryable. */
  readonly maxWaitMs?: number;
  /** Epoch ms (the Lambda's deadline): no retry waits past it. */
  readonly deadline?: number;
}

/** The poster's settings a caller may set; the clock is the run's, passed apart. */
export type WebhookPostSettings = Omit<WebhookPostOptions, 'clock'>;

export const WEBHOOK_DEFAULTS = { timeoutMs: 10_000, attempts: 3, maxWaitMs: 30_000 } as const;
/** Wait before a retry that did not say how long to wait: 1 s, 2 s, 4 s … */
const BACKOFF_MS = 1_000;

/** The bytes a webhook gets for a payload: one serialisation, shared by the poster and the outbox. */
export function webhookBody(payload: unknown): string {
  return JSON.stringify(payload);
}

export async function postWebhook(url: string, body: unknown, label: string, options: WebhookPostOptions): Promise<void> {
  const now = () => options.clock().getTime();
  const json = webhookBody(body);
  const maxWaitMs = options.maxWaitMs ?? WEBHOOK_DEFAULTS.maxWaitMs;
  await retrying<void>(
    async (attempt, last) => {
      const failed = await postOnce(url, json, label, options);
      if (failed === undefined) return { value: undefined };
      if (!failed.error.retryable || last) throw failed.error;
      // An unreadable Retry-After is as good as none: the backoff applies.
      const delayMs = parseRetryAfter(failed.retryAfter, now()) ?? BACKOFF_MS * 2 ** (attempt - 1);
      if (delayMs > maxWaitMs) throw failed.error;
      return { again: { delayMs, late: () => failed.error } };
    },
    {
      attempts: options.attempts ?? WEBHOOK_DEFAULTS.attempts,
      sleep: options.sleep ?? timerSleep,
      remainingMs: () => (options.deadline === undefined ? Number.POSITIVE_INFINITY : options.deadline - now()),
    },
  );
}

interface FailedPost {
  readonly error: ChannelDeliveryError;
  readonly retryAfter?: string;
}

async function postOnce(url: string, json: string, label: string, options: WebhookPostOptions): Promise<FailedPost | undefined> {
  const timeoutMs = options.timeoutMs ?? WEBHOOK_DEFAULTS.timeoutMs;
  const signal = (options.timeoutSignal ?? ((ms: number) => AbortSignal.timeout(ms)))(timeoutMs);
  let response: Response;
  try {
    response = await (options.fetch ?? fetch)(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json; charset=utf-8' },
      body: json,
      signal,
      redirect: 'manual',
    });
  } catch (error) {
    // Our own time limit ended it when the signal fired; anything else is read by its shape.
    const failure: Failure = signal.aborted ? { kind: 'timeout' } : failureOf(error);
    const reason = signal.aborted ? `did not answer within ${timeoutMs} ms` : `could not be reached (${networkCode(error)})`;
    return { error: new ChannelDeliveryError(`the ${label} webhook ${reason}`, { retryable: isRetryable(failure) }) };
  }
  // Read to the end so the connection is reused, and never quoted: a server may echo its own URL
  // (the secret) in an error, and the reason travels to the owners' e-mail, the ledger and the log.
  await response.arrayBuffer().catch(() => undefined);
  if (response.ok) return undefined;
  if (isRedirect(response)) {
    const status = response.status === 0 ? 'a redirect' : `${response.status}, a redirect`;
    return {
      error: new ChannelDeliveryError(
        `the ${label} webhook answered ${status}; redirects are not followed, so nothing was posted: put the webhook's current URL in the secret`,
        { retryable: false },
      ),
    };
  }
  const advice = response.status === 404 || response.status === 403 || response.status === 410
    ? ': the webhook may have been removed; put a new one in the secret'
    : response.status === 400
      ? ': it refused the message'
      : '';
  const retryAfter = response.headers.get('retry-after') ?? undefined;
  return {
    error: new ChannelDeliveryError(`the ${label} webhook answered ${response.status}${advice}`, { retryable: isRetryable({ status: response.status }) }),
    ...(retryAfter !== undefined && { retryAfter }),
  };
}

/** A 3xx, or what a fetch that keeps redirects opaque (a browser's) hands back for one. */
function isRedirect(response: Response): boolean {
  return response.type === 'opaqueredirect' || (response.status >= 300 && response.status < 400);
}

/** ECONNREFUSED, ENOTFOUND …: fetch wraps the socket error as its cause. */
function networkCode(error: unknown): string {
  const cause = error instanceof Error ? (error.cause as { code?: unknown } | undefined) : undefined;
  return typeof cause?.code === 'string' ? cause.code : 'network error';
}
