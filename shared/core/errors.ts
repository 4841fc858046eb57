import { printable } from './text';

/**
 * Typed errors of the exporter. Every error carries `cause` where one exists, and a message a user
 * can act on. Handlers map them to responses at the edge (see lambdas/*); nothing else formats them.
 * Messages never contain secrets: callers must not interpolate API keys or Authorization headers.
 */
/** The message of anything thrown, for logs and user-facing text (never its stack or other fields). */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export class ExporterError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** Configuration (environment variables) is missing or invalid. */
export class ConfigError extends ExporterError {}

/** A planning API request failed after retries, or with a status that is not retried. */
export class PlanningApiError extends ExporterError {
  readonly operation: string;
  readonly status: number | undefined;
  constructor(message: string, details: { operation: string; status?: number; cause?: unknown }) {
    super(message, { cause: details.cause });
    this.operation = details.operation;
    this.status = details.status;
  }
}

/** The planning API answered 404 for a record or register. */
export class NotFoundError extends PlanningApiError {}

/** The planning API answered 401 or 403: the e-mail or API key is wrong, or lacks access. */
export class AuthenticationError extends PlanningApiError {}

/** A request did not complete within its time limit. */
export class RequestTimeoutError extends PlanningApiError {}

/** A planning API response was larger than the client's byte limit; reading it was stopped. */
export class ResponseTooLargeError extends PlanningApiError {}

/** The export's overall deadline passed (--timeout, or the Lambda's remaining time less a margin). */
export class DeadlineExceededError extends PlanningApiError {}

/** A planning API response did not have the documented shape. */
export class SchemaMismatchError extends PlanningApiError {
  readonly recordId: string | undefined;
  readonly path: string;
  constructor(
    message: string,
    details: { operation: string; recordId?: string | undefined; path: string; cause?: unknown },
  ) {
    super(message, { operation: details.operation, cause: details.cause });
    this.recordId = details.recordId;
    this.path = details.path;
  }
}

/** A credentials document (file or secret) is missing, not JSON, or lacks fields. */
export class CredentialsError extends ExporterError {}

/** A report definition failed validation. `issues` lists every bad field with its path. */
export class ReportDefinitionError extends ExporterError {
  readonly issues: readonly { path: string; message: string }[];
  constructor(message: string, issues: readonly { path: string; message: string }[], options?: { cause?: unknown }) {
    super(message, options);
    this.issues = issues;
  }
}

/** Writing or reading the export's output (local directory or S3) failed. */
export class StorageError extends ExporterError {}

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
export class RetryableExportError extends ExporterError {}

/**
 * Another attempt of the same run (report + run id) holds its lease: a retry or a duplicate delivery
 * that arrived while the first is still writing. Nothing was written; try again after it ends.
 */
export class RunInProgressError extends ExporterError {}

/**
 * This attempt lost its lease on the run (it stalled past the lease and another attempt took over).
 * It stops without publishing: the other attempt owns the run folder now.
 */
export class LeaseLostError extends ExporterError {}

/**
 * A chat channel (Slack, Teams) did not take the report message. Never carries the webhook URL:
 * the URL is the channel's credential. `retryable` says whether the webhook may take it later.
 */
export class ChannelDeliveryError extends ExporterError {
  readonly retryable: boolean;
  constructor(message: string, options: { retryable: boolean }) {
    super(message);
    this.retryable = options.retryable;
  }
}
