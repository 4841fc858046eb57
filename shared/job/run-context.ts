import { DEFAULT_DEADLINE_MARGIN_MS } from '../core/defaults';
import { resolveExportSettings, type ExportSettings } from '../report/definition/export-settings';

/**
 * The deadline of an export in a Lambda: its remaining time less a margin for reporting the failure
 * (status, event, e-mail). The margin is at most a fifth of what is left, so a short invocation still
 * gets most of its time for the export.
 */
export function exportDeadline(nowMs: number, remainingMs: number): number {
  return nowMs + remainingMs - Math.min(DEFAULT_DEADLINE_MARGIN_MS, Math.floor(remainingMs / 5));
}

/**
 * The export settings of a job in a Lambda, resolved once from the function's configuration, with
 * the deadline that leaves time to report a failure (exportDeadline).
 */
export function jobExportSettings(
  config: {
    readonly API_CONCURRENCY?: number | undefined;
    readonly API_RATE_PER_SECOND?: number | undefined;
    readonly API_TIMEOUT_MS?: number | undefined;
    readonly API_MAX_RESPONSE_BYTES?: number | undefined;
    readonly API_MAX_LIST_PAGES?: number | undefined;
    readonly API_MAX_LIST_BYTES?: number | undefined;
  },
  nowMs: number,
  remainingMs: number,
): ExportSettings {
  return resolveExportSettings({
    concurrency: config.API_CONCURRENCY,
    ratePerSecond: config.API_RATE_PER_SECOND,
    timeoutMs: config.API_TIMEOUT_MS,
    maxResponseBytes: config.API_MAX_RESPONSE_BYTES,
    maxListPages: config.API_MAX_LIST_PAGES,
    maxListBytes: config.API_MAX_LIST_BYTES,
    deadline: exportDeadline(nowMs, remainingMs),
  });
}
