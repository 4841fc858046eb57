import type { Ledger } from '../ledger/ledger';
import type { Storage } from '../storage/storage';
import { DEFAULT_API_CONCURRENCY } from '../core/defaults';
import { silentLog, type Log } from '../core/logger';
import { PlanningApiClient } from '../planning-api/client';
import type { RequestEvent } from '../planning-api/requester';
import { createLimiter } from '../planning-api/concurrency';
import { describeSource, type Credentials } from '../planning-api/credentials';
import { withCredentialRefresh, type CredentialsSource } from '../secrets/credential-refresh';
import type { ProgressEvent } from './dataset';
import type { ReportDefinition } from './definition';
import { runExport, type ExportResult } from './run-export';

export interface ExportReportOptions {
  readonly credentials: CredentialsSource;
  readonly storage: Storage;
  /** The run ledger: leases, `latest` and (for jobs) status; see shared/ledger/. */
  readonly ledger: Ledger;
  readonly log?: Log;
  readonly runId?: string;
  readonly runDate?: Date;
  readonly now?: () => Date;
  readonly onProgress?: (event: ProgressEvent) => void;
  /** Requests in flight across the whole export (one limiter shared by every dataset). */
  readonly concurrency?: number;
  readonly timeoutMs?: number;
  /** Largest planning API response read (default DEFAULT_MAX_RESPONSE_BYTES). */
  readonly maxResponseBytes?: number;
  /** Overall deadline, epoch ms: no planning API request or retry goes past it. */
  readonly deadline?: number;
  /** Board items per request (default EXPORT_BOARD_ITEMS_PAGE_SIZE). */
  readonly boardItemsPageSize?: number;
  readonly onRequest?: (event: RequestEvent) => void;
  readonly fetch?: typeof fetch;
}

/**
 * Board items asked for per request by an export. The items operation has no total, so each board's
 * pages are a chain of requests one after the other: at the API's default of 50 a board of 10,000
 * features is 201 round trips, at 1,000 it is 11, and the client's per-request cost shrinks with them
 * (docs/benchmarks.md). The API documents no maximum; a server that caps it silently sends shorter
 * pages, which the client follows, and one that refuses it with 400 gets 50 (see the client).
 */
export const EXPORT_BOARD_ITEMS_PAGE_SIZE = 1_000;

/** What createExportClient takes from the export's options. */
export type ExportClientOptions = Pick<
  ExportReportOptions,
  'concurrency' | 'timeoutMs' | 'maxResponseBytes' | 'deadline' | 'boardItemsPageSize' | 'onRequest' | 'fetch'
> & {
  readonly log?: Log;
};

/**
 * The planning API client of one export: one limiter shared by every dataset. Exported so the
 * benchmarks (bench/) fetch through exactly the client an export uses.
 */
export function createExportClient(credentials: Credentials, options: ExportClientOptions = {}): PlanningApiClient {
  return new PlanningApiClient({
    credentials,
    limiter: createLimiter(options.concurrency ?? DEFAULT_API_CONCURRENCY),
    log: options.log ?? silentLog,
    boardItemsPageSize: options.boardItemsPageSize ?? EXPORT_BOARD_ITEMS_PAGE_SIZE,
    ...(options.timeoutMs !== undefined && { timeoutMs: options.timeoutMs }),
    ...(options.maxResponseBytes !== undefined && { maxResponseBytes: options.maxResponseBytes }),
    ...(options.deadline !== undefined && { deadline: options.deadline }),
    ...(options.onRequest && { onRequest: options.onRequest }),
    ...(options.fetch && { fetch: options.fetch }),
  });
}

/**
 * The whole export behind both doors (command line and Lambdas): credentials → client → runExport.
 * A 401/403 makes the credentials be read once more past the cache (the key may have been rotated)
 * and the export is run again with them; the failed attempt has already removed its partial files and released its lease.
 */
export function exportReport(definition: ReportDefinition, options: ExportReportOptions): Promise<ExportResult> {
  const log = options.log ?? silentLog;
  return withCredentialRefresh(options.credentials, (credentials) => {
    const client = createExportClient(credentials, { ...options, log });
    return runExport(definition, {
      source: client,
      storage: options.storage,
      ledger: options.ledger,
      sourceInfo: describeSource(credentials),
      log,
      ...(options.runId !== undefined && { runId: options.runId }),
      ...(options.runDate && { runDate: options.runDate }),
      ...(options.now && { now: options.now }),
      ...(options.onProgress && { onProgress: options.onProgress }),
    });
  });
}
