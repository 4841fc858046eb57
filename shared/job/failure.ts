import { ExporterError, retryableCause, SEE_LOGS } from '../core/errors';

/**
 * What a failed export tells its user, and whether trying again can help. Both are decided where the
 * error was thrown (its `publicMessage` and `retryable`); this only reads them. An error that is not
 * ours is retried only when the retry policy knows its kind as transient (a reset connection, a
 * timeout, throttling, a 5xx of an AWS call): an unknown one, most often a bug, fails the same way
 * again and a Lambda retry would only run the whole export twice more (docs/run-atomicity.md).
 */
export function classifyFailure(error: unknown): { reason: string; errorType: string; retryable: boolean } {
  const errorType = error instanceof Error ? error.name : 'Error';
  if (error instanceof ExporterError) {
    return { reason: withoutArns(error.publicMessage), errorType, retryable: error.retryable };
  }
  // Unknown errors may carry internals: the user gets a generic reason, operators the logs.
  return { reason: `the export failed unexpectedly; ${SEE_LOGS}`, errorType, retryable: retryableCause(error) };
}

/**
 * The reason is shown to callers (job status, ReportFailed): secret names and ARNs stay in the log.
 * Any ARN left in a public message (an AccessDenied from S3 names the role) is masked.
 */
export function withoutArns(text: string): string {
  return text.replace(/arn:aws[a-z-]*:[^\s"'`,;)]+/g, '[ARN]');
}
