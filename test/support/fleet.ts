import { systemClock } from '../../shared/core/clock';
import type { Ledger } from '../../shared/ledger/ledger';
import { countAttempt, LAMBDA_ASYNC_ATTEMPTS, type RunAttempt } from '../../shared/job/attempt';
import type { ExportJobRequest } from '../../shared/job/request';
import { runJob } from '../../shared/job/run-job';
import type { Storage } from '../../shared/storage/storage';
import { PRESETS, startSimulator, type RunningSimulator, type TenantPreset, type TenantShape } from '../../simulator/index';
import { DEFAULT_FAN_OUT_ROWS } from '../../shared/core/defaults';
import { noteOutgrown } from '../../shared/report/run/run-route';
import { fleetFanOut, type FleetFanOut } from './fleet-fan-out';
import { silentLog } from '../../shared/core/logger';
import type { JobContext } from '../../shared/job/run-job';
import { queuedRunsSchema, runQueuedJobs } from '../../shared/job/queue-door';
import { asyncInvocations, type AsyncInvocationOptions, type InvocationFailure, type InvocationStats } from './async-invocations';
import { sqsEvent } from './lambda-events';
import { queueInvocations, type QueueInvocationOptions } from './queue-invocations';
import { FLEET_OWNER, fleetChannelPath, fleetJobContext, fleetSesClient, fleetReaderOf, fleetReport, fleetReportName, type FleetReportKind, type FleetServices } from './fleet-context';
import { startSesLocal, type StoredMail } from './ses-local';
import { startRefusingSes } from './ses-refusals';
import { startWebhookRecorder, type RecordedPost } from './webhook-recorder';

/**
 * A fleet of scheduled reports at one instant, run on this machine with the export's own job code
 * (`runJob`, the paced mailer, the tenant pace in the ledger, the chat channels' poster): one simulator
 * per tenant with a rate limit (429 with Retry-After beyond it), SES with a sending rate (a throttle
 * beyond it) in front of aws-ses-v2-local, Slack and Teams webhook stand-ins on one local HTTP server,
 * and a stand-in of what starts the runs: the stack's scheduled-runs queue with its event source's maximum
 * concurrency (queue-invocations.ts, through the export function's own queue door), or Lambda's
 * asynchronous invocation as before the queue (async-invocations.ts). The fleet test (small) and
 * `npm run bench -- --only fleet` (large) both run it.
 */
export interface FleetOptions {
  /** Reports in all, the medium ones and the fan-out's among them (the last ones). */
  readonly reports: number;
  /** Tenants of small reports (the simulator's tiny tenant each). */
  readonly tenants: number;
  /** Reports of one tenant more, a medium one (the simulator's demo company: risks and board items); default none. */
  readonly mediumReports?: number;
  /**
   * Whether the fleet's last report is of a large tenant's that hands over to the fan-out: it outgrew
   * one function last week (the route's note), so its scheduled run starts the fan-out, whose steps
   * run with the local driver beside the cap (fleet-fan-out.ts). Default no.
   */
  readonly fanOut?: boolean;
  /** The medium and the large tenant's sizes (default: the demo company, and it with twice its boards); the test's are smaller, to stay fast. */
  readonly shapes?: { readonly medium?: TenantPreset | Partial<TenantShape>; readonly large?: TenantPreset | Partial<TenantShape> };
  /** Readers each report mails. */
  readonly readers: number;
  /** Runs at once: the queue's maximum concurrency, or the account's cap Lambda's asynchronous invocation meets (10 on a new account). */
  readonly concurrency: number;
  /** What starts the runs: the scheduled-runs queue (the stack's way, the default) or asynchronous invocation. */
  readonly engine?: 'queue' | 'async';
  /** The queue's visibility timeout and receives (default: the stack's). */
  readonly queue?: Omit<QueueInvocationOptions, 'maxConcurrency'>;
  /** Each tenant's rate limit, requests a second (the exports' tenant pace is set to it). */
  readonly tenantRate: number;
  /** The account's sending rate, messages a second. */
  readonly sendRate: number;
  /** Where the runs write their files (the test: a folder; the bench: s3rver). */
  readonly storage: Storage;
  readonly ledger: Ledger;
  /** The stand-in's time and Lambda's backoff (default: the wall clock and Lambda's figures). */
  readonly invocation?: AsyncInvocationOptions;
  /**
   * Called once the fleet is counted, with the services still up: the bench runs a report more in a
   * process of its own there, to measure one function's memory.
   */
  readonly afterCount?: (endpoints: FleetEndpoints) => Promise<void>;
}

/** Where the fleet's services listen, for a run in another process. */
export interface FleetEndpoints {
  /** Each tenant's simulator credentials (their URLs). */
  readonly credentials: readonly FleetServices['credentials'][];
  /** SES with its sending rate. */
  readonly sesEndpoint: string;
  readonly webhookBase: string;
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
  /** Failure notices the owners got, and their subjects with the reason each gives. */
  readonly ownerNotices: number;
  readonly ownerNoticeSubjects: readonly string[];
  readonly planningRequests: number;
  readonly planning429: number;
  /** SendEmail calls SES received, and how many it throttled. */
  readonly sends: number;
  readonly throttles: number;
  /** Sends that were the SES client's own retries, and how many of those SES throttled. */
  readonly sdkResends: number;
  readonly sdkResendsThrottled: number;
  /** How late the mailer's waits for their moments woke, ms: the median, the 99th percentile, the latest, and how many woke a moment (1 s ÷ send rate) or more late. */
  readonly mailWakes: { readonly count: number; readonly p50: number; readonly p99: number; readonly max: number; readonly lateByAMoment: number };
  /** Chat posts: reports whose channel got exactly one post, none, two or more. */
  readonly chatOnce: number;
  readonly chatLost: number;
  readonly chatDoubled: number;
  /** Function errors the stand-in retried, and events it gave up on after Lambda's two retries. */
  readonly retried: number;
  readonly failedEvents: number;
  /** Every failed try (the event named by its report), with its error and the causes behind it. */
  readonly failures: readonly InvocationFailure[];
  /** Tries that found the concurrency cap taken, and events that aged out of the stand-in's queue. */
  readonly lambdaThrottles: number;
  readonly expiredEvents: number;
  /** From the instant to the last report delivered, and its lower bound (tenant rate, send rate, work ÷ cap). */
  readonly lastDeliveryMs: number;
  readonly lowerBoundMs: number;
  readonly bound: string;
  /** Fan-outs started (once per run), and the longest one's time from its start to its assembler's end. */
  readonly fanOuts: number;
  readonly fanOutMs: number;
}

/** The medium tenant: the simulator's demo company (4 boards of 150 features, 120 risks). */
const MEDIUM_TENANT: TenantPreset = 'demo';
/** The tenant that hands over to the fan-out: the demo company with twice its boards (8: 4 workers of 2 boards). */
const LARGE_TENANT: Partial<TenantShape> = { ...PRESETS.demo, boards: 8 };

/** Which report is of which kind and tenant: the small ones first, round the small tenants, then the medium ones, then the fan-out's. */
interface FleetLayout {
  readonly kinds: readonly FleetReportKind[];
  readonly shapes: readonly (TenantPreset | Partial<TenantShape>)[];
  tenantOf(k: number): number;
}

function fleetLayout(options: FleetOptions): FleetLayout {
  const medium = options.mediumReports ?? 0;
  const fanOut = options.fanOut ? 1 : 0;
  const small = options.reports - medium - fanOut;
  if (small < 0) throw new Error(`a fleet of ${options.reports} reports cannot hold ${medium} medium ones and ${fanOut} fan-out`);
  const kinds = Array.from({ length: options.reports }, (_, k): FleetReportKind => (k < small ? 'small' : k < small + medium ? 'medium' : 'fan-out'));
  const shapes = [...Array.from({ length: options.tenants }, () => 'tiny' as const), ...(medium > 0 ? [options.shapes?.medium ?? MEDIUM_TENANT] : []), ...(fanOut > 0 ? [options.shapes?.large ?? LARGE_TENANT] : [])];
  const tenantOf = (k: number): number => (kinds[k] === 'small' ? k % options.tenants : kinds[k] === 'medium' ? options.tenants : shapes.length - 1);
  return { kinds, shapes, tenantOf };
}

/** Runs the fleet once and counts what happened. */
export async function runFleet(options: FleetOptions): Promise<FleetFigures> {
  const layout = fleetLayout(options);
  // The fleet counts deliveries, slots and throttles, which no field name changes: named, so the
  // docs-vocabulary project leaves its test out (test-tiers.ts), where it ran again to prove the same (9 s of the last CI).
  const sims = await Promise.all(
    layout.shapes.map((tenant, t) =>
      startSimulator({ tenant, seed: t + 1, companyPrefix: `tenant${t}`, vocabulary: 'contract', faults: { rateLimit: { perSecond: options.tenantRate } } }),
    ),
  );
  const ses = await startSesLocal();
  const front = await startRefusingSes(ses.endpoint);
  front.sendRate = { perSecond: options.sendRate, now: () => Date.now() };
  const hooks = await startWebhookRecorder();
  const sesClient = fleetSesClient(front.endpoint);
  try {
    const reports = layout.kinds.map((kind, k) => fleetReport(k, options.readers, kind));
    // When each report message went out, as the mailer saw SES accept it (the mail store keeps whole seconds only).
    const sentAt: number[] = [];
    const wakes: number[] = [];
    const webhookBase = hooks.url('').replace(/\/$/, '');
    const instant = systemClock();
    const contexts = sims.map((sim) =>
      fleetJobContext({ credentials: sim.credentials(), reports, storage: options.storage, ledger: options.ledger, ses: sesClient, webhookBase, tenantRate: options.tenantRate, sendRate: options.sendRate, onSent: (at) => sentAt.push(at), onWake: (late) => wakes.push(late) }),
    );
    const fanOut = await fanOutRoute(options, layout, contexts, instant);
    const work: number[] = [];
    const timed = async <T>(run: () => Promise<T>): Promise<T> => {
      const started = Date.now();
      try {
        return await run();
      } finally {
        work.push(Date.now() - started);
      }
    };
    const request = (k: number) => ({ report: fleetReportName(k), source: 'schedule' as const, scheduledTime: instant.toISOString(), executionId: `fleet-${k}` });
    const contextOf = (k: number) => contexts[layout.tenantOf(k)]!;
    const invoked =
      (options.engine ?? 'queue') === 'queue'
        ? await queued(reports.length, options, (k, receiveCount) => timed(() => throughQueueDoor(request(k), receiveCount, contextOf(k))))
        : await asyncInvocations(reports.map((_, k) => k), options.concurrency, (k) => timed(() => asInvoked(request(k), contextOf(k), options.ledger)), options.invocation);
    // The fan-out's functions run beside the cap; the fleet is done when its assembler is.
    await fanOut?.settled();
    const stats = { ...invoked, failures: [...invoked.failures, ...(fanOut?.failures ?? [])] };
    const mails = await ses.fetchStore();
    const figures = {
      ...countFleet({ options, mails, posts: hooks.posts, sims, sends: front.refused + mails.length, throttles: front.throttled, stats, work, instant: instant.getTime(), sentAt, fanOuts: fanOut?.runs ?? [] }),
      sdkResends: front.sdkRetries,
      sdkResendsThrottled: front.sdkRetriesThrottled,
      mailWakes: wakeFigures(wakes, 1000 / options.sendRate),
    };
    await options.afterCount?.({ credentials: sims.slice(0, options.tenants).map((s) => s.credentials()), sesEndpoint: front.endpoint, webhookBase });
    return figures;
  } finally {
    sesClient.destroy();
    await hooks.close();
    await front.close();
    await ses.close();
    await Promise.all(sims.map((s) => s.close()));
  }
}

/**
 * The route to the fan-out for the large tenant's function (the others have none: they never hand
 * over), with its report noted as outgrown a week before the instant, as its last week's run that did
 * not fit one function would have noted it; the state machine's stand-in runs the steps with that
 * tenant's context. Undefined when the fleet has no fan-out report.
 */
async function fanOutRoute(options: FleetOptions, layout: FleetLayout, contexts: JobContext[], instant: Date): Promise<FleetFanOut | undefined> {
  const k = layout.kinds.indexOf('fan-out');
  if (k < 0) return undefined;
  const t = layout.tenantOf(k);
  const base = contexts[t]!;
  const lastWeek = new Date(instant.getTime() - 7 * 86_400_000);
  await noteOutgrown({ report: fleetReportName(k), runId: 'last-week' }, lastWeek.toISOString(), { ledger: options.ledger, clock: () => lastWeek });
  const starter = fleetFanOut(() => base, instant.getTime());
  contexts[t] = { ...base, fanOut: { starter, rows: DEFAULT_FAN_OUT_ROWS } };
  return starter;
}

/** The runs through the scheduled-runs queue's stand-in, counted as the async stand-in counts (no throttles: the queue holds the runs). */
async function queued(reports: number, options: FleetOptions, receive: (k: number, receiveCount: number) => Promise<void>): Promise<InvocationStats> {
  const stats = await queueInvocations([...Array(reports).keys()], receive, { ...options.queue, maxConcurrency: options.concurrency });
  return { retried: stats.retried, failed: stats.deadLettered, throttles: 0, expired: 0, failures: stats.failures };
}

/**
 * One receive of a run's message through the export function's queue door (shared/job/queue-door.ts):
 * the message Scheduler would have sent, the attempt its receive count makes passed down to the job.
 * A batch item failure is thrown (with the run's error as its cause) so the stand-in keeps the message.
 */
async function throughQueueDoor(request: Record<string, unknown>, receiveCount: number, context: JobContext): Promise<void> {
  const event = queuedRunsSchema.parse(sqsEvent(request, receiveCount));
  let failure: unknown;
  const run = (job: Parameters<typeof runJob>[0], attempt: RunAttempt) =>
    runJob(job, { ...context, attempt }).catch((error: unknown) => {
      failure = error;
      throw error;
    });
  const answer = await runQueuedJobs(event, run, silentLog);
  if (answer.batchItemFailures.length > 0) throw new Error(`batch item failure on receive ${receiveCount}`, { cause: failure });
}

/** One asynchronous invocation as the export function's door runs it: the attempt counted in the ledger, so only the last tells the owners of a retryable failure. */
async function asInvoked(request: ExportJobRequest, context: JobContext, ledger: Ledger): Promise<void> {
  const attempt = await countAttempt(request, { ledger, clock: systemClock }, LAMBDA_ASYNC_ATTEMPTS);
  await runJob(request, { ...context, attempt });
}

interface Counted {
  readonly options: FleetOptions;
  readonly mails: readonly StoredMail[];
  readonly posts: readonly RecordedPost[];
  readonly sims: readonly RunningSimulator[];
  readonly sends: number;
  readonly throttles: number;
  readonly stats: InvocationStats;
  /** Each run's time in the function, ms. */
  readonly work: readonly number[];
  readonly instant: number;
  readonly sentAt: readonly number[];
  readonly fanOuts: readonly { readonly wallMs: number }[];
}

/** How late the mailer's waits woke (ms), summed up. */
function wakeFigures(wakes: readonly number[], momentMs: number): FleetFigures['mailWakes'] {
  const sorted = [...wakes].sort((a, b) => a - b);
  const at = (q: number): number => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  return { count: sorted.length, p50: at(0.5), p99: at(0.99), max: sorted.at(-1) ?? 0, lateByAMoment: sorted.filter((w) => w >= momentMs).length };
}

/** The fleet's figures from what was mailed and what the servers logged. */
function countFleet(counted: Counted): Omit<FleetFigures, 'sdkResends' | 'sdkResendsThrottled' | 'mailWakes'> {
  const { options, mails, sims } = counted;
  const received = new Map<string, number>();
  for (const mail of mails) for (const to of mail.destination.to.filter((a) => a !== FLEET_OWNER)) received.set(to, (received.get(to) ?? 0) + 1);
  const posted = new Map<string, number>();
  // A post the stand-in refused (its checks of Slack's and Teams' limits) is not in the channel.
  for (const post of counted.posts.filter((p) => p.problems.length === 0)) posted.set(post.path, (posted.get(post.path) ?? 0) + 1);
  const chat = { once: 0, lost: 0, doubled: 0 };
  let deliveredOnce = 0;
  let lost = 0;
  let doubled = 0;
  let readersMailedOnce = 0;
  for (let k = 0; k < options.reports; k++) {
    const posts = posted.get(`/${fleetChannelPath(k)}`) ?? 0;
    if (posts === 1) chat.once += 1;
    else if (posts === 0) chat.lost += 1;
    else chat.doubled += 1;
    const counts = Array.from({ length: options.readers }, (_, i) => received.get(fleetReaderOf(k, i)) ?? 0);
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
    // A run's time includes its waits for the paces, so this bound is generous when the rates bind.
    ['work ÷ cap', counted.work.reduce((a, b) => a + b, 0) / options.concurrency],
    // The fan-out starts at the instant at the earliest: its own time (plan, workers, assembler) bounds the last delivery too.
    ['fan-out run', Math.max(0, ...counted.fanOuts.map((f) => f.wallMs))],
  ];
  const [bound, lowerBoundMs] = bounds.reduce((a, b) => (b[1] > a[1] ? b : a));
  const last = Math.max(...counted.sentAt);
  // The owners also hear of the API's unexported fields on a first run; only the failure notices (of a run or of a channel) count here.
  const notices = mails.filter((m) => m.destination.to.includes(FLEET_OWNER) && /is failing/i.test(m.subject));
  return {
    reports: options.reports,
    deliveredOnce,
    lost,
    doubled,
    readers: options.reports * options.readers,
    readersMailedOnce,
    ownerNotices: notices.length,
    // The subject, and the reason its body gives ("What failed: …"), so a bench run says what went wrong.
    ownerNoticeSubjects: notices.map((m) => [m.subject, /What failed: (.*)/.exec(m.body.text ?? '')?.[1]].filter(Boolean).join(': ')),
    planningRequests: requests.length,
    planning429: requests.filter((r) => r.status === 429).length,
    sends: counted.sends,
    throttles: counted.throttles,
    chatOnce: chat.once,
    chatLost: chat.lost,
    chatDoubled: chat.doubled,
    retried: counted.stats.retried,
    failedEvents: counted.stats.failed,
    failures: counted.stats.failures.map((f) => ({ ...f, event: fleetReportName(Number(f.event)) })),
    lambdaThrottles: counted.stats.throttles,
    expiredEvents: counted.stats.expired,
    lastDeliveryMs: last - counted.instant,
    lowerBoundMs,
    bound,
    fanOuts: counted.fanOuts.length,
    fanOutMs: Math.max(0, ...counted.fanOuts.map((f) => f.wallMs)),
  };
}
