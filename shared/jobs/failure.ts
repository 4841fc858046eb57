import { ExporterError, SEE_LOGS } from '../core/errors';

/**
 * What a failed export tells its user, and whether trying again can help. Both are decided where the
 * error was thrown (its `publicMessage` and `retryable`); this only reads them.
 */
export function classifyFailure(error: unknown): { reason: string; errorType: string; retryable: boolean } {
  const errorType = error instanceof Error ? error.name : 'Error';
  if (error instanceof ExporterError) {
    return { reason: withoutArns(error.publicMessage), errorType, retryable: error.retryable };
  }
  // Unknown errors may carry internals: the user gets a generic reason, operators the logs.
  return { reason: `the export failed unexpectedly; ${SEE_LOGS}`, errorType, retryable: true };
}

/**
 * The reason is shown to callers (job status, ReportFailed): secret names and ARNs stay in the log.
 * Any ARN left in a public message (an AccessDenied from S3 names the role) is masked.
 */
function withoutArns(text: string): string {
  return text.replace(/arn:aws[a-z-]*:[^\s"'`,;)]+/g, '[ARN]');
}
