/**
 * Ports of the job layer: what the export job and the API need from AWS, as narrow interfaces.
 * Adapters in shared/delivery/ implement them with the AWS SDK; tests pass in-process fakes or
 * adapters pointed at local servers.
 */

/** Detail of the `ReportExported` event that downstream jobs subscribe to. */
export interface ReportExportedDetail {
  readonly report: string;
  readonly runId: string;
  readonly exportId?: string;
  readonly manifestKey: string;
  readonly bucket?: string;
  readonly rows: Readonly<Record<string, number>>;
  readonly files: readonly { readonly path: string; readonly format: string; readonly bytes: number; readonly sha256: string }[];
}

export interface ReportFailedDetail {
  readonly report: string;
  readonly runId?: string;
  readonly exportId?: string;
  readonly reason: string;
  readonly errorType: string;
  readonly retryable: boolean;
}

export interface EventPublisher {
  publish(detailType: 'ReportExported', detail: ReportExportedDetail): Promise<void>;
  publish(detailType: 'ReportFailed', detail: ReportFailedDetail): Promise<void>;
}

/** The payload the export job accepts (from a schedule, or from the API through the launcher). */
export interface ExportJobRequest {
  /** Name of a configured report definition. */
  readonly report?: string;
  /** A full definition (on-demand exports); validated like a configured one. */
  readonly definition?: unknown;
  /** Fields that replace those of the named definition (on-demand exports). */
  readonly overrides?: Record<string, unknown>;
  readonly source?: 'schedule' | 'api' | 'manual';
  /** On-demand export id: its status object is updated. */
  readonly exportId?: string;
  /** Scheduler context: makes retries of one scheduled run reuse the same run id and keys. */
  readonly scheduledTime?: string;
  readonly executionId?: string;
}

/** Starts an export job without waiting for it (the Lambda adapter invokes asynchronously). */
export interface JobLauncher {
  launch(request: ExportJobRequest): Promise<void>;
}
