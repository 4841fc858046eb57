import {
  AuthenticationError,
  DeadlineExceededError,
  NotFoundError,
  PlanningApiError,
  PlanningApiUnreachableError,
  RequestTimeoutError,
  ResponseTooLargeError,
} from '../core/errors';
import { formatBytes } from '../core/format-bytes';
import { failureOfCode, isRetryable, type Failure } from '../core/retry/retry-policy';
import { extractErrorText, type TransportOutcome } from './transport/http-transport';

/**
 * The errors of one failed request, built from its last outcome. Every text that came from the
 * server goes through `redact` before it is cut (see HttpTransport.redact).
 */

export interface FailedCall {
  readonly operation: string;
  readonly path: string;
  /** The 404 sentence, e.g. `risk "r-9" was not found`. */
  readonly notFound?: string | undefined;
  /** What a 403 may be about, e.g. `board "b-1"`. */
  readonly subject?: string | undefined;
  /**
   * Where the request went, for the errors of no answer: the credentials' field, its origin and the
   * groups the request serves, e.g. `baseUrl http://api.example (the Risk group)`.
   */
  readonly address?: string | undefined;
}

export interface ErrorContext {
  readonly redact: (text: string) => string;
  readonly timeoutMs: number;
  readonly maxResponseBytes: number;
}

/** The board a failed call was about: the `boardId` of its body or query, when it has one. */
export interface DocumentedErrorInput {
  readonly boardId?: string | undefined;
  /** Company prefix of the legacy address, from the credentials. */
  readonly companyPrefix: string;
  /** Whether the call went to the legacy address (paths /api/<companyPrefix>/...). */
  readonly legacy: boolean;
}

/** How a newcomer lists the ids the API accepts; named in every "unknown id" error. */
export const DISCOVER_HINT = 'list the boards, registers and themes your key may read with `npm run discover -- --credentials <file>`';

const NO_SESSION_BOARD = /no session board found/i;
const INVALID_PREFIX = /invalid company prefix/i;

/**
 * The answers the service documents for a wrong board id (500 "No Session Board found") and a
 * wrong company prefix (404 "Invalid company prefix in URL."), turned into errors that say what to
 * do. Both are permanent: the 500 is not retried like a passing server failure. Undefined for any
 * other answer.
 */
export function documentedError(
  call: FailedCall,
  outcome: Extract<TransportOutcome, { kind: 'response' }>,
  context: ErrorContext,
  input: DocumentedErrorInput,
): PlanningApiError | undefined {
  const { operation } = call;
  const { status } = outcome;
  if (status !== 500 && status !== 404) return undefined;
  const said = extractErrorText(outcome.text, undefined, context.redact);
  if (status === 500 && NO_SESSION_BOARD.test(said)) {
    const board = input.boardId === undefined ? 'the board' : `board "${input.boardId}"`;
    return new NotFoundError(
      `${operation}: the planning API does not know ${board} or this user may not open it (500: ${said}). ` +
        'Board ids come from the list of boards, not from the address bar of the browser; ' +
        DISCOVER_HINT,
      { operation, status },
    );
  }
  if (status === 404 && input.legacy && INVALID_PREFIX.test(said)) {
    return new AuthenticationError(
      `${operation}: the planning API does not accept the company prefix "${input.companyPrefix}" of the credentials ` +
        `(404: ${said}). Set companyPrefix in the credentials document to the prefix of your company's login ` +
        'address (https://<companyPrefix>.…), as your administrator gives it',
      { operation, status },
    );
  }
  return undefined;
}

function serverText(text: string, context: ErrorContext): string {
  const extracted = extractErrorText(text, undefined, context.redact);
  return extracted ? `: ${extracted}` : '';
}

/**
 * What an outcome that brought no usable answer is to the retry policy (core/retry/retry-policy.ts): the
 * retry loop asks it whether to try again, and the errors below are flagged by the same answer.
 */
export function outcomeFailure(outcome: Exclude<TransportOutcome, { kind: 'too-large' }>): Failure {
  switch (outcome.kind) {
    case 'response':
      return { status: outcome.status };
    case 'timeout':
      return { kind: 'timeout' };
    case 'network':
      return failureOfCode(outcome.code);
  }
}

/** A status the retry policy does not retry (501, 505, 4xx other than 408 and 429). */
export function httpError(
  call: FailedCall,
  outcome: Extract<TransportOutcome, { kind: 'response' }>,
  context: ErrorContext,
): PlanningApiError {
  const { operation } = call;
  const { status } = outcome;
  const text = serverText(outcome.text, context);
  if (status === 404) {
    return new NotFoundError(`${operation}: ${call.notFound ?? `${call.path} was not found`} (404)${text}`, { operation, status });
  }
  if (status === 401) {
    return new AuthenticationError(
      `${operation}: the planning API rejected the credentials (401). Check the e-mail and API key in the credentials document${text}`,
      { operation, status },
    );
  }
  if (status === 403) {
    return new AuthenticationError(
      `${operation}: the planning API refused access (403). Check the e-mail and API key; the user may also lack access to ${call.subject ?? 'this resource'}${text}`,
      { operation, status },
    );
  }
  return new PlanningApiError(`${operation}: the planning API answered ${status}${text}`, { operation, status });
}

/** A body over the byte limit: retrying would fetch the same oversized answer again. */
export function tooLargeError(
  call: FailedCall,
  outcome: Extract<TransportOutcome, { kind: 'too-large' }>,
  context: ErrorContext,
): ResponseTooLargeError {
  const { operation } = call;
  return new ResponseTooLargeError(
    `${operation}: the planning API sent more than ${formatBytes(context.maxResponseBytes)} in one response ` +
      `(status ${outcome.status}, stopped reading after ${formatBytes(outcome.bytes)}); ` +
      'narrow the report (fewer registers, boards or themes) or raise the limit API_MAX_RESPONSE_BYTES',
    { operation, status: outcome.status },
  );
}

/** Retries were used up, or the failure is not one the policy retries (a network error of no known kind). */
export function exhaustedError(call: FailedCall, outcome: TransportOutcome, attempts: number, context: ErrorContext): PlanningApiError {
  const { operation } = call;
  const tries = `${attempts} attempt${attempts === 1 ? '' : 's'}`;
  switch (outcome.kind) {
    case 'timeout':
      return new RequestTimeoutError(
        `${operation}: no complete response${call.address ? ` from ${call.address}` : ''} within ${context.timeoutMs} ms (gave up after ${tries})`,
        { operation },
      );
    case 'network':
      return new PlanningApiUnreachableError(
        `${operation}: could not reach the planning API${call.address ? ` at ${call.address}` : ''} (gave up after ${tries}): ${outcome.message}` +
          (call.address ? '. Check the address in the credentials document and that this machine can reach it' : ''),
        { operation, retryable: isRetryable(outcomeFailure(outcome)) },
      );
    case 'response':
      return new PlanningApiError(
        `${operation}: the planning API answered ${outcome.status} (gave up after ${tries})${serverText(outcome.text, context)}`,
        { operation, status: outcome.status },
      );
    case 'too-large':
      return tooLargeError(call, outcome, context);
  }
}

/** The export's overall deadline passed while this request was waiting, on the wire or backing off. */
export function deadlineError(call: FailedCall, attempts: number): DeadlineExceededError {
  const { operation } = call;
  return new DeadlineExceededError(
    `${operation}: the export ran out of time (its overall deadline passed after ${attempts} attempt${attempts === 1 ? '' : 's'} ` +
      'of this request); the planning API is slow or not answering. Try again later, or allow more time ' +
      '(--timeout on the command line, the function timeout in the stack)',
    { operation },
  );
}
