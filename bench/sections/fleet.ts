import { S3Client } from '@aws-sdk/client-s3';
import { DynamoDbLedger } from '../../shared/ledger/dynamodb-ledger';
import { S3Storage } from '../../shared/storage/s3-storage';
import { startDynalite } from '../../test/support/dynalite';
import { runFleet, type FleetEndpoints, type FleetFigures } from '../../test/support/fleet';
import { ratio, table, type SectionResult, type TargetCheck } from '../lib/common';
import { runWorker, startService } from '../lib/child';
import type { FleetReportInput } from '../workers/fleet-report';
import { LAMBDA_MEMORY_MB } from './e2e';

/**
 * Monday 07:00 for a fleet: every report of several tenants scheduled for one instant, each mailing
 * three readers and posting to one chat channel, run with the export's job code through a stand-in of
 * Lambda's asynchronous invocation (test/support/async-invocations.ts: the cap, throttled events backed
 * off as Lambda does) under a new account's concurrency cap (10) and a larger one, the tenants limited
 * to 20 requests a second (429 beyond), SES to 14 messages a second (throttle beyond), the pace in
 * dynalite, the files in s3rver. Counts what the issue asks: delivered once, lost, doubled, chat posts,
 * owners told, 429s and throttles as shares, the last delivery against its lower bound, and one export
 * function's peak memory (a fleet report more, run alone in a process of its own).
 */
export interface FleetSectionOptions {
  readonly reports: number;
  /** Tenants of small reports; the medium tenant and the fan-out's large one come beside them. */
  readonly tenants: number;
  /** Reports of the medium tenant, and whether one report of a large tenant hands over to the fan-out. */
  readonly mediumReports: number;
  readonly fanOut: boolean;
  readonly caps: readonly number[];
  /** What starts the runs: the stack's scheduled-runs queue (default) or Lambda's asynchronous invocation, as before it. */
  readonly engine: 'queue' | 'async';
}

export const DEFAULT_FLEET: FleetSectionOptions = { reports: 500, tenants: 5, mediumReports: 5, fanOut: true, caps: [10, 100], engine: 'queue' };
const TENANT_RATE = 20;
const SEND_RATE = 14;
const READERS = 3;
const MAX_SHARE = 0.05;
const MAX_BOUND_RATIO = 1.25;
/** Reports run alone after the fleet, one per tenant up to this many, for one function's memory. */
const PROBES = 3;

const QUEUE_STAND_IN =
  'The stand-in of the scheduled-runs queue (test/support/queue-invocations.ts) keeps the cap as the SQS event source\'s maximum concurrency does: a slot freed takes the next message at once; ' +
  'a receive that fails (a batch item failure) comes back after the visibility timeout (90 minutes: 6 × the function\'s 15) and goes to the dead-letter queue after 3 receives. "Queue stand-in" counts the failed receives retried and the messages dead-lettered. ';
const ASYNC_STAND_IN =
  "The stand-in of Lambda's asynchronous invocation (test/support/async-invocations.ts) keeps the cap: an event that finds it taken is throttled and tried again " +
  'after a backoff from 1 s doubling to 5 minutes (jittered: AWS does not say how; unjittered, every event throttled at the instant would retry at the same moments), ' +
  'for up to 6 hours; a slot freed between two tries stays idle until some event tries again, as in Lambda. "Lambda stand-in" counts the tries that found the cap taken, the function errors retried and the events given up (after two retries or 6 hours). ';

/** The fleet's reports by kind, for the section's first line. */
function fleetMix(options: FleetSectionOptions): string {
  const small = options.reports - options.mediumReports - (options.fanOut ? 1 : 0);
  const tenants = options.tenants + (options.mediumReports > 0 ? 1 : 0) + (options.fanOut ? 1 : 0);
  return [
    `${small} small ones of ${options.tenants} tenants (the simulator's tiny tenant: risks as CSV)`,
    ...(options.mediumReports > 0 ? [`${options.mediumReports} medium ones of one tenant (the simulator's demo company: risks and board items as CSV)`] : []),
    ...(options.fanOut ? ["one of a large tenant's (the demo company with 8 boards) that outgrew one function last week and hands over to the fan-out"] : []),
  ].join(', ') + ` (${tenants} tenants)`;
}

const percent = (part: number, whole: number): string => `${whole === 0 ? '0' : ((100 * part) / whole).toFixed(1)} %`;
const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

interface FleetRun extends FleetFigures {
  /** The bench process's peak RSS: every concurrent run and the in-process services. */
  readonly processPeakMb: number;
  /** The largest peak RSS and heap of one report run alone in its own process (one export function). */
  readonly functionPeakMb: number;
  readonly functionHeapMb: number;
  readonly probesFailed: number;
}

interface Probes {
  peakMb: number;
  heapMb: number;
  failed: number;
}

/** Runs reports past the fleet's, one at a time, each in a process of its own capped like the function. */
async function probeFunction(endpoints: FleetEndpoints, base: Omit<FleetReportInput, 'credentials' | 'sesEndpoint' | 'webhookBase' | 'report'>, first: number): Promise<Probes> {
  const probes: Probes = { peakMb: 0, heapMb: 0, failed: 0 };
  for (let i = 0; i < Math.min(PROBES, endpoints.credentials.length); i++) {
    const input: FleetReportInput = { ...base, credentials: endpoints.credentials[i]!, sesEndpoint: endpoints.sesEndpoint, webhookBase: endpoints.webhookBase, report: first + i };
    const outcome = await runWorker<{ status: string; heapPeakMb: number }>('workers/fleet-report.ts', input, { maxOldSpaceMb: LAMBDA_MEMORY_MB });
    if (!outcome.ok || outcome.result?.status !== 'succeeded') {
      probes.failed += 1;
      console.warn(`fleet: the memory probe's report did not succeed (${outcome.result?.status ?? `exit ${outcome.exitCode}`}): ${outcome.stderrTail}`);
    }
    probes.peakMb = Math.max(probes.peakMb, outcome.peakRssMb);
    probes.heapMb = Math.max(probes.heapMb, outcome.result?.heapPeakMb ?? 0);
  }
  return probes;
}

async function oneFleet(options: FleetSectionOptions, cap: number): Promise<FleetRun> {
  const dynamo = await startDynalite();
  // In a process of its own, as in the e2e section: its CPU and memory are not the fleet's.
  const s3 = await startService<{ endpoint: string; bucket: string }>('workers/s3-server.ts', { bucket: 'bench-fleet' });
  const s3Client = new S3Client({
    endpoint: s3.ready.endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  let peak = process.memoryUsage().rss;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 250);
  let probes: Probes = { peakMb: 0, heapMb: 0, failed: 0 };
  try {
    const ledger = new DynamoDbLedger({ client: dynamo.client, tableName: dynamo.tableName });
    const figures = await runFleet({
      reports: options.reports,
      tenants: options.tenants,
      mediumReports: options.mediumReports,
      fanOut: options.fanOut,
      readers: READERS,
      concurrency: cap,
      engine: options.engine,
      tenantRate: TENANT_RATE,
      sendRate: SEND_RATE,
      storage: new S3Storage({ client: s3Client, bucket: s3.ready.bucket, prefix: 'fleet' }),
      ledger,
      afterCount: async (endpoints) => {
        clearInterval(sampler);
        const base = { dynamo: { endpoint: dynamo.endpoint, tableName: dynamo.tableName }, s3: s3.ready, tenantRate: TENANT_RATE, sendRate: SEND_RATE, readers: READERS };
        probes = await probeFunction(endpoints, base, options.reports);
      },
    });
    return { ...figures, processPeakMb: Math.round(peak / 2 ** 20), functionPeakMb: probes.peakMb, functionHeapMb: probes.heapMb, probesFailed: probes.failed };
  } finally {
    clearInterval(sampler);
    s3Client.destroy();
    await s3.service.close();
    await dynamo.close();
  }
}

export async function runFleetSection(options: FleetSectionOptions = DEFAULT_FLEET): Promise<SectionResult> {
  const started = performance.now();
  const runs: { cap: number; f: FleetRun }[] = [];
  for (const cap of options.caps) runs.push({ cap, f: await oneFleet(options, cap) });
  const rows = runs.map(({ cap, f }) => [
    String(cap),
    `${f.deliveredOnce} / ${f.reports}`,
    String(f.lost),
    String(f.doubled),
    `${f.readersMailedOnce} / ${f.readers}`,
    `${f.chatOnce} / ${f.reports} (${f.chatLost} lost, ${f.chatDoubled} doubled)`,
    String(f.ownerNotices),
    `${f.planning429} of ${f.planningRequests} (${percent(f.planning429, f.planningRequests)})`,
    `${f.throttles} of ${f.sends} (${percent(f.throttles, f.sends)})`,
    options.engine === 'queue'
      ? `${f.retried} failed receives retried, ${f.failedEvents} dead-lettered`
      : `${f.lambdaThrottles} throttled tries, ${f.retried} function errors retried, ${f.failedEvents + f.expiredEvents} given up`,
    `${seconds(f.lastDeliveryMs)} vs ${seconds(f.lowerBoundMs)} (${f.bound}): ${ratio(f.lastDeliveryMs / f.lowerBoundMs)}`,
    f.fanOuts > 0 ? `${f.fanOuts} started, ${seconds(f.fanOutMs)}` : 'none',
    `${f.functionPeakMb} MB (heap ${f.functionHeapMb} MB)`,
    `${f.processPeakMb} MB`,
  ]);
  const told = runs.flatMap(({ cap, f }) => [...new Set(f.ownerNoticeSubjects)].map((subject) => `cap ${cap}: ${f.ownerNoticeSubjects.filter((x) => x === subject).length} × “${subject}”`));
  for (const { cap, f } of runs) {
    const w = f.mailWakes;
    console.warn(`fleet: cap ${cap}: mail waits woke late by p50 ${w.p50.toFixed(0)} ms, p99 ${w.p99.toFixed(0)} ms, max ${w.max.toFixed(0)} ms; ${w.lateByAMoment} of ${w.count} a moment or more; the SES client's own resends ${f.sdkResends}, ${f.sdkResendsThrottled} of them throttled`);
  }
  for (const line of told) console.warn(`fleet: an owner was told: ${line}`);
  // Each failed try of a run, with the causes behind it: what a retry hid, for the next one to fix.
  const failures = runs.flatMap(({ cap, f }) => f.failures.map((x) => `cap ${cap}: ${x.event}, try ${x.attempt} at ${seconds(x.atMs)}: ${x.error}`));
  for (const line of failures) console.warn(`fleet: a run failed: ${line}`);
  const markdown = [
    `${options.reports} reports: ${fleetMix(options)}, every one scheduled for the same instant, each mailing ${READERS} readers and posting to one chat channel (Slack for half, Teams for the other half, on a local webhook stand-in); ` +
      `tenants limited to ${TENANT_RATE} requests a second, SES to ${SEND_RATE} messages a second; the runs' pace in dynalite, the files in s3rver (its own process). ` +
      (options.engine === 'queue'
        ? "The runs start as the stack starts them: each schedule's message on the scheduled-runs queue, the export function's queue door taking them one at a time through the event source's maximum concurrency (the cap). "
        : "The runs start through Lambda's asynchronous invocation, as before the scheduled-runs queue (`--fleet-engine async`). ") +
      'One run of the bench per cap:',
    '',
    table(
      ['cap', 'delivered once', 'lost', 'doubled', 'readers mailed once', 'chat posted once', 'owners told', '429s', 'mail throttles', options.engine === 'queue' ? 'queue stand-in' : 'Lambda stand-in', 'last delivery vs lower bound', 'fan-out', 'export function peak', 'bench process peak'],
      rows,
    ),
    '',
    "The lower bound is the largest of: the busiest tenant's requests ÷ its rate, the e-mails ÷ the send rate, the summed time of the runs ÷ the cap, the fan-out's own time (it starts at the instant at the earliest). " +
      (options.engine === 'queue' ? QUEUE_STAND_IN : ASYNC_STAND_IN) +
      `"Export function peak" is one function's memory: after each fleet, ${PROBES} reports more of the fleet's kind run one at a time, each alone in a fresh Node process ` +
      `(bundled, \`--max-old-space-size=${LAMBDA_MEMORY_MB}\`) against the same services, and the largest peak RSS is shown, with the largest heap in use sampled every 10 ms; ` +
      "Lambda's runtime adds its own tens of MB. The probes are small reports; the fan-out's report runs its steps (plan, workers, assembler: test/support/fleet-fan-out.ts, the project's local driver) in the bench process beside the cap, as the state machine's own functions run beside the export function's; their peaks are in the fan-out's own section. " +
      '"Bench process peak" is the RSS of the process that runs the whole fleet at the cap (every concurrent run, the simulators, dynalite, SES and the webhook stand-in), not a function\'s. ' +
      '`--fleet-reports` sets the size, `--fleet-caps` the caps, `--fleet-engine async` runs the runs through asynchronous invocation instead.',
    '',
    'How late the mailer\'s waits for their moments woke (the event loop of a loaded machine; a wait more than a moment late takes a fresh moment), and the SES client\'s own resends (the SDK\'s retries, not paced): ' +
      runs.map(({ cap, f }) => `cap ${cap}: p50 ${f.mailWakes.p50.toFixed(0)} ms, p99 ${f.mailWakes.p99.toFixed(0)} ms, max ${f.mailWakes.max.toFixed(0)} ms, ${f.mailWakes.lateByAMoment} of ${f.mailWakes.count} waits a moment or more late; ${f.sdkResends} resends, ${f.sdkResendsThrottled} of them throttled`).join('; ') + '.',
    ...(told.length > 0 ? ['', `What the owners were told: ${told.join('; ')}.`] : []),
    ...(failures.length > 0 ? ['', 'Runs that failed a try (the error and the causes behind it):', '', ...failures.map((line) => `- ${line}`)] : []),
  ].join('\n');
  const targets: TargetCheck[] = runs.flatMap(({ cap, f }) => {
    const boundRatio = f.lastDeliveryMs / f.lowerBoundMs;
    const exact = f.lost === 0 && f.doubled === 0 && f.readersMailedOnce === f.readers && f.ownerNotices === 0 && f.chatOnce === f.reports;
    const memoryMet = f.probesFailed === 0 && f.functionPeakMb > 0 && f.functionPeakMb <= LAMBDA_MEMORY_MB;
    return [
      {
        target: `Fleet (cap ${cap}): 0 lost, 0 doubled, every reader and chat channel once, 0 owners told`,
        measured: `${f.reports - f.deliveredOnce} not exactly once, ${f.reports - f.chatOnce} chat posts not once, ${f.ownerNotices} told (${f.reports} reports)`,
        met: exact,
        ...(!exact && { gap: `${f.lost} lost, ${f.doubled} doubled; chat ${f.chatLost} lost, ${f.chatDoubled} doubled` }),
      },
      {
        target: `Fleet (cap ${cap}): 429s and mail throttles ≤ 5 %`,
        measured: `${percent(f.planning429, f.planningRequests)} and ${percent(f.throttles, f.sends)}`,
        met: f.planning429 <= MAX_SHARE * f.planningRequests && f.throttles <= MAX_SHARE * f.sends,
      },
      {
        target: `Fleet (cap ${cap}): last delivery ≤ ${MAX_BOUND_RATIO}× its lower bound`,
        measured: `${seconds(f.lastDeliveryMs)} vs ${seconds(f.lowerBoundMs)} (${ratio(boundRatio)})`,
        met: boundRatio <= MAX_BOUND_RATIO,
        ...(boundRatio > MAX_BOUND_RATIO && { gap: `${ratio(boundRatio)} > ${MAX_BOUND_RATIO}×` }),
      },
      {
        target: `Fleet (cap ${cap}): every function ≤ ${LAMBDA_MEMORY_MB.toLocaleString('en-US')} MB`,
        measured: `export function ${f.functionPeakMb} MB peak RSS (one report alone, largest of ${PROBES})${f.probesFailed > 0 ? `, ${f.probesFailed} probe(s) failed` : ''}`,
        met: memoryMet,
      },
    ];
  });
  return { id: 'fleet', title: 'Fleet: Monday 07:00', markdown, targets, durationMs: performance.now() - started };
}
