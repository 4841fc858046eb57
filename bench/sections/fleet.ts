import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDbLedger } from '../../shared/ledger/dynamodb-ledger';
import { startDynalite } from '../../test/support/dynalite';
import { runFleet, type FleetFigures } from '../../test/support/fleet';
import { ratio, table, type SectionResult, type TargetCheck } from '../lib/common';

/**
 * Monday 07:00 for a fleet: every report of several tenants scheduled for one instant, each mailing
 * three readers, run with the export's job code through a stand-in of Lambda's asynchronous invocation
 * (test/support/fleet.ts) under a new account's concurrency cap (10) and a larger one, the tenants
 * limited to 20 requests a second (429 beyond), SES to 14 messages a second (throttle beyond), the
 * pace kept in dynalite. Counts what the issue asks: delivered once, lost, doubled, owners told,
 * 429s and throttles as shares, the last delivery against its lower bound.
 */
export interface FleetSectionOptions {
  readonly reports: number;
  readonly tenants: number;
  readonly caps: readonly number[];
}

export const DEFAULT_FLEET: FleetSectionOptions = { reports: 500, tenants: 5, caps: [10, 100] };
const TENANT_RATE = 20;
const SEND_RATE = 14;
const READERS = 3;
const MAX_SHARE = 0.05;
const MAX_BOUND_RATIO = 1.25;

const percent = (part: number, whole: number): string => `${whole === 0 ? '0' : ((100 * part) / whole).toFixed(1)} %`;
const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

async function oneFleet(options: FleetSectionOptions, cap: number): Promise<FleetFigures & { peakRssMb: number }> {
  const dir = await mkdtemp(join(tmpdir(), 'bench-fleet-'));
  const dynamo = await startDynalite();
  let peak = process.memoryUsage().rss;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 250);
  try {
    const ledger = new DynamoDbLedger({ client: dynamo.client, tableName: dynamo.tableName });
    const figures = await runFleet({ reports: options.reports, tenants: options.tenants, readers: READERS, concurrency: cap, tenantRate: TENANT_RATE, sendRate: SEND_RATE, dir, ledger });
    return { ...figures, peakRssMb: Math.round(peak / 2 ** 20) };
  } finally {
    clearInterval(sampler);
    await dynamo.close();
    await rm(dir, { recursive: true, force: true });
  }
}

export async function runFleetSection(options: FleetSectionOptions = DEFAULT_FLEET): Promise<SectionResult> {
  const started = performance.now();
  const runs: { cap: number; f: FleetFigures & { peakRssMb: number } }[] = [];
  for (const cap of options.caps) runs.push({ cap, f: await oneFleet(options, cap) });
  const rows = runs.map(({ cap, f }) => [
    String(cap),
    `${f.deliveredOnce} / ${f.reports}`,
    String(f.lost),
    String(f.doubled),
    `${f.readersMailedOnce} / ${f.readers}`,
    String(f.ownerNotices),
    `${f.planning429} of ${f.planningRequests} (${percent(f.planning429, f.planningRequests)})`,
    `${f.throttles} of ${f.sends} (${percent(f.throttles, f.sends)})`,
    `${seconds(f.lastDeliveryMs)} vs ${seconds(f.lowerBoundMs)} (${f.bound}): ${ratio(f.lastDeliveryMs / f.lowerBoundMs)}`,
    `${f.peakRssMb} MB`,
  ]);
  const markdown = [
    `${options.reports} reports of ${options.tenants} tenants (the simulator's tiny tenant: risks as CSV), every one scheduled for the same instant, each mailing ${READERS} readers; ` +
      `tenants limited to ${TENANT_RATE} requests a second, SES to ${SEND_RATE} messages a second; the runs' pace in dynalite, the files in a local folder. ` +
      'One run of the bench per concurrency cap:',
    '',
    table(['cap', 'delivered once', 'lost', 'doubled', 'readers mailed once', 'owners told', '429s', 'mail throttles', 'last delivery vs lower bound', 'peak memory'], rows),
    '',
    'The lower bound is the largest of: the busiest tenant\'s requests ÷ its rate, the e-mails ÷ the send rate, the summed time of the runs ÷ the cap. ' +
      'Every run of the fleet is in this one process (the stand-in of Lambda runs them as concurrent calls), so the peak memory is the whole fleet\'s at the cap, ' +
      'an upper bound of one function\'s; one function runs one report. The stand-in queues what the cap cannot take without Lambda\'s backoff between throttles ' +
      '(up to 5 minutes in Lambda), and the chat posts of the issue\'s fleet are left out: the figures are of the e-mail. `--fleet-reports` sets the size.',
  ].join('\n');
  const targets: TargetCheck[] = runs.flatMap(({ cap, f }) => {
    const boundRatio = f.lastDeliveryMs / f.lowerBoundMs;
    const exact = f.lost === 0 && f.doubled === 0 && f.readersMailedOnce === f.readers && f.ownerNotices === 0;
    return [
      {
        target: `Fleet (cap ${cap}): 0 lost, 0 doubled, every reader once, 0 owners told`,
        measured: `${f.reports - f.deliveredOnce} not exactly once, ${f.ownerNotices} told (${f.reports} reports)`,
        met: exact,
        ...(!exact && { gap: `${f.lost} lost, ${f.doubled} doubled` }),
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
    ];
  });
  return { id: 'fleet', title: 'Fleet: Monday 07:00', markdown, targets, durationMs: performance.now() - started };
}
