import { silentLog } from '../../shared/core/logger';
import type { Clock } from '../../shared/core/clock';
import { JobStatusStore } from '../../shared/job/status/job-status';
import { catalogOf } from '../../shared/definitions/catalog';
import { runContextOf, type RunContext } from '../../shared/report/run/context';
import type { JobContext } from '../../shared/job/run-job';
import { LocalLedger } from '../../shared/ledger/local-ledger';
import { LocalDirectoryStorage } from '../../shared/storage/local-storage';
import type { Storage } from '../../shared/storage/storage';
import type { Ledger } from '../../shared/ledger/ledger';
import type { RunningSimulator } from '../../simulator/index';

/** What a local job needs that differs from test to test; the rest are the kit's defaults. */
export interface LocalJobOptions {
  /** Where the run's files and the ledger (`<dir>/.ledger`) live. */
  readonly dir: string;
  readonly sim: RunningSimulator;
  readonly reports: Readonly<Record<string, unknown>>;
  readonly clock: Clock;
  /** Another storage over the same folder (e.g. one that fails on purpose). */
  readonly storage?: Storage;
  /** The ledger a test also reads itself; default: a local ledger in `<dir>/.ledger`. */
  readonly ledger?: Ledger;
  /** Anything else of the run context (settings, log, ids, the planning API's fetch). */
  readonly context?: Partial<RunContext>;
}

/**
 * The context of a scheduled job run entirely on this machine: the simulator's credentials, files in a
 * folder, a ledger beside them, no events and no log. Add `mail`, `channels` or `events` by spreading.
 */
export function localJobDependencies(options: LocalJobOptions): JobContext {
  const ledger = options.ledger ?? new LocalLedger(`${options.dir}/.ledger`);
  return {
    ...runContextOf({
      clock: options.clock,
      storage: options.storage ?? new LocalDirectoryStorage(options.dir),
      ledger,
      log: silentLog,
      planning: { credentials: { getCredentials: () => Promise.resolve(options.sim.credentials()) } },
      ...options.context,
    }),
    definitions: catalogOf(options.reports),
    jobs: new JobStatusStore(ledger),
    events: { publish: () => Promise.resolve() },
  };
}
