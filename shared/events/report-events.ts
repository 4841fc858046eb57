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
  /** Machine table files (Parquet), paths relative to `<prefix>/<report>/`, with their schema version. */
  readonly tables?: readonly {
    readonly table: string;
    readonly path: string;
    readonly rows: number;
    readonly bytes: number;
    readonly sha256: string;
    readonly schemaVersion: string;
  }[];
  /**
   * Tables whose published schema this run changed, by kind: `minor` (columns added: existing
   * queries keep working) and `breaking` (columns removed or retyped: a downstream table must change).
   */
  readonly schemaChanges?: {
    readonly minor: readonly SchemaChangeSummary[];
    readonly breaking: readonly SchemaChangeSummary[];
  };
  /** Whether the run's message went out (`delivery.when`), why, and each chat channel's result. */
  readonly delivery?: {
    readonly sent: boolean;
    readonly reason: string;
    readonly channels: readonly { readonly type: string; readonly status: 'sent' | 'failed' | 'skipped' }[];
  };
}

export interface SchemaChangeSummary {
  readonly table: string;
  readonly from: string;
  readonly to: string;
  readonly columns: readonly string[];
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

/** A door without an event bus (the command line, the demo): the events go nowhere. */
export const NO_EVENT_BUS: EventPublisher = { publish: () => Promise.resolve() };
