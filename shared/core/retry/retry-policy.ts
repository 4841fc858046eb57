/**
 * The one retry policy of the exporter: whether another attempt of a failed request (or of a whole
 * run) can help. Every place that decides reads this table: the planning API client's retry loop
 * and the errors it throws, the webhook poster, the AWS adapters' error wrappers and the job's
 * classification of what it does not know (shared/job/failure.ts). docs/run-atomicity.md ("Which
 * failures are retried") lists the table; a test keeps the two the same.
 *
 * A row is keyed by an HTTP status, by a fallback for the statuses without a row of their own, or
 * by the kind of a failure that brought no answer to read (see `failureOf` for how a thrown error
 * is given its kind).
 */

/** What failed, for a failure that is not an HTTP answer. */
export type FailureKind = 'no-answer' | 'timeout' | 'throttling' | 'service-fault' | 'busy' | 'unknown';

/** A failure as the policy sees it: the status of an answer, or the kind of a failure without one. */
export type Failure = { readonly status: number } | { readonly kind: FailureKind };

/** A row's key: one status, every other 5xx, every other status, or a kind. */
export type RetryCase = number | 'other 5xx' | 'other status' | FailureKind;

export interface RetryRule {
  readonly on: RetryCase;
  readonly retryable: boolean;
  /** Why another attempt can (or cannot) help; docs/run-atomicity.md shows it. */
  readonly why: string;
}

export const RETRY_POLICY: readonly RetryRule[] = [
  { on: 408, retryable: true, why: 'the server gave up waiting for the request to arrive: it was not processed, so sending it again is safe' },
  { on: 429, retryable: true, why: 'throttling: the server asks us to come back later (Retry-After says when)' },
  {
    on: 500,
    retryable: true,
    why: 'usually a passing server failure; every planning API call is a read, so repeating it is safe, and one that persists still fails after the last attempt (the documented 500 "No Session Board found" is turned into a not-found error before this table is asked)',
  },
  { on: 501, retryable: false, why: 'the server does not implement the method: it answers the same every time' },
  { on: 502, retryable: true, why: 'a gateway could not reach the server for the moment' },
  { on: 503, retryable: true, why: 'the server is overloaded or in maintenance, usually for a short while' },
  { on: 504, retryable: true, why: 'a gateway timed out waiting for the server (large boards); the next attempt may be served in time' },
  { on: 505, retryable: false, why: 'the server refuses the HTTP version: it answers the same every time' },
  {
    on: 'other 5xx',
    retryable: true,
    why: 'a server-side failure we know nothing more about (507, the 520 to 524 of a CDN whose origin is down or slow): more often passing than not, and the attempts are capped',
  },
  {
    on: 'other status',
    retryable: false,
    why: 'every other 4xx (400, 401, 403, 404, 409, 422 …) says the request itself is wrong or not allowed, so the same request gets the same answer; a 3xx that was not followed is not followed next time either',
  },
  {
    on: 'no-answer',
    retryable: true,
    why: 'the connection was refused, reset or closed, or the name did not resolve for the moment (ECONNRESET, ECONNREFUSED, EPIPE, EAI_AGAIN, EHOSTUNREACH, "other side closed"): the request may never have reached the server',
  },
  { on: 'timeout', retryable: true, why: 'no answer in time (our time limit, ETIMEDOUT, an AWS RequestTimeout): slow is not broken, the next attempt may be served in time' },
  { on: 'throttling', retryable: true, why: 'an AWS service throttled us (ThrottlingException, SlowDown, ProvisionedThroughputExceeded …): it passes when we come back later' },
  { on: 'service-fault', retryable: true, why: 'an AWS service failed on its side (InternalError, ServiceUnavailable, TransactionInProgress …) or its SDK marks the error retryable' },
  { on: 'busy', retryable: true, why: 'a local resource is busy or exhausted for the moment (EBUSY, EAGAIN, EMFILE, ENFILE, EINTR)' },
  {
    on: 'unknown',
    retryable: false,
    why: 'anything else: a bug, a TLS certificate failure, a name that does not exist (ENOTFOUND), access denied, a validation error. It fails the same way again, and retrying a whole run for it costs the run twice and hides the bug',
  },
];

const BY_CASE = new Map<RetryCase, RetryRule>(RETRY_POLICY.map((rule) => [rule.on, rule]));

function ruleOn(key: RetryCase): RetryRule {
  const rule = BY_CASE.get(key);
  // Cannot happen: every kind and both fallbacks have a row (test/shared/core/retry/retry-policy.test.ts).
  if (!rule) throw new Error(`the retry policy has no row for ${String(key)}`);
  return rule;
}

/** The row that decides `failure`: its status's own row, else the fallback of its class. */
export function retryRuleFor(failure: Failure): RetryRule {
  if (!('status' in failure)) return ruleOn(failure.kind);
  const own = BY_CASE.get(failure.status);
  if (own) return own;
  return ruleOn(failure.status >= 500 && failure.status <= 599 ? 'other 5xx' : 'other status');
}

/** Whether another attempt may pass. */
export function isRetryable(failure: Failure): boolean {
  return retryRuleFor(failure).retryable;
}

/**
 * The names and codes that say what kind a failure is: AWS error names (and the per-entry codes of
 * an S3 batch delete or a PutEvents), Node's socket and DNS codes, undici's codes, file-system codes.
 * A name not listed is of no known kind.
 */
export const NAMES_OF_KIND: Readonly<Record<Exclude<FailureKind, 'unknown'>, readonly string[]>> = {
  'no-answer': ['ECONNRESET', 'ECONNREFUSED', 'ECONNABORTED', 'EPIPE', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'ENETDOWN', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED'],
  timeout: ['TimeoutError', 'ETIMEDOUT', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'RequestTimeout', 'RequestTimeoutException'],
  throttling: [
    'ThrottlingException',
    'Throttling',
    'ThrottledException',
    'TooManyRequestsException',
    'ProvisionedThroughputExceededException',
    'RequestLimitExceeded',
    'RequestThrottled',
    'RequestThrottledException',
    'SlowDown',
  ],
  'service-fault': ['InternalError', 'InternalFailure', 'InternalServerError', 'ServiceUnavailable', 'ServiceUnavailableException', 'TransactionInProgressException'],
  busy: ['EBUSY', 'EAGAIN', 'EMFILE', 'ENFILE', 'EINTR'],
};

const KIND_OF_NAME: ReadonlyMap<string, FailureKind> = new Map(
  Object.entries(NAMES_OF_KIND).flatMap(([kind, names]) => names.map((name) => [name, kind as FailureKind] as const)),
);

/** The failure an error name or code stands for (an AWS per-entry code, a socket's code); unknown when none. */
export function failureOfCode(code: string | undefined): Failure {
  return { kind: (code === undefined ? undefined : KIND_OF_NAME.get(code)) ?? 'unknown' };
}

interface ErrorShape {
  readonly name?: unknown;
  readonly code?: unknown;
  readonly cause?: unknown;
  readonly $retryable?: { readonly throttling?: boolean };
  readonly $metadata?: { readonly httpStatusCode?: unknown };
}

function knownKind(value: unknown): FailureKind | undefined {
  return typeof value === 'string' ? KIND_OF_NAME.get(value) : undefined;
}

/**
 * The failure anything thrown stands for, read by its shape so that this layer needs no SDK import:
 * its name or code (or its cause's code: Node's fetch throws `TypeError: fetch failed` with the
 * socket's error as `cause`), then the AWS SDK's `$retryable`, then the HTTP status an AWS error
 * came with. A `fetch failed` whose cause names no known kind (a bad certificate, a blocked port)
 * is unknown: it fails the same way again.
 */
export function failureOf(error: unknown): Failure {
  if (error === null || typeof error !== 'object') return { kind: 'unknown' };
  const shape = error as ErrorShape;
  const cause = shape.cause !== null && typeof shape.cause === 'object' ? (shape.cause as ErrorShape) : undefined;
  const kind = knownKind(shape.name) ?? knownKind(shape.code) ?? knownKind(cause?.code);
  if (kind !== undefined) return { kind };
  if (shape.$retryable !== undefined) return { kind: shape.$retryable.throttling === true ? 'throttling' : 'service-fault' };
  const status = shape.$metadata?.httpStatusCode;
  return typeof status === 'number' ? { status } : { kind: 'unknown' };
}

/** Whether another attempt may pass after `error` was thrown: `failureOf` read by the table. */
export function retryableFailure(error: unknown): boolean {
  return isRetryable(failureOf(error));
}

/**
 * A Retry-After header in milliseconds to wait: delay-seconds (`0` means now) or an HTTP-date (one in
 * the past also means now), against `nowMs`, the caller's clock. Undefined for a missing or
 * unreadable value: the caller then waits its own backoff.
 */
export function parseRetryAfter(value: string | null | undefined, nowMs: number): number | undefined {
  const trimmed = value?.trim() ?? '';
  if (trimmed === '') return undefined;
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  // Only something that looks like a date, so that "-5" or "1.5" are not read as one by Date.parse.
  if (!/[A-Za-z]/.test(trimmed)) return undefined;
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? undefined : Math.max(0, at - nowMs);
}
