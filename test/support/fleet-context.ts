import { SESv2Client } from '@aws-sdk/client-sesv2';
import { silentLog } from '../../shared/core/logger';
import { systemClock } from '../../shared/core/clock';
import { timerSleep } from '../../shared/core/retry/retry';
import { catalogOf } from '../../shared/definitions/catalog';
import { SesMailer } from '../../shared/email/ses-mailer';
import { JobStatusStore } from '../../shared/job/status/job-status';
import type { JobContext } from '../../shared/job/run-job';
import type { Ledger } from '../../shared/ledger/ledger';
import { accountMailPace, pacedMailer } from '../../shared/messages/paced-mailer';
import { resolveExportSettings } from '../../shared/report/definition/export-settings';
import { runContextOf } from '../../shared/report/run/context';
import type { Storage } from '../../shared/storage/storage';
import type { SimCredentials } from '../../simulator/index';

/**
 * One fleet report's job context, from the services' handles only (no server is started here), so the
 * fleet (test/support/fleet.ts, every run in one process) and the bench's memory probe
 * (bench/workers/fleet-report.ts, one run in a process of its own, as a function) run the same code.
 */
export const FLEET_OWNER = 'owner@fleet.example.com';
export const FLEET_SENDER = 'reports@fleet.example.com';
/** The signed links' key set of the fleet's messages. */
const FLEET_LINK_KEYS = { current: { id: 'k1', secret: 'a'.repeat(48) } };

export const fleetReportName = (k: number): string => `fleet-${String(k).padStart(4, '0')}`;
export const fleetReaderOf = (report: number, reader: number): string => `r${report}-${reader}@fleet.example.com`;
/** Report `k` posts to one chat channel: Slack for even reports, Teams for odd ones. */
export const fleetChannelPath = (k: number): string => `${k % 2 === 0 ? 'slack' : 'teams'}/${fleetReportName(k)}`;

/**
 * What a fleet report exports: a small one its tenant's risks; a medium one and the one that hands over
 * to the fan-out also their boards' items (the fan-out splits its work by board).
 */
export type FleetReportKind = 'small' | 'medium' | 'fan-out';

/** Report `k` of the fleet: its tenant's data as CSV, mailed to its readers and posted to its channel, its owner told of a failure. */
export function fleetReport(k: number, readers: number, kind: FleetReportKind = 'small'): Record<string, unknown> {
  const to = Array.from({ length: readers }, (_, i) => fleetReaderOf(k, i));
  return {
    name: fleetReportName(k),
    title: `Fleet ${k}`,
    timeZone: 'UTC',
    datasets: kind === 'small' ? { risks: {} } : { risks: {}, boardItems: {} },
    formats: ['csv'],
    email: { to, onFailure: [FLEET_OWNER] },
    // The secret's field names the channel's path on the webhook stand-in (fleetWebhookUrl).
    delivery: { channels: [{ type: k % 2 === 0 ? 'slack' : 'teams', webhook: { secretId: 'fleet-hooks', key: fleetChannelPath(k) } }] },
  };
}

/**
 * The export function's SES client (shared/email/ses-mailer.ts, createSesClient: the SDK's defaults,
 * three attempts in standard mode) pointed at the fleet's SES. Not the refusal tests' client, whose SDK
 * retries are off: with it, a connection the stand-in's server reset (its idle keep-alive socket closed
 * as the client reused it, a race a loaded machine widens) failed the run once in 500, where the
 * function's client sends again; the owners heard of it.
 */
export function fleetSesClient(endpoint: string): SESv2Client {
  return new SESv2Client({ endpoint, region: 'eu-west-1', credentials: { accessKeyId: 'ANY_STRING', secretAccessKey: 'ANY_STRING' } });
}

export interface FleetServices {
  readonly credentials: SimCredentials;
  readonly reports: readonly Record<string, unknown>[];
  readonly storage: Storage;
  readonly ledger: Ledger;
  readonly ses: SESv2Client;
  /** The webhook stand-in's base URL (`http://127.0.0.1:<port>`). */
  readonly webhookBase: string;
  readonly tenantRate: number;
  readonly sendRate: number;
  /** Told when SES accepted a report's message. */
  readonly onSent?: (at: number) => void;
  /** Told how late each of the mailer's waits for its moment woke (ms past the moment it waited for). */
  readonly onWake?: (lateMs: number) => void;
}

export function fleetJobContext(services: FleetServices): JobContext {
  const now = (): number => Date.now();
  const pace = accountMailPace(services.ledger, () => Promise.resolve(services.sendRate), { now, pause: timerSleep, log: silentLog, fallbackRate: 1 });
  // A wait for a moment of the pace, timed: how late a loaded event loop wakes is what the mail pace must absorb.
  const sleep = async (ms: number): Promise<void> => {
    const due = Date.now() + ms;
    await timerSleep(ms);
    services.onWake?.(Date.now() - due);
  };
  const paced = pacedMailer(new SesMailer({ client: services.ses }), { pace, now, sleep, log: silentLog });
  const mailer = {
    send: async (email: Parameters<typeof paced.send>[0]) => {
      const answer = await paced.send(email);
      services.onSent?.(Date.now());
      return answer;
    },
  };
  const catalog = Object.fromEntries(services.reports.map((r) => [r.name as string, r]));
  return {
    ...runContextOf({
      clock: systemClock,
      storage: services.storage,
      ledger: services.ledger,
      log: silentLog,
      planning: { credentials: { getCredentials: () => Promise.resolve(services.credentials) } },
      settings: resolveExportSettings({ ratePerSecond: services.tenantRate }),
    }),
    definitions: catalogOf(catalog),
    jobs: new JobStatusStore(services.ledger),
    events: { publish: () => Promise.resolve() },
    mail: mailer,
    sender: FLEET_SENDER,
    links: { baseUrl: 'https://api.fleet.example.com', keys: () => Promise.resolve(FLEET_LINK_KEYS) },
    channels: { webhooks: { webhookUrl: (ref) => Promise.resolve(`${services.webhookBase}/${ref.key}`) } },
  };
}
