import type { SESv2Client } from '@aws-sdk/client-sesv2';
import { silentLog } from '../../shared/core/logger';
import { systemClock } from '../../shared/core/clock';
import { errorMessage } from '../../shared/core/errors';
import { timerSleep } from '../../shared/core/retry/retry';
import { SesMailer } from '../../shared/email/ses-mailer';
import { runJob, type JobContext } from '../../shared/job/run-job';
import type { Ledger } from '../../shared/ledger/ledger';
import { accountMailPace, pacedMailer } from '../../shared/messages/paced-mailer';
import { resolveExportSettings } from '../../shared/report/definition/export-settings';
import { LocalDirectoryStorage } from '../../shared/storage/local-storage';
import { startSimulator, type RunningSimulator } from '../../simulator/index';
import { localJobDependencies } from './local-job';
import { MAILED_JOB_LINK_KEYS } from './mailed-jobs';
import { startSesLocal, type StoredMail } from './ses-local';
import { startRefusingSes } from './ses-refusals';

/**
 * A fleet of scheduled reports at one instant, run on this machine with the export's own job code
 * (`runJob`, the paced mailer, the tenant pace in the ledger): one simulator per tenant with a rate
 * limit (429 with Retry-After beyond it), SES with a sending rate (a throttle beyond it) in front of
 * aws-ses-v2-local, and a stand-in of Lambda's asynchronous invocation (asyncInvocations). The fleet
 * test (small) and `npm run bench -- --only fleet` (large) both run it.
 */
export interface FleetOptions {
  readonly reports: number;
  readonly tenants: number;
  /** Readers each report mails. */
  readonly readers: number;
  /** The account's concurrency cap the stand-in keeps (10 on a new account). */
  readonly concurrency: number;
  /** Each tenant's rate limit, requests a second (the exports' tenant pace is set to it). */
  readonly tenantRate: number;
  /** The account's sending rate, messages a second. */
  readonly sendRate: number;
  /** Where the runs write their files. */
  readonly dir: string;
  readonly ledger: Ledger;
}

export interface FleetFigures {
  readonly reports: number;
  /** Reports whose every reader got the report exactly once. */
  readonly deliveredOnce: number;
  /** Reports no reader got. */
  readonly lost: number;
  /** Reports some reader got twice or more. */
  readonly doubled: number;
  readonly readers: number;
  readonly readersMailedOnce: number;
  /** Failure notices the owners got. */
  readonly ownerNotices: number;
  readonly planningRequests: number;
  readonly planning429: number;
  /** SendEmail calls SES received, and how many it throttled. */
  readonly sends: number;
  readonly throttles: number;
  /** Function errors the stand-in retried, and events it gave up on after Lambda's two retries. */
  readonly retried: number;
  readonly failedEvents: number;
  /** From the instant to the last report delivered, and its lower bound (tenant rate, send rate, work ÷ cap). */
  readonly lastDeliveryMs: number;
  readonly lowerBoundMs: number;
  readonly bound: string;
}

const OWNER = 'owner@fleet.example.com';
const readerOf = (report: number, reader: number): string => `r${report}-${reader}@fleet.example.com`;

/** Report `k` of the fleet: the risks of its tenant as CSV, mailed to its readers, its owner told of a failure. */
function fleetReport(k: number, readers: number): Record<string, unknown> {
  const to = Array.from({ length: readers }, (_, i) => readerOf(k, i));
  return {
    name: `fleet-${String(k).padStart(4, '0')}`,
    title: `Fleet ${k}`,
    timeZone: 'UTC',
    datasets: { risks: {} },
    formats: ['csv'],
    email: { to, onFailure: [OWNER] },
  };
}

/** Runs the fleet once and counts what happened. */
export async function runFleet(options: FleetOptions): Promise<FleetFigures> {
  const sims = await Promise.all(
    Array.from({ length: options.tenants }, (_, t) =>
      startSimulator({ tenant: 'tiny', seed: t + 1, companyPrefix: `tenant${t}`, faults: { rateLimit: { perSecond: options.tenantRate } } }),
    ),
  );
  const ses = await startSesLocal();
  const front = await startRefusingSes(ses.endpoint);
  front.sendRate = { perSecond: options.sendRate, now: () => Date.now() };
  try {
    const reports = Array.from({ length: options.reports }, (_, k) => fleetReport(k, options.readers));
    const contexts = sims.map((sim) => fleetContext(sim, reports, options, front.client));
    const instant = systemClock();
    const work: number[] = [];
    const stats = await asyncInvocations(
      reports.map((_, k) => k),
      options.concurrency,
      async (k) => {
        const started = Date.now();
        const request = { report: `fleet-${String(k).padStart(4, '0')}`, source: 'schedule' as const, scheduledTime: instant.toISOString(), executionId: `fleet-${k}` };
        try {
          await runJob(request, contexts[k % options.tenants]!);
        } finally {
          work.push(Date.now() - started);
        }
      },
    );
    const mails = await ses.fetchStore();
    return countFleet({ options, mails, sims, sends: front.refused + mails.length, throttles: front.throttled, stats, work, instant: instant.getTime() });
  } finally {
    await front.close();
    await ses.close();
    await Promise.all(sims.map((s) => s.close()));
  }
}

function fleetContext(sim: RunningSimulator, reports: readonly Record<string, unknown>[], options: FleetOptions, sesClient: SESv2Client): JobContext {
  const now = (): number => Date.now();
  const pace = accountMailPace(options.ledger, () => Promise.resolve(options.sendRate), { now, pause: timerSleep, log: silentLog, fallbackRate: 1 });
  const mailer = pacedMailer(new SesMailer({ client: sesClient }), { pace, now, sleep: timerSleep, log: silentLog });
  const catalog = Object.fromEntries(reports.map((r) => [r.name as string, r]));
  return {
    ...localJobDependencies({
      dir: options.dir,
      sim,
      reports: catalog,
      now: systemClock,
      storage: new LocalDirectoryStorage(options.dir),
      ledger: options.ledger,
      context: { settings: resolveExportSettings({ ratePerSecond: options.tenantRate }) },
    }),
    mail: mailer,
    sender: 'reports@fleet.example.com',
    links: { baseUrl: 'https://api.fleet.example.com', keys: () => Promise.resolve(MAILED_JOB_LINK_KEYS) },
  };
}

export interface InvocationStats {
  readonly retried: number;
  readonly failed: number;
}

/**
 * Lambda's asynchronous invocation as a fleet meets it: every event is queued at once; at most
 * `concurrency` run at a time, the others wait in the queue (Lambda retries a throttled event until its
 * maximum age, 6 hours in the stack, so none is dropped; here they wait their turn, without Lambda's
 * backoff between throttles); a function error is retried twice, then the event is given up (the
 * stack's on-failure queue).
 */
export async function asyncInvocations<E>(events: readonly E[], concurrency: number, handler: (event: E) => Promise<void>): Promise<InvocationStats> {
  const queue = events.map((event) => ({ event, attempt: 1 }));
  let retried = 0;
  let failed = 0;
  const worker = async (): Promise<void> => {
    for (let next = queue.shift(); next; next = queue.shift()) {
      try {
        await handler(next.event);
      } catch (error) {
        if (next.attempt < 3) {
          retried += 1;
          queue.push({ event: next.event, attempt: next.attempt + 1 });
        } else {
          failed += 1;
          console.warn(`fleet: an event failed three times: ${errorMessage(error)}`);
        }
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, events.length) }, worker));
  return { retried, failed };
}

interface Counted {
  readonly options: FleetOptions;
  readonly mails: readonly StoredMail[];
  readonly sims: readonly RunningSimulator[];
  readonly sends: number;
  readonly throttles: number;
  readonly stats: InvocationStats;
  /** Each run's time in the function, ms. */
  readonly work: readonly number[];
  readonly instant: number;
}

/** The fleet's figures from what was mailed and what the servers logged. */
function countFleet(counted: Counted): FleetFigures {
  const { options, mails, sims } = counted;
  const received = new Map<string, number>();
  for (const mail of mails) for (const to of mail.destination.to.filter((a) => a !== OWNER)) received.set(to, (received.get(to) ?? 0) + 1);
  let deliveredOnce = 0;
  let lost = 0;
  let doubled = 0;
  let readersMailedOnce = 0;
  for (let k = 0; k < options.reports; k++) {
    const counts = Array.from({ length: options.readers }, (_, i) => received.get(readerOf(k, i)) ?? 0);
    readersMailedOnce += counts.filter((c) => c === 1).length;
    if (counts.every((c) => c === 1)) deliveredOnce += 1;
    if (counts.every((c) => c === 0)) lost += 1;
    if (counts.some((c) => c > 1)) doubled += 1;
  }
  const requests = sims.flatMap((s) => s.requests);
  const perTenant = sims.map((s) => s.requests.filter((r) => r.status !== 429).length);
  const bounds: [string, number][] = [
    ['tenant rate', (Math.max(...perTenant) / options.tenantRate) * 1000],
    ['send rate', (mails.length / options.sendRate) * 1000],
    ['work ÷ cap', counted.work.reduce((a, b) => a + b, 0) / options.concurrency],
  ];
  const [bound, lowerBoundMs] = bounds.reduce((a, b) => (b[1] > a[1] ? b : a));
  const last = Math.max(...mails.map((m) => m.at));
  return {
    reports: options.reports,
    deliveredOnce,
    lost,
    doubled,
    readers: options.reports * options.readers,
    readersMailedOnce,
    // The owners also hear of the API's unexported fields on a first run; only the failure notices count here.
    ownerNotices: mails.filter((m) => m.destination.to.includes(OWNER) && /is failing/i.test(m.subject)).length,
    planningRequests: requests.length,
    planning429: requests.filter((r) => r.status === 429).length,
    sends: counted.sends,
    throttles: counted.throttles,
    retried: counted.stats.retried,
    failedEvents: counted.stats.failed,
    lastDeliveryMs: last - counted.instant,
    lowerBoundMs,
    bound,
  };
}
