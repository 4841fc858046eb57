/**
 * One report of the fleet in a process of its own, as the export function runs it: the fleet's job
 * context (test/support/fleet-context.ts) over the fleet's own services (the tenant's simulator, dynalite,
 * s3rver, SES with its sending rate, the webhook stand-in), `runJob` once. Its peak RSS is one export
 * function's, where the fleet's own process holds every concurrent run and every local service.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { runJob } from '../../shared/job/run-job';
import { DynamoDbLedger } from '../../shared/ledger/dynamodb-ledger';
import { S3Storage } from '../../shared/storage/s3-storage';
import type { SimCredentials } from '../../simulator/index';
import { fleetJobContext, fleetReport, fleetReportName, fleetSesClient } from '../../test/support/fleet-context';
import { reportResult, workerInput } from '../lib/worker';

export interface FleetReportInput {
  readonly credentials: SimCredentials;
  readonly dynamo: { readonly endpoint: string; readonly tableName: string };
  readonly s3: { readonly endpoint: string; readonly bucket: string };
  readonly sesEndpoint: string;
  readonly webhookBase: string;
  readonly tenantRate: number;
  readonly sendRate: number;
  /** The report's number: past the fleet's, so its readers and channel are its own. */
  readonly report: number;
  readonly readers: number;
}

const input = workerInput<FleetReportInput>();
const local = { region: 'us-east-1', credentials: { accessKeyId: 'LOCAL', secretAccessKey: 'LOCAL' } };
const dynamo = new DynamoDBClient({ ...local, endpoint: input.dynamo.endpoint });
const s3 = new S3Client({
  ...local,
  endpoint: input.s3.endpoint,
  forcePathStyle: true,
  credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
  // As shared/aws-clients.ts does for a local endpoint: s3rver stores aws-chunked framing verbatim.
  requestChecksumCalculation: 'WHEN_REQUIRED',
  responseChecksumValidation: 'WHEN_REQUIRED',
});
// The export function's SES client, as the fleet's (its SDK retries on).
const ses = fleetSesClient(input.sesEndpoint);
const context = fleetJobContext({
  credentials: input.credentials,
  reports: [fleetReport(input.report, input.readers)],
  storage: new S3Storage({ client: s3, bucket: input.s3.bucket, prefix: 'fleet' }),
  ledger: new DynamoDbLedger({ client: dynamo, tableName: input.dynamo.tableName }),
  ses,
  webhookBase: input.webhookBase,
  tenantRate: input.tenantRate,
  sendRate: input.sendRate,
});
// The heap's own peak, beside the RSS the parent reads: what of the RSS is the run's objects.
let heapPeak = process.memoryUsage().heapUsed;
const sampler = setInterval(() => (heapPeak = Math.max(heapPeak, process.memoryUsage().heapUsed)), 10);
const started = performance.now();
const outcome = await runJob(
  { report: fleetReportName(input.report), source: 'schedule', scheduledTime: new Date().toISOString(), executionId: `probe-${input.report}` },
  context,
);
clearInterval(sampler);
heapPeak = Math.max(heapPeak, process.memoryUsage().heapUsed);
for (const client of [dynamo, s3, ses]) client.destroy();
reportResult({ status: outcome.status, wallMs: performance.now() - started, heapPeakMb: Math.round(heapPeak / 2 ** 20) });
