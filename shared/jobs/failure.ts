import {
  AuthenticationError,
  ConfigError,
  CredentialsError,
  ExporterError,
  NotFoundError,
  PlanningApiError,
  ReportDefinitionError,
  ResponseTooLargeError,
  SchemaMismatchError,
  SelectorNotFoundError,
  StorageError,
} from '../core/errors';

/**
 * What a failed export tells its user, and whether trying again can help. A wrong definition, a
 * wrong key or an invisible board fail the same way on every attempt, so they are not retried;
 * timeouts, throttling and 5xx from the planning API or S3 often pass.
 */
export function classifyFailure(error: unknown): { reason: string; errorType: string; retryable: boolean } {
  const failure = classify(error);
  return { ...failure, reason: withoutArns(failure.reason) };
}

/**
 * The reason is shown to callers (job status, ReportFailed): secret names and ARNs stay in the log.
 * Credentials and configuration errors name the secret or the variable, so callers get a sentence
 * without them; any ARN left in another message (an AccessDenied from S3 names the role) is masked.
 */
function withoutArns(text: string): string {
  return text.replace(/arn:aws[a-z-]*:[^\s"'`,;)]+/g, '[ARN]');
}

const OPERATORS = 'the operators have the details in the logs';

function classify(error: unknown): { reason: string; errorType: string; retryable: boolean } {
  const errorType = error instanceof Error ? error.name : 'Error';
  if (error instanceof CredentialsError) {
    return { reason: `the planning API credentials could not be read or are incomplete; ${OPERATORS}`, errorType, retryable: false };
  }
  if (error instanceof ConfigError) {
    return { reason: `the exporter is not configured correctly; ${OPERATORS}`, errorType, retryable: false };
  }
  if (
    error instanceof ReportDefinitionError ||
    error instanceof SelectorNotFoundError ||
    error instanceof AuthenticationError ||
    error instanceof CredentialsError ||
    error instanceof ConfigError ||
    error instanceof NotFoundError ||
    error instanceof SchemaMismatchError ||
    // The same request would bring the same oversized answer.
    error instanceof ResponseTooLargeError
  ) {
    return { reason: error.message, errorType, retryable: false };
  }
  if (error instanceof PlanningApiError) {
    const status = error.status;
    return { reason: error.message, errorType, retryable: status === undefined || status === 429 || status >= 500 };
  }
  if (error instanceof StorageError) return { reason: error.message, errorType, retryable: true };
  if (error instanceof ExporterError) return { reason: error.message, errorType, retryable: false };
  // Unknown errors may carry internals: the user gets a generic reason, operators the logs.
  return { reason: `the export failed unexpectedly; ${OPERATORS}`, errorType, retryable: true };
}
