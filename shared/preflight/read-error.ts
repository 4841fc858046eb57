import { ExporterError, transientAwsFailure } from '../core/errors';

/** A service preflight asks could not be asked: what a check then reports as "cannot tell". */
export class PreflightReadError extends ExporterError {
  static override readonly kind: string = 'preflight-read';
}

const REFUSED = /AccessDenied|UnauthorizedOperation|NotAuthorized|Forbidden/i;

/**
 * The failure of one AWS call, named by the IAM action it needed. Only the error's name (and a
 * network error's own message) is kept: an AWS service's message for a refusal quotes the caller's
 * and the resource's ARNs, which are not for the output.
 */
export function awsReadError(action: string, error: unknown): PreflightReadError {
  const name = error instanceof Error ? error.name : 'Error';
  // A service's answer carries $fault ("client" or "server"); a network failure has only its own message.
  const service = typeof (error as { $fault?: unknown }).$fault === 'string';
  let why: string;
  if (REFUSED.test(name)) why = `refused (${name}): the AWS credentials in use may not call ${action}`;
  else if (name === 'CredentialsProviderError') why = 'no AWS credentials were found (set AWS_PROFILE, or sign in with aws sso login / aws configure)';
  else why = service ? `failed (${name})` : `failed: ${error instanceof Error ? error.message : String(error)}`;
  return new PreflightReadError(`${action} ${why}`, { cause: error, retryable: transientAwsFailure(error) });
}
