import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { EventPublishError, transientAwsCode } from '../core/errors';
import { EVENT_SOURCE } from '../core/names';
import type { EventPublisher, ReportExportedDetail, ReportFailedDetail } from './report-events';

/** Source of every event the exporter puts on the bus; downstream rules match on it. */
export { EVENT_SOURCE };


/** Publishes ReportExported / ReportFailed on an EventBridge bus. */
export class EventBridgePublisher implements EventPublisher {
  private readonly client: EventBridgeClient;
  constructor(private readonly options: { busName: string; client?: EventBridgeClient }) {
    this.client = options.client ?? new EventBridgeClient({});
  }

  async publish(detailType: 'ReportExported' | 'ReportFailed', detail: ReportExportedDetail | ReportFailedDetail): Promise<void> {
    const result = await this.client.send(
      new PutEventsCommand({
        Entries: [{ EventBusName: this.options.busName, Source: EVENT_SOURCE, DetailType: detailType, Detail: JSON.stringify(detail) }],
      }),
    );
    // PutEvents reports per-entry failures in a 200 answer; a lost event must not pass silently.
    if ((result.FailedEntryCount ?? 0) > 0) {
      const entry = result.Entries?.[0];
      throw new EventPublishError(`could not publish ${detailType}: ${entry?.ErrorCode ?? 'unknown'} ${entry?.ErrorMessage ?? ''}`.trim(), {
        retryable: transientAwsCode(entry?.ErrorCode),
      });
    }
  }
}

/** The EventBridge client the adapter uses by default; the handler builds it to instrument it once. */
export function createEventBridgeClient(): EventBridgeClient {
  return new EventBridgeClient({});
}
