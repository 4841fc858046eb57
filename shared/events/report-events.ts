/**
 * The events the exporter announces and the port that publishes them. The job layer depends on
 * this port; shared/events/event-bridge.ts is its AWS adapter.
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
