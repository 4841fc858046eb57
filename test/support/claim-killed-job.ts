/**
 * A child process for the kill trials of the message claims (test/shared/messages/report-email-delivery-killed.slow.test.ts):
 * runs one scheduled job that e-mails through aws-ses-v2-local, and stops dead right after the ledger
 * took the claim of one recipient's message, before it is sent. It then says `claimed` on stdout and
 * waits for the SIGKILL the test sends on that line. The argument is JSON: the folder (files and
 * ledger), the simulator's credentials, the SES endpoint, the report, the scheduled time and the
 * address whose claim it dies after.
 */
import { SESv2Client } from '@aws-sdk/client-sesv2';
import { fixedClock } from '../../shared/core/clock';
import { catalogOf } from '../../shared/definitions/catalog';
import { SesMailer } from '../../shared/email/ses-mailer';
import { runJob } from '../../shared/job/run-job';
import { JobStatusStore } from '../../shared/job/status/job-status';
import { LocalLedger } from '../../shared/ledger/local-ledger';
import type { Ledger } from '../../shared/ledger/ledger';
import { runContextOf } from '../../shared/report/run/context';
import { LocalDirectoryStorage } from '../../shared/storage/local-storage';
import type { Credentials } from '../../shared/planning-api/credentials';

export interface ClaimKilledJob {
  readonly dir: string;
  readonly credentials: Credentials;
  readonly sesEndpoint: string;
  readonly report: { readonly name: string } & Record<string, unknown>;
  readonly scheduledTime: string;
  /** The recipient whose claim is the last thing this process does. */
  readonly dieAfterClaimOf: string;
}

/** The ledger, stopping for good once the claim of `address`'s message is written. */
function dyingLedger(inner: Ledger, address: string): Ledger {
  const claimKey = `email${encodeURIComponent(`:${address.toLowerCase()}`)}`;
  return {
    get: (key) => inner.get(key),
    describe: () => inner.describe(),
    async put(key, value, expectedVersion, options) {
      const written = await inner.put(key, value, expectedVersion, options);
      const claim = value as { status?: string } | null;
      if (written && key.startsWith('message/') && key.endsWith(claimKey) && claim?.status === 'sending') {
        process.stdout.write('claimed\n');
        // A timer keeps the event loop alive until the SIGKILL: a bare never-settling promise lets
        // Node exit on its own (code 13, unsettled top-level await) when nothing else is pending.
        setInterval(() => undefined, 60_000);
        await new Promise<never>(() => undefined);
      }
      return written;
    },
  };
}

async function main(job: ClaimKilledJob): Promise<void> {
  const ledger = dyingLedger(new LocalLedger(`${job.dir}/.ledger`), job.dieAfterClaimOf);
  const client = new SESv2Client({ endpoint: job.sesEndpoint, region: 'us-east-1', credentials: { accessKeyId: 'ANY_STRING', secretAccessKey: 'ANY_STRING' }, maxAttempts: 1 });
  const mailer = new SesMailer({ client });
  await runJob(
    { report: job.report.name, source: 'schedule', scheduledTime: job.scheduledTime },
    {
      ...runContextOf({
        clock: fixedClock(new Date(job.scheduledTime)),
        storage: new LocalDirectoryStorage(job.dir),
        ledger,
        planning: { credentials: { getCredentials: () => Promise.resolve(job.credentials) } },
      }),
      definitions: catalogOf({ [job.report.name]: job.report }),
      jobs: new JobStatusStore(ledger),
      events: { publish: () => Promise.resolve() },
      mail: { send: (email) => mailer.send(email) },
      sender: 'reports@example.test',
      links: { baseUrl: 'https://api.example.test', keys: () => Promise.resolve({ current: { id: 'k1', secret: 'a'.repeat(48) } }) },
    },
  );
  process.stdout.write('finished\n');
}

await main(JSON.parse(process.argv[2] ?? '{}') as ClaimKilledJob);
