import { ChannelDeliveryError } from '../core/errors';

/**
 * POSTs a JSON body to an incoming webhook. The URL is the credential (anyone holding it can post
 * into the channel), so it appears in no error, log or return value: errors name the channel and
 * the HTTP status or the network error's code only, and carry no `cause` (fetch's errors can
 * quote the request). 429 and 5xx are retried, waiting as long as Retry-After asks when it is
 * within `maxWaitMs`; other statuses fail at once, since the same body would be refused again.
 */
export interface WebhookPostOptions {
  readonly fetch?: typeof fetch;
  /** Per attempt. */
  readonly timeoutMs?: number;
  readonly attempts?: number;
  /** Injected so tests wait on events, not on the clock. */
  readonly sleep?: (ms: number) => Promise<void>;
  readonly now?: () => Date;
  /** A Retry-After longer than this is not waited for: the post fails as retryable. */
  readonly maxWaitMs?: number;
  /** Epoch ms (the Lambda's deadline): no retry waits past it. */
  readonly deadline?: number;
}

export const WEBHOOK_DEFAULTS = { timeoutMs: 10_000, attempts: 3, maxWaitMs: 30_000 } as const;
/** Wait before a retry that did not say how long to wait: 1 s, 2 s, 4 s … */
const BACKOFF_MS = 1_000;

const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The bytes a webhook gets for a payload: one serialisation, shared by the poster and the outbox. */
export function webhookBody(payload: unknown): string {
  return JSON.stringify(payload);
}

export async function postWebhook(url: string, body: unknown, label: string, options: WebhookPostOptions = {}): Promise<void> {
  const doFetch = options.fetch ?? fetch;
  const attempts = options.attempts ?? WEBHOOK_DEFAULTS.attempts;
  const timeoutMs = options.timeoutMs ?? WEBHOOK_DEFAULTS.timeoutMs;
  const sleep = options.sleep ?? realSleep;
  const json = webhookBody(body);
  for (let attempt = 1; ; attempt += 1) {
    const failure = await postOnce(doFetch, url, json, label, timeoutMs);
    if (failure === undefined) return;
    if (!failure.retryable || attempt >= attempts) throw failure.error;
    const now = options.now?.() ?? new Date();
    const wait = failure.retryAfter === undefined ? BACKOFF_MS * 2 ** (attempt - 1) : retryAfterMs(failure.retryAfter, now);
    if (wait === undefined || wait > (options.maxWaitMs ?? WEBHOOK_DEFAULTS.maxWaitMs)) throw failure.error;
    if (options.deadline !== undefined && now.getTime() + wait >= options.deadline) throw failure.error;
    await sleep(wait);
  }
}

interface Failure {
  readonly error: ChannelDeliveryError;
  readonly retryable: boolean;
  readonly retryAfter?: string;
}

async function postOnce(doFetch: typeof fetch, url: string, json: string, label: string, timeoutMs: number): Promise<Failure | undefined> {
  let response: Response;
  try {
    response = await doFetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json; charset=utf-8' },
      body: json,
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (error) {
    const timedOut = error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
    const reason = timedOut ? `did not answer within ${timeoutMs} ms` : `could not be reached (${networkCode(error)})`;
    return { error: new ChannelDeliveryError(`the ${label} webhook ${reason}`, { retryable: true }), retryable: true };
  }
  const text = await response.text().catch(() => '');
  if (response.ok) return undefined;
  const retryable = response.status === 429 || response.status >= 500;
  const detail = /^[\w .:-]{1,80}$/.test(text.trim()) ? ` "${text.trim()}"` : '';
  const advice = response.status === 404 || response.status === 403 || response.status === 410
    ? ': the webhook may have been removed; put a new one in the secret'
    : response.status === 400
      ? ': it refused the message'
      : '';
  const retryAfter = response.headers.get('retry-after') ?? undefined;
  return {
    error: new ChannelDeliveryError(`the ${label} webhook answered ${response.status}${detail}${advice}`, { retryable }),
    retryable,
    ...(retryAfter !== undefined && { retryAfter }),
  };
}

/** Retry-After is seconds or an HTTP date; undefined when it is neither. */
export function retryAfterMs(value: string, now: Date): number | undefined {
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now.getTime());
}

/** ECONNREFUSED, ENOTFOUND …: fetch wraps the socket error as its cause. */
function networkCode(error: unknown): string {
  const cause = error instanceof Error ? (error.cause as { code?: unknown } | undefined) : undefined;
  return typeof cause?.code === 'string' ? cause.code : 'network error';
}
