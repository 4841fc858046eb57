import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import type { Clock } from '../../shared/core/clock';
import { SesMailer } from '../../shared/email/ses-mailer';
import type { JobContext } from '../../shared/job/run-job';
import { LocalLedger } from '../../shared/ledger/local-ledger';
import { LocalDirectoryStorage } from '../../shared/storage/local-storage';
import { startSimulator, type RunningSimulator } from '../../simulator/index';
import { localJobDependencies } from './local-job';
import { startSesLocal, type SesLocalHandle, type StoredMail } from './ses-local';
import { startRefusingSes, type RefusingSes } from './ses-refusals';
import { startWebhookRecorder, type WebhookRecorder } from './webhook-recorder';

/** The link key set of the mailed jobs (their e-mails carry signed links). */
export const MAILED_JOB_LINK_KEYS = { current: { id: 'k1', secret: 'a'.repeat(48) } };

/** What a test of e-mailed scheduled jobs reads; set once the hooks have run. */
export interface MailedJobs {
  readonly sim: RunningSimulator;
  readonly ses: SesLocalHandle;
  /** This test's folder: the run's files, and the ledger in `.ledger`. */
  readonly dir: string;
  readonly ledger: LocalLedger;
  /** A local job at `now` over this test's folder and ledger, e-mailing through aws-ses-v2-local as reports@example.test. */
  deps(reports: Readonly<Record<string, unknown>>, now: Clock): JobContext;
  /** The mails one address received. */
  mailsTo(address: string): Promise<StoredMail[]>;
}

/**
 * Registers the hooks of a file of e-mailed scheduled jobs: the simulator and aws-ses-v2-local for the
 * file; for each test a fresh folder and ledger, an empty mail store, and no injected fault afterwards,
 * so no test depends on what another left behind.
 */
export function useMailedJobs(folderPrefix: string): MailedJobs {
  let sim: RunningSimulator | undefined;
  let ses: SesLocalHandle | undefined;
  let dir: string | undefined;
  let ledger: LocalLedger | undefined;
  const started = <T>(value: T | undefined): T => afterHooks(value, 'useMailedJobs');
  beforeAll(async () => {
    sim = await startSimulator({ tenant: 'tiny' });
    ses = await startSesLocal();
  });
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), folderPrefix));
    ledger = new LocalLedger(join(dir, '.ledger'));
    await started(ses).clearStore();
  });
  afterEach(async () => {
    sim?.clearInjectedFaults();
    if (dir) await rm(dir, { recursive: true, force: true });
  });
  afterAll(async () => {
    await Promise.all([sim?.close(), ses?.close()]);
  });
  return {
    get sim() {
      return started(sim);
    },
    get ses() {
      return started(ses);
    },
    get dir() {
      return started(dir);
    },
    get ledger() {
      return started(ledger);
    },
    deps(reports, now) {
      const mailer = new SesMailer({ client: started(ses).client });
      const folder = started(dir);
      return {
        ...localJobDependencies({ dir: folder, sim: started(sim), reports, clock: now, storage: new LocalDirectoryStorage(folder), ledger: started(ledger) }),
        mail: { send: (email) => mailer.send(email) },
        sender: 'reports@example.test',
        links: { baseUrl: 'https://api.example.test', keys: () => Promise.resolve(MAILED_JOB_LINK_KEYS) },
      };
    },
    async mailsTo(address) {
      return (await started(ses).fetchStore()).filter((m) => m.destination.to.includes(address));
    },
  };
}

/** Anna reads the report's English, Jonas German: the readers of the tests of a report read in two languages. */
export const TWO_LANGUAGE_READERS: readonly unknown[] = [{ address: 'anna@example.test', locale: 'en-GB' }, { address: 'jonas@example.test', locale: 'de-DE' }];

/** A small report in en-GB mailed to `readers` (Anna and Jonas by default), with what a test adds. */
export function twoLanguageReport(more: Record<string, unknown> = {}, readers: readonly unknown[] = TWO_LANGUAGE_READERS) {
  return { name: 'two-languages', title: 'Train A', datasets: { risks: {} }, formats: ['csv'], locale: 'en-GB', email: { to: [...readers] }, ...more };
}

/**
 * The mailed-jobs kit behind a mail front that refuses the addresses a test names
 * and a recorded chat webhook, started and closed around the file: for the tests of who is told what
 * when a delivery partly fails. `ses` and `hooks` are read after the file's servers started.
 */
export function useRefusedDelivery(prefix: string): { readonly jobs: MailedJobs; readonly ses: RefusingSes; readonly hooks: WebhookRecorder } {
  const jobs = useMailedJobs(prefix);
  let ses: RefusingSes | undefined;
  let hooks: WebhookRecorder | undefined;
  beforeAll(async () => {
    ses = await startRefusingSes(jobs.ses.endpoint);
    hooks = await startWebhookRecorder();
  });
  afterAll(async () => {
    await Promise.all([ses?.close(), hooks?.close()]);
  });
  return {
    jobs,
    get ses() {
      return afterHooks(ses, "useRefusedDelivery's refusing mail front");
    },
    get hooks() {
      return afterHooks(hooks, "useRefusedDelivery's webhook recorder");
    },
  };
}

/** A server or folder the kit's hooks start: read inside a test, after they ran, or a clear error. */
function afterHooks<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`${what}: read it inside a test, after its hooks ran`);
  return value;
}
