import type { Tracer } from '@aws-lambda-powertools/tracer';
import { DefinitionStore } from '../shared/definitions/definition-store';
import { createSesClient, SesMailer } from '../shared/email/ses-mailer';
import { createDynamoDbClient, DynamoDbLedger } from '../shared/ledger/dynamodb-ledger';
import { scopedLedger, storageScope } from '../shared/ledger/scoped-ledger';
import type { Ledger } from '../shared/ledger/ledger';
import type { Log } from '../shared/core/logger';
import { timerSleep } from '../shared/core/retry/retry';
import { systemClock } from '../shared/core/clock';
import { accountMailPace, pacedMailer, type MailTransport } from '../shared/messages/paced-mailer';
import { createSecretsManagerClient } from '../shared/secrets/secret-source';
import { createS3Client } from '../shared/storage/s3-client';
import { S3Storage } from '../shared/storage/s3-storage';

/**
 * The AWS adapters the handlers share, built one way from a handler's parsed configuration: the
 * bucket, prefix, encryption and table of each live here once, not in a copy per handler. Every SDK
 * client goes through the tracer, so each call is a subsegment of the invocation's trace.
 */

/** The part of the Powertools tracer the adapters need. */
export type ClientTracer = Pick<Tracer, 'captureAWSv3Client'>;
export type S3Client = ReturnType<typeof createS3Client>;
export type SecretsClient = ReturnType<typeof createSecretsManagerClient>;

/** One traced S3 client; a handler shares it between its buckets. */
export function s3Client(config: { readonly AWS_ENDPOINT_URL_S3?: string | undefined }, tracer: ClientTracer): S3Client {
  return tracer.captureAWSv3Client(createS3Client(config.AWS_ENDPOINT_URL_S3));
}

/** The reports bucket under its prefix. */
export function reportsStorage(client: S3Client, config: { readonly REPORTS_BUCKET: string; readonly REPORTS_PREFIX: string }): S3Storage {
  return new S3Storage({
    client,
    bucket: config.REPORTS_BUCKET,
    prefix: config.REPORTS_PREFIX,
    // Matches the stack's bucket (S3-managed keys); explicit so every object says how it is encrypted.
    serverSideEncryption: 'AES256',
  });
}

/** The stored reports in the definitions bucket, read through a cache of the door's DEFINITIONS_MAX_AGE_SECONDS. */
export function definitionStore(
  client: S3Client,
  config: { readonly DEFINITIONS_BUCKET: string; readonly DEFINITIONS_MAX_AGE_SECONDS: number },
): DefinitionStore {
  const storage = new S3Storage({ client, bucket: config.DEFINITIONS_BUCKET, prefix: '' });
  return new DefinitionStore(storage, { maxAgeSeconds: config.DEFINITIONS_MAX_AGE_SECONDS });
}

/** The stack's whole ledger table (suppressions, run links, job statuses). */
export function tableLedger(config: { readonly LEDGER_TABLE: string }, tracer: ClientTracer): DynamoDbLedger {
  return new DynamoDbLedger({ tableName: config.LEDGER_TABLE, client: tracer.captureAWSv3Client(createDynamoDbClient()) });
}

/** The ledger of one storage root: runs and `latest` are entries of this bucket and prefix, so stacks or prefixes may share the table. */
export function reportsLedger(
  config: { readonly LEDGER_TABLE: string; readonly REPORTS_BUCKET: string; readonly REPORTS_PREFIX: string },
  tracer: ClientTracer,
): Ledger {
  return scopedLedger(tableLedger(config, tracer), storageScope(config.REPORTS_BUCKET, config.REPORTS_PREFIX));
}

/** One traced Secrets Manager client, shared by a handler's secret sources. */
export function secretsClient(tracer: ClientTracer): SecretsClient {
  return tracer.captureAWSv3Client(createSecretsManagerClient());
}

/**
 * The SES mailer, sending through the configuration set when one is named (the export function's
 * MAIL_CONFIGURATION_SET; the mail-events function, which only tells owners, has none).
 */
export function sesMailer(tracer: ClientTracer, configurationSet?: string): SesMailer {
  return new SesMailer({ client: tracer.captureAWSv3Client(createSesClient()), configurationSet });
}

/**
 * The sandbox's rate: what the paced mailer keeps to when it cannot read the account's (no
 * ses:GetAccount, SES unreachable), slow but never throttled.
 */
const FALLBACK_SEND_RATE = 1;

/**
 * The SES mailer at the account's sending rate, shared through the ledger by every run at once, a
 * throttle sent again rather than failed (shared/messages/paced-mailer.ts). The rate is read from SES
 * on the first message of the process.
 */
export function pacedSesMailer(tracer: ClientTracer, ledger: Ledger, log: Log, configurationSet?: string): MailTransport {
  const ses = sesMailer(tracer, configurationSet);
  const now = (): number => systemClock().getTime();
  const pace = accountMailPace(ledger, () => ses.sendRate(), { now, pause: timerSleep, log, fallbackRate: FALLBACK_SEND_RATE });
  return pacedMailer(ses, { pace, now, sleep: timerSleep, log });
}
