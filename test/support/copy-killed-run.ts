/**
 * A child process for the kill trials of the table copies (test/shared/report/run/tables-killed.slow.test.ts):
 * exports one run into a folder (files and ledger) and stops dead at one step of its publishing into
 * the tables: before its n-th copy of a staged file into a table prefix, before the ledger marks the
 * run complete, or before it takes itself off the report's runs publishing. It then says `stopped` on
 * stdout and waits for the SIGKILL the test sends on that line. The argument is JSON (CopyKilledRun).
 */
import { fixedClock } from '../../shared/core/clock';
import type { Ledger } from '../../shared/ledger/ledger';
import { LocalLedger } from '../../shared/ledger/local-ledger';
import type { Credentials } from '../../shared/planning-api/credentials';
import { parseReportDefinition, type ReportDefinitionInput } from '../../shared/report/definition/definition';
import { LocalDirectoryStorage } from '../../shared/storage/local-storage';
import type { Storage } from '../../shared/storage/storage';
import { runOf } from './run-builder';

/** Where the run dies: before its n-th table copy (1-based), before `complete`, or before its note is taken off. */
export type CopyKillPoint = { readonly beforeCopy: number } | 'before-complete' | 'before-note-off';

export interface CopyKilledRun {
  readonly dir: string;
  readonly credentials: Credentials;
  readonly definition: ReportDefinitionInput;
  readonly runId: string;
  readonly at: string;
  readonly killAt: CopyKillPoint;
}

/** Says so, then waits for the SIGKILL. */
async function stop(): Promise<never> {
  process.stdout.write('stopped\n');
  // A timer keeps the event loop alive until the SIGKILL: a bare never-settling promise lets Node
  // exit on its own (code 13, unsettled top-level await) when nothing else is pending.
  setInterval(() => undefined, 60_000);
  return new Promise<never>(() => undefined);
}

/** The storage, stopping for good before its n-th copy into a table prefix. */
function dyingStorage(inner: Storage, copy: number): Storage {
  let copies = 0;
  return new Proxy(inner, {
    get(target, prop) {
      if (prop === 'copyObject') {
        return async (from: string, to: string, labels?: Readonly<Record<string, string>>) => {
          if (++copies === copy) await stop();
          return target.copyObject(from, to, labels);
        };
      }
      const value = Reflect.get(target, prop, target) as unknown;
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/** The ledger, stopping for good before the write `dies` picks out. */
function dyingLedger(inner: Ledger, dies: (key: string, value: unknown) => boolean): Ledger {
  return {
    get: (key) => inner.get(key),
    describe: () => inner.describe(),
    async put(key, value, expectedVersion, options) {
      if (dies(key, value)) await stop();
      return inner.put(key, value, expectedVersion, options);
    },
  };
}

function backend(job: CopyKilledRun): { storage: Storage; ledger: Ledger } {
  const storage = new LocalDirectoryStorage(job.dir);
  const ledger = new LocalLedger(`${job.dir}/.ledger`);
  const { killAt } = job;
  if (typeof killAt === 'object') return { storage: dyingStorage(storage, killAt.beforeCopy), ledger };
  const dies =
    killAt === 'before-complete'
      ? (key: string, value: unknown) => key.startsWith('run/') && (value as { status?: string }).status === 'complete'
      : (key: string, value: unknown) => key.startsWith('publishing/') && !(value as { runs: { runId: string }[] }).runs.some((r) => r.runId === job.runId);
  return { storage, ledger: dyingLedger(ledger, dies) };
}

async function main(job: CopyKilledRun): Promise<void> {
  await runOf(parseReportDefinition(job.definition)).withBackend(backend(job)).against(job.credentials).at(fixedClock(new Date(job.at))).withRunId(job.runId).export();
  process.stdout.write('finished\n');
}

await main(JSON.parse(process.argv[2] ?? '{}') as CopyKilledRun);
