import * as z from 'zod';
import { RetryableExportError, SEE_LOGS } from '../core/errors';
import type { FanOutPart } from '../core/names';
import { classifyFailure, withoutArns } from '../job/failure';
import type { FailureFacts } from '../messages/notices/failure-notice';
import { PLATFORM_ERRORS, PLATFORM_PREFIXES } from '../messages/notices/platform-errors';
import type { CaughtError } from './event';

/**
 * What the fan-out's failure step tells people (the owners' e-mail, ReportFailed, the execution's
 * cause) about an error a Catch caught: which part of the fan-out failed and how, in words. A step's
 * own error reaches it as the function's error JSON in `Cause`, already public (publicStepError); a
 * failure of the platform (a timeout, a kill, throttling) is said by its name only, because its
 * `Cause` may name the function's ARN and request ids.
 */

/** What each part of the fan-out was doing, for people. */
const PARTS: Record<FanOutPart, string> = {
  plan: "the fan-out's plan (reading the report and listing its boards)",
  workers: "the fan-out's workers (fetching the boards' items)",
  assemble: "the fan-out's assembler (the export of the run)",
};

/** The longest reason taken from a step's error: a reason is a sentence, not a dump. */
const MAX_REASON = 500;

/** The failure facts of a caught error (without the run id), for the owners' notice and ReportFailed. */
export function describeFanOutFailure(part: FanOutPart, error: CaughtError): Omit<FailureFacts, 'runId'> {
  const what = PARTS[part];
  const known = PLATFORM_ERRORS[error.Error];
  if (known) return { reason: `${what} ${known.words}`, errorType: error.Error, retryable: known.retryable };
  if (PLATFORM_PREFIXES.some((prefix) => error.Error.startsWith(prefix))) {
    return { reason: `${what} failed in ${error.Error.split('.')[0]} (${error.Error}); ${SEE_LOGS}`, errorType: error.Error, retryable: error.Error.startsWith('Lambda.') };
  }
  const message = stepErrorMessage(error.Cause);
  const how = message ? `failed: ${withoutArns(message).slice(0, MAX_REASON)}` : `failed (${error.Error}); ${SEE_LOGS}`;
  return { reason: `${what} ${how}`, errorType: error.Error, retryable: false };
}

/**
 * Whether the part that failed had told its failure itself: the assembler is an export job, which
 * publishes ReportFailed and tells the owners on its last try, before it throws the retryable failure
 * (it knows its State.RetryCount, job/attempt.ts), the only one a Catch sees this from.
 */
export function toldByTheJob(part: FanOutPart, error: CaughtError): boolean {
  return part === 'assemble' && error.Error === RetryableExportError.errorName;
}

const functionErrorSchema = z.object({ errorMessage: z.string().min(1) });

/** The message of a function's error, from the JSON Step Functions passes as `Cause`. */
function stepErrorMessage(cause: string | undefined): string | undefined {
  if (cause === undefined) return undefined;
  try {
    const parsed = functionErrorSchema.safeParse(JSON.parse(cause));
    return parsed.success ? parsed.data.errorMessage : undefined;
  } catch {
    return undefined;
  }
}

/**
 * What a fan-out step throws to the state machine in place of `error`: its name (a Retry or the
 * failure step's words may depend on it) and the reason callers may see (failure.ts: the public
 * message, ARNs masked). Step Functions keeps the function's error in the execution history and hands
 * it to the failure step, which quotes it to the owners, so the internal message stays in the log.
 */
export function publicStepError(error: unknown): Error {
  const failure = classifyFailure(error);
  const thrown = new Error(failure.reason);
  thrown.name = failure.errorType;
  return thrown;
}
