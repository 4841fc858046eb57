import { failureOfCode, isRetryable, retryableFailure } from './retry/retry-policy';
import { printable } from './text';

/**
 * Typed errors of the exporter. Every error carries `cause` where one exists, and a message a user
 * can act on. Messages never contain secrets: callers must not interpolate API keys or
 * Authorization headers.
 *
 * Each class owns its meaning in fields of its own, so nothing downstream decides by a class's name
 * (which a minifier shortens to a letter): its `kind`, a stable string its `name` (the `errorType`
 * of ReportFailed, the error a fan-out step throws to Step Functions) is spelt from; the HTTP
 * `httpStatus` the export API answers it with (shared/http/http-errors.ts); and the `advice` its
 * owners' failure notice gives (messages/notices/failure-notice.ts), where the class has one.
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

/** `report-plan` → `ReportPlanError`: the name an error of a kind goes by, whatever the bundler did to its class. */
export function errorNameOf(kind: string): string {
  return `${kind.replace(/(?:^|-)([a-z])/g, (_, letter: string) => letter.toUpperCase())}Error`;
}

export class ExporterError extends Error {
  /** What kind of failure this is, in words that survive minification; each class sets its own. */
  static readonly kind: string = 'exporter';
  /** The status the export API answers it with: a 4xx is the caller's to fix, a 5xx is ours. */
  static readonly httpStatus: number = 500;
  /** What the report's owners can do about it; without, the notice advises by `retryable`. */
  static readonly advice: string | undefined = undefined;

  /** The name errors of this class go by (its kind spelt as a class name), for places that match a name. */
  static get errorName(): string {
    return errorNameOf(this.kind);
  }

  /** Read from the class, not kept on the error: what a caller serialises of it stays its name, message and flags. */
  get kind(): string {
    return (this.constructor as typeof ExporterError).kind;
  }
  get httpStatus(): number {
    return (this.constructor as typeof ExporterError).httpStatus;
  }
  get advice(): string | undefined {
    return (this.constructor as typeof ExporterError).advice;
  }
  /** True when another attempt of the same work may pass (throttling, 5xx, a lost race). */
  readonly retryable: boolean;
  /** The text for callers; `message` (and `cause`) are for the log. */
  readonly publicMessage: string;
  constructor(message: string, options: ExporterErrorOptions = {}) {
    super(message, 'cause' in options ? { cause: options.cause } : undefined);
    const meaning: typeof ExporterError = new.target;
    this.name = meaning.errorName;
    this.retryable = options.retryable ?? false;
    this.publicMessage = options.publicMessage ?? message;
  }
}

/** The advice of the errors a definition or the configuration has to be corrected for. */
const CORRECT_AND_DEPLOY =
  'The report definition or the exporter configuration is invalid: correct it (the reason above names the field) and deploy again.';
/** The advice of the errors the planning API's credentials are to blame for. */
const CHECK_CREDENTIALS =
  "Check the planning API user and its API key in the credentials secret (it may have been rotated or revoked), and that the user can still see the report's registers, boards and themes.";
/** The advice of the errors of a selector that names nothing the API user sees. */
const UPDATE_SELECTORS =
  "A register, board or theme the report names no longer exists or is not visible to the API user: update the report's selectors or the user's access.";

/** Configuration (environment variables) is missing or invalid. Callers are not told the variable. */
export class ConfigError extends ExporterError {
  static override readonly kind: string = 'config';
  static override readonly advice: string | undefined = CORRECT_AND_DEPLOY;
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
  static override readonly kind: string = 'planning-api';
  static override readonly httpStatus: number = 502;
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
  static override readonly kind: string = 'not-found';
  static override readonly advice: string | undefined = UPDATE_SELECTORS;
  constructor(message: string, details: PlanningApiErrorDetails) {
    super(message, { retryable: false, ...details });
  }
}

/** The planning API answered 401 or 403: the e-mail or API key is wrong, or lacks access. */
export class AuthenticationError extends PlanningApiError {
  static override readonly kind: string = 'authentication';
  static override readonly advice: string | undefined = CHECK_CREDENTIALS;
  constructor(message: string, details: PlanningApiErrorDetails) {
    super(message, { retryable: false, ...details });
  }
}

/** A request did not complete within its time limit (the API may answer in time on another attempt). */
export class RequestTimeoutError extends PlanningApiError {
  static override readonly kind: string = 'request-timeout';
  static override readonly httpStatus: number = 504;
  constructor(message: string, details: PlanningApiErrorDetails) {
    super(message, { retryable: isRetryable({ kind: 'timeout' }), ...details });
  }
}

/**
 * No answer at all from an address of the planning API (connection refused, an unknown host, a reset):
 * the address may be mistyped, so the message names it and the groups it serves, and `discover`
 * tells it apart from a refusal (a refusal is an answer about the key; this says nothing about it).
 */
export class PlanningApiUnreachableError extends PlanningApiError {
  static override readonly kind: string = 'planning-api-unreachable';
  constructor(message: string, details: PlanningApiErrorDetails) {
    super(message, { retryable: isRetryable({ kind: 'no-answer' }), ...details });
  }
}

/** A planning API response was larger than the client's byte limit; the same request brings the same answer. */
export class ResponseTooLargeError extends PlanningApiError {
  static override readonly kind: string = 'response-too-large';
  constructor(message: string, details: PlanningApiErrorDetails) {
    super(message, { retryable: false, ...details });
  }
}

/**
 * The export's overall deadline passed (--timeout, or the Lambda's remaining time less a margin): a
 * timeout of the whole run, which a retry with a fresh deadline may finish.
 */
export class DeadlineExceededError extends PlanningApiError {
  static override readonly kind: string = 'deadline-exceeded';
  static override readonly httpStatus: number = 504;
  static override readonly advice: string | undefined =
    'The planning API was too slow to finish within the time allowed: nothing to do if it passes on the next run; if it keeps failing, narrow the report or raise the function timeout.';
  constructor(message: string, details: PlanningApiErrorDetails) {
    super(message, { retryable: isRetryable({ kind: 'timeout' }), ...details });
  }
}

/** A planning API response did not have the documented shape; the same record comes back the same. */
export class SchemaMismatchError extends PlanningApiError {
  static override readonly kind: string = 'schema-mismatch';
  static override readonly advice: string | undefined =
    'The planning API answered in a shape the exporter does not know: send the reason above to the API owner.';
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
  static override readonly kind: string = 'credentials';
  static override readonly advice: string | undefined = CHECK_CREDENTIALS;
  constructor(message: string, options: ExporterErrorOptions = {}) {
    super(message, { publicMessage: `the planning API credentials could not be read or are incomplete; ${SEE_LOGS}`, ...options });
  }
}

/** A report definition failed validation. `issues` lists every bad field with its path. */
export class ReportDefinitionError extends ExporterError {
  static override readonly kind: string = 'report-definition';
  static override readonly httpStatus: number = 400;
  static override readonly advice: string | undefined = CORRECT_AND_DEPLOY;
  readonly issues: readonly { path: string; message: string }[];
  constructor(message: string, issues: readonly { path: string; message: string }[], options?: ExporterErrorOptions) {
    super(message, options);
    this.issues = issues;
  }
}

/**
 * The plan of a run (report/run/export-plan.ts) found problems before anything was fetched: selectors
 * naming a register, board, collection or theme the API user cannot see, or a company prefix the
 * API refuses. `issues` lists every one with its place (`datasets.boardItems.boards[1]`,
 * `credentials.companyPrefix`). Nothing was fetched or written, and the same definition fails the
 * same way again. The texts quote the definition and the planning tool's titles: either may hold
 * terminal escape sequences, which must be shown, not obeyed.
 */
export class ReportPlanError extends ReportDefinitionError {
  static override readonly kind: string = 'report-plan';
  static override readonly advice: string | undefined =
    'The run was stopped before it fetched anything: the reason above lists each problem with its place. ' +
    "A register, board, collection or theme the report names (datasets.…) is not visible to the API user: update the report's selectors or the user's access. " +
    'A refused company prefix (credentials.companyPrefix): correct it in the credentials secret.';
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
export class StorageError extends ExporterError {
  static override readonly kind: string = 'storage';
}

/** Creating, changing or reading a report's schedule (EventBridge Scheduler) failed. */
export class ScheduleError extends ExporterError {
  static override readonly kind: string = 'schedule';
}

/** A signed link token is malformed, tampered with or expired. Never say which to the caller. */
export class LinkTokenError extends ExporterError {
  static override readonly kind: string = 'link-token';
  static override readonly httpStatus: number = 403;
}

/** A selector of the report definition names a board, register or theme the user cannot see. */
export class SelectorNotFoundError extends ExporterError {
  static override readonly kind: string = 'selector-not-found';
  static override readonly httpStatus: number = 400;
  static override readonly advice: string | undefined = UPDATE_SELECTORS;
  // The message quotes selector ids from the definition and names from the planning tool: either may
  // hold terminal escape sequences, which must be shown, not obeyed.
  constructor(message: string, options?: { cause?: unknown }) {
    super(printable(message), options);
  }
}

/** Sending the report e-mail failed, or the message was invalid (address, recipients, size). */
export class EmailDeliveryError extends ExporterError {
  static override readonly kind: string = 'email-delivery';
}

/** An event could not be put on the event bus. */
export class EventPublishError extends ExporterError {
  static override readonly kind: string = 'event-publish';
}

/** A scheduled export failed in a way that may pass on another attempt (the invocation is retried). */
export class RetryableExportError extends ExporterError {
  static override readonly kind: string = 'retryable-export';
  static override readonly httpStatus: number = 503;
  constructor(message: string, options: ExporterErrorOptions = {}) {
    super(message, { retryable: true, ...options });
  }
}

/**
 * Another attempt of the same run (report + run id) holds its lease: a retry or a duplicate delivery
 * that arrived while the first is still writing. Nothing was written; try again after it ends.
 */
export class RunInProgressError extends ExporterError {
  static override readonly kind: string = 'run-in-progress';
  static override readonly httpStatus: number = 409;
  constructor(message: string, options: ExporterErrorOptions = {}) {
    super(message, { retryable: true, ...options });
  }
}

/**
 * This attempt lost its lease on the run (it stalled past the lease and another attempt took over).
 * It stops without publishing: the other attempt owns the run folder now.
 */
export class LeaseLostError extends ExporterError {
  static override readonly kind: string = 'lease-lost';
  static override readonly httpStatus: number = 409;
}

/**
 * A chat channel (Slack, Teams) did not take the report message. Never carries the webhook URL:
 * the URL is the channel's credential. `retryable` says whether the webhook may take it later.
 */
export class ChannelDeliveryError extends ExporterError {
  static override readonly kind: string = 'channel-delivery';
}

/** What a class of error means, read from the class itself (see ExporterError). */
export interface ErrorMeaning {
  readonly kind: string;
  readonly errorName: string;
  readonly httpStatus: number;
  readonly advice: string | undefined;
}

/** The classes of this module, for finding a class again by the name of one of its errors. */
const ERROR_CLASSES: readonly ErrorMeaning[] = [
  ExporterError,
  ConfigError,
  PlanningApiError,
  PlanningApiUnreachableError,
  NotFoundError,
  AuthenticationError,
  RequestTimeoutError,
  ResponseTooLargeError,
  DeadlineExceededError,
  SchemaMismatchError,
  CredentialsError,
  ReportDefinitionError,
  ReportPlanError,
  StorageError,
  ScheduleError,
  LinkTokenError,
  SelectorNotFoundError,
  EmailDeliveryError,
  EventPublishError,
  RetryableExportError,
  RunInProgressError,
  LeaseLostError,
  ChannelDeliveryError,
];

/**
 * The meaning of an error known only by its name: a failure that crossed a process boundary (a
 * fan-out step's error, which Step Functions hands on as its name and message) or was recorded.
 * Names are spelt from kinds (errorNameOf), so this holds in a minified bundle too.
 */
export function errorMeaningNamed(name: string): ErrorMeaning | undefined {
  return ERROR_CLASSES.find((meaning) => meaning.errorName === name);
}

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
