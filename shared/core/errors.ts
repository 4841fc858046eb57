import { failureOfCode, isRetryable, retryableFailure } from './retry-policy';
import { printable } from './text';

/**
 * Typed errors of the exporter. Every error carries `cause` where one exists, and a message a user
 * can act on. Handlers map them to responses at the edge (see lambdas/*); nothing else formats them.
 * Messages never contain secrets: callers must not interpolate API keys or Authorization headers.
 *
 * Whether another attempt can help is decided where the error is thrown, since only that place
 * knows (a throttled S3 write may pass, a malformed run id never will): each class has a default
 * and a throw site that knows better sets `retryable`. The job layer only reads the flag.
 */
/** The message of anything thrown, for logs and user-facing text (never its stack or other fields). */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export interface ExporterErrorOptions {
  cause?: unknown;
  /** Whether the same request may pass on another attempt; the class default applies when unset. */
  retryable?: boolean;
  /**
   * What callers (job status, events, API answers) are told. The message, with names of secrets,
   * variables and objects, goes to the log; the public message defaults to it when it has none.
   */
  publicMessage?: string;
}

/** The sentence callers get where the details are for operators only. */
export const SEE_LOGS = 'the operators have the details in the logs';

export class ExporterError extends Error {
  /** True when another attempt of the same work may pass (throttling, 5xx, a lost race). */
  readonly retryable: boolean;
  /** The text for callers; `message` (and `cause`) are for the log. */
  readonly publicMessage: string;
  constructor(message: string, options: ExporterErrorOptions = {}) {
    super(message, 'cause' in options ? { cause: options.cause } : undefined);
    this.name = new.target.name;
    this.retryable = options.retryable ?? false;
    this.publicMessage = options.publicMessage ?? message;
  }
}

/** Configuration (environment variables) is missing or invalid. Callers are not told the variable. */
export class ConfigError extends ExporterError {
  constructor(message: string, options: ExporterErrorOptions = {}) {
    super(message, { publicMessage: `the exporter is not configured correctly; ${SEE_LOGS}`, ...options });
  }
}

/**
 * Whether a planning API failure may pass on another attempt, by its status (retry-policy.ts); no
 * status means no answer at all. The client's retry loop asks the same table, so what it retries and
 * what its errors say agree.
 */
export function retryableStatus(status: number | undefined): boolean {
  return isRetryable(status === undefined ? { kind: 'no-answer' } : { status });
}

interface PlanningApiErrorDetails extends ExporterErrorOptions {
  operation: string;
  status?: number | undefined;
}

/**
 * A planning API request failed after retries, or with a status that is not retried. Retryable by
 * its status unless the throw site says otherwise.
 */
export class PlanningApiError extends ExporterError {
  readonly operation: string;
  readonly status: number | undefined;
  constructor(message: string, details: PlanningApiErrorDetails) {
    const { operation, status, ...options } = details;
    super(message, { retryable: retryableStatus(status), ...options });
    this.operation = operation;
    this.status = status;
  }
}

/** The planning API answered 404 for a record or register: the same request finds nothing again. */
export class NotFoundError extends PlanningApiError {
  constructor(message: string, details: PlanningApiErrorDetails) {
    super(message, { retryable: false, ...details });
  }
}

/** The planning API answered 401 or 403: the e-mail or API key is wrong, or lacks access. */
export class AuthenticationError extends PlanningApiError {
  constructor(message: string, details: PlanningApiErrorDetails) {
    super(message, { retryable: false, ...details });
  }
}

/** A request did not complete within its time limit (the API may answer in time on another attempt). */
export class RequestTimeoutError extends PlanningApiError {
  constructor(message: string, details: PlanningApiErrorDetails) {
    super(message, { retryable: isRetryable({ kind: 'timeout' }), ...details });
  }
}

/** A planning API response was larger than the client's byte limit; the same request brings the same answer. */
export class ResponseTooLargeError extends PlanningApiError {
  constructor(message: string, details: PlanningApiErrorDetails) {
    super(message, { retryable: false, ...details });
  }
}

/**
 * The export's overall deadline passed (--timeout, or the Lambda's remaining time less a margin): a
 * timeout of the whole run, which a retry with a fresh deadline may finish.
 */
export class DeadlineExceededError extends PlanningApiError {
  constructor(message: string, details: PlanningApiErrorDetails) {
    super(message, { retryable: isRetryable({ kind: 'timeout' }), ...details });
  }
}

/** A planning API response did not have the documented shape; the same record comes back the same. */
export class SchemaMismatchError extends PlanningApiError {
  readonly recordId: string | undefined;
  readonly path: string;
  constructor(
    message: string,
    details: { operation: string; recordId?: string | undefined; path: string; cause?: unknown },
  ) {
    super(message, { operation: details.operation, cause: details.cause, retryable: false });
    this.recordId = details.recordId;
    this.path = details.path;
  }
}

/**
 * A credentials document (file or secret) is missing, not JSON, or lacks fields. Callers are not
 * told the secret's name; reading it may be retryable (throttling) where the throw site says so.
 */
export class CredentialsError extends ExporterError {
  constructor(message: string, options: ExporterErrorOptions = {}) {
    super(message, { publicMessage: `the planning API credentials could not be read or are incomplete; ${SEE_LOGS}`, ...options });
  }
}

/** A report definition failed validation. `issues` lists every bad field with its path. */
export class ReportDefinitionError extends ExporterError {
  readonly issues: readonly { path: string; message: string }[];
  constructor(message: string, issues: readonly { path: string; message: string }[], options?: ExporterErrorOptions) {
    super(message, options);
    this.issues = issues;
  }
}

/**
 * The plan of a run (report/plan/export-plan.ts) found problems before anything was fetched: selectors
 * naming a register, board, collection or theme the API user cannot see, or a company prefix the
 * API refuses. `issues` lists every one with its place (`datasets.boardItems.boards[1]`,
 * `credentials.companyPrefix`). Nothing was fetched or written, and the same definition fails the
 * same way again. The texts quote the definition and the planning tool's titles: either may hold
 * terminal escape sequences, which must be shown, not obeyed.
 */
export class ReportPlanError extends ReportDefinitionError {
  /** The message is `heading`, then one line per issue: `  - <path>: <message>`. */
  constructor(heading: string, issues: readonly { path: string; message: string }[] = [], options?: ExporterErrorOptions) {
    const shown = issues.map((issue) => ({ path: printable(issue.path), message: printable(issue.message) }));
    super([printable(heading), ...shown.map((issue) => `  - ${issue.path}: ${issue.message}`)].join('\n'), shown, options);
  }
}

/**
 * Writing or reading the export's output (local directory or S3) or the run ledger failed. Not
 * retryable unless the throw site says so: a bad key, a corrupt record or a missing manifest fail
 * the same way again; throttling, 5xx and lost write races set `retryable`.
 */
export class StorageError extends ExporterError {}

/** Creating, changing or reading a report's schedule (EventBridge Scheduler) failed. */
export class ScheduleError extends ExporterError {}

/** A signed link token is malformed, tampered with or expired. Never say which to the caller. */
export class LinkTokenError extends ExporterError {}

/** A selector of the report definition names a board, register or theme the user cannot see. */
export class SelectorNotFoundError extends ExporterError {
  // The message quotes selector ids from the definition and names from the planning tool: either may
  // hold terminal escape sequences, which must be shown, not obeyed.
  constructor(message: string, options?: { cause?: unknown }) {
    super(printable(message), options);
  }
}

/** Sending the report e-mail failed, or the message was invalid (address, recipients, size). */
export class EmailDeliveryError extends ExporterError {}

/** An event could not be put on the event bus. */
export class EventPublishError extends ExporterError {}

/** A scheduled export failed in a way that may pass on another attempt (the invocation is retried). */
export class RetryableExportError extends ExporterError {
  constructor(message: string, options: ExporterErrorOptions = {}) {
    super(message, { retryable: true, ...options });
  }
}

/**
 * Another attempt of the same run (report + run id) holds its lease: a retry or a duplicate delivery
 * that arrived while the first is still writing. Nothing was written; try again after it ends.
 */
export class RunInProgressError extends ExporterError {
  constructor(message: string, options: ExporterErrorOptions = {}) {
    super(message, { retryable: true, ...options });
  }
}

/**
 * This attempt lost its lease on the run (it stalled past the lease and another attempt took over).
 * It stops without publishing: the other attempt owns the run folder now.
 */
export class LeaseLostError extends ExporterError {}

/**
 * A chat channel (Slack, Teams) did not take the report message. Never carries the webhook URL:
 * the URL is the channel's credential. `retryable` says whether the webhook may take it later.
 */
export class ChannelDeliveryError extends ExporterError {}

/**
 * Whether a wrapped failure may pass on another attempt: ours say so; anything else is read by the
 * retry policy, which retries only the transient kinds it knows (a reset connection, a timeout,
 * throttling, a 5xx) and not an unknown error.
 */
export function retryableCause(error: unknown): boolean {
  return error instanceof ExporterError ? error.retryable : retryableFailure(error);
}

/** Whether an AWS error code (an S3 batch delete's or PutEvents' per-entry code) names a transient failure. */
export function transientAwsCode(code: string | undefined): boolean {
  return isRetryable(failureOfCode(code));
}

/**
 * Whether an AWS SDK failure may pass on another attempt: throttling, a 5xx, a timeout or a broken
 * connection, as the retry policy reads the error's shape (the SDK's `$retryable`,
 * `$metadata.httpStatusCode`, its name or code), so this layer needs no SDK import. Access denied,
 * missing buckets or keys and validation errors are permanent. The adapters' name for
 * `retryableFailure`: a throw site says by it that it wraps an SDK error.
 */
export function transientAwsFailure(error: unknown): boolean {
  return retryableFailure(error);
}

/**
 * Whether a file-system failure may pass on another attempt (a busy file, too many open files); a
 * full disk or a denied path will not. The local adapters' name for `retryableFailure`.
 */
export function transientFsFailure(error: unknown): boolean {
  return retryableFailure(error);
}
