import type { Clock } from '../../core/clock';
import { silentLog, type Log } from '../../core/logger';
import type { Ledger } from '../../ledger/ledger';
import type { RequestEvent } from '../../planning-api/transport/requester';
import type { CredentialsSource } from '../../secrets/credential-refresh';
import type { Storage } from '../../storage/storage';
import type { ProgressEvent } from '../dataset/dataset';
import { resolveExportSettings, type ExportSettings } from '../definition/export-settings';
import { REGISTRY, type Registry } from '../registry';
import { newRunId } from './run-id';
import { DEFAULT_LEASE_MS, type Wait } from './run-entry';

/** Where new run ids come from: random suffixes in production, fixed ones where a test compares two runs. */
export interface RunIds {
  newRunId(at: Date): string;
}

export const RANDOM_RUN_IDS: RunIds = { newRunId };

/** How a run reaches the planning API: the credentials, and the door's hooks on the client's requests. */
export interface PlanningPorts {
  readonly credentials: CredentialsSource;
  /** The planning API's fetch (the slices of a report share a response cache through it; the fan-out records and replays). */
  readonly fetch?: typeof fetch | undefined;
  readonly onRequest?: ((event: RequestEvent) => void) | undefined;
}

/**
 * What every stage of a run shares, built once at the door (a handler, a command, the demo) and
 * passed down whole to every stage and every report function beside the run itself: the clock (the
 * only source of time below the door), the logger, where run ids come from, where the run's files
 * go, the ledger that orders attempts, the export settings, the planning API's ports and how a retry
 * waits for a lapsing lease. Nothing below a door builds any of these itself.
 */
export interface RunContext {
  readonly clock: Clock;
  readonly log: Log;
  readonly ids: RunIds;
  readonly storage: Storage;
  readonly ledger: Ledger;
  readonly settings: ExportSettings;
  readonly planning: PlanningPorts;
  /** The tables and formats a run knows: REGISTRY at the doors (a test adds one of each). */
  readonly registry: Registry;
  /**
   * How a retry waits for the lease of an attempt that stopped renewing (killed) to lapse, then takes
   * the run over, instead of stopping as "in progress" (run-entry.ts); and for a recipient's message
   * claimed by a killed attempt, never marked sent, to time out before it sends it (message-claim.ts).
   * The export function passes timers.
   */
  readonly leaseWait?: Wait | undefined;
  /** Lease duration: DEFAULT_LEASE_MS at the doors, which suits Lambda and the command line; shorter in tests. */
  readonly leaseMs: number;
  /** The door's own progress display (the terminal, the on-demand job's status). */
  readonly onProgress?: ((event: ProgressEvent) => void) | undefined;
}

/** What every door's run context holds unless a test says otherwise: the production registry and lease. */
export const RUN_DEFAULTS: Pick<RunContext, 'registry' | 'leaseMs'> = { registry: REGISTRY, leaseMs: DEFAULT_LEASE_MS };

/**
 * A run context from its parts; what is left out takes its default: no log, random run ids, the
 * default export settings, the production registry and lease (RUN_DEFAULTS). The clock has no default: the door says what time it is.
 */
export function runContextOf(parts: Pick<RunContext, 'clock' | 'storage' | 'ledger' | 'planning'> & Partial<RunContext>): RunContext {
  return { log: silentLog, ids: RANDOM_RUN_IDS, settings: resolveExportSettings(), ...RUN_DEFAULTS, ...parts };
}

/** The context with one more progress listener beside the door's (the on-demand job's status). */
export function withProgress(context: RunContext, onProgress: ((event: ProgressEvent) => void) | undefined): RunContext {
  const first = context.onProgress;
  if (!onProgress) return context;
  return {
    ...context,
    onProgress: first
      ? (event) => {
          first(event);
          onProgress(event);
        }
      : onProgress,
  };
}
