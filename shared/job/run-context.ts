import type { Clock } from '../core/clock';
import { DEFAULT_DEADLINE_MARGIN_MS } from '../core/defaults';
import { silentLog, type Log } from '../core/logger';
import type { Ledger } from '../ledger/ledger';
import { resolveExportSettings, type ExportSettings } from '../report/definition/export-settings';
import { newRunId } from '../report/run/run-id';
import type { Storage } from '../storage/storage';

/** Where new run ids come from: random suffixes in production, fixed ones where a test compares two runs. */
export interface RunIds {
  newRunId(at: Date): string;
}

export const RANDOM_RUN_IDS: RunIds = { newRunId };

/**
 * What every stage of a job shares, built once at the door (a handler, a command, the demo) and
 * passed down whole: the clock (the only source of time below the door), the logger, where run ids
 * come from, where the run's files go, the ledger that orders attempts, and the export settings.
 * A stage never builds any of these itself.
 */
export interface RunContext {
  readonly clock: Clock;
  readonly log: Log;
  readonly ids: RunIds;
  readonly storage: Storage;
  readonly ledger: Ledger;
  readonly settings: ExportSettings;
}

/**
 * A run context from its parts; what is left out takes its default: no log, random run ids, the
 * default export settings. The clock has no default: the door says what time it is.
 */
export function runContextOf(parts: Pick<RunContext, 'clock' | 'storage' | 'ledger'> & Partial<RunContext>): RunContext {
  return { log: silentLog, ids: RANDOM_RUN_IDS, settings: resolveExportSettings(), ...parts };
}

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
    readonly API_CONCURRENCY: number;
    readonly API_TIMEOUT_MS: number;
    readonly API_MAX_RESPONSE_BYTES: number;
    readonly API_MAX_LIST_PAGES?: number | undefined;
    readonly API_MAX_LIST_BYTES?: number | undefined;
  },
  nowMs: number,
  remainingMs: number,
): ExportSettings {
  return resolveExportSettings({
    concurrency: config.API_CONCURRENCY,
    timeoutMs: config.API_TIMEOUT_MS,
    maxResponseBytes: config.API_MAX_RESPONSE_BYTES,
    maxListPages: config.API_MAX_LIST_PAGES,
    maxListBytes: config.API_MAX_LIST_BYTES,
    deadline: exportDeadline(nowMs, remainingMs),
  });
}
