import { RETRY_POLICY, type FailureKind, type RetryRule } from '../../shared/core/retry/retry-policy';

/**
 * How the rows of the retry policy (shared/core/retry/retry-policy.ts) are played over real HTTP, for the
 * tests that drive each row through the planning API client and the webhook poster: a status row by
 * its status (a fallback row by examples of it), a kind row by a fault of the server.
 */

/** What a scripted server does to end an exchange in a failure of no HTTP status. */
export type HttpFault = 'reset' | 'hang' | 'malformed';

/**
 * The fault each kind is played by; null where no HTTP exchange can end in it (the AWS SDK and
 * file-system kinds, tested through classifyFailure and the adapters). A Record, so that a new kind
 * does not compile until it is given a way to be played or a reason it cannot be.
 */
const FAULT_OF_KIND: Readonly<Record<FailureKind, HttpFault | null>> = {
  // The server closes the connection without answering: "other side closed" (UND_ERR_SOCKET).
  'no-answer': 'reset',
  // The server never answers; the test ends the attempt with its injected time limit.
  timeout: 'hang',
  // The server answers bytes that are not HTTP: a parser error (HPE_INVALID_STATUS), of no transient kind.
  unknown: 'malformed',
  throttling: null,
  'service-fault': null,
  busy: null,
};

/** Examples of the statuses a fallback row stands for. */
const FALLBACK_EXAMPLES: Readonly<Record<string, readonly number[]>> = {
  'other 5xx': [507, 520],
  'other status': [400, 404, 409],
};

export type HttpCase = { readonly status: number } | { readonly fault: HttpFault };

/** The exchanges that play `rule` over HTTP; none for a kind no HTTP exchange ends in. */
export function httpCasesOf(rule: RetryRule): HttpCase[] {
  if (typeof rule.on === 'number') return [{ status: rule.on }];
  const examples = FALLBACK_EXAMPLES[rule.on];
  if (examples) return examples.map((status) => ({ status }));
  const fault = FAULT_OF_KIND[rule.on as FailureKind];
  return fault === null ? [] : [{ fault }];
}

/** Every (row, exchange) pair that can be played over HTTP, named for it.each. */
export const HTTP_RETRY_CASES: readonly { readonly name: string; readonly rule: RetryRule; readonly exchange: HttpCase }[] = RETRY_POLICY.flatMap(
  (rule) =>
    httpCasesOf(rule).map((exchange) => ({
      name: `${String(rule.on)} (${'status' in exchange ? exchange.status : exchange.fault}) is ${rule.retryable ? '' : 'not '}retried`,
      rule,
      exchange,
    })),
);

/** Every status a status row or a fallback row is tried with. */
export function statusesOf(rule: RetryRule): readonly number[] {
  return httpCasesOf(rule).flatMap((exchange) => ('status' in exchange ? [exchange.status] : []));
}

/** The bytes a malformed answer writes instead of an HTTP response. */
export const NOT_HTTP = 'HTTP/1.1 abc\r\n\r\n';
