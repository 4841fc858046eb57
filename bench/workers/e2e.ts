import { systemClock } from '../../shared/core/clock';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
/**
 * End to end (one process): planRun and exportRun of the board-items dataset from the simulator into S3
 * (s3rver), xlsx, CSV and Parquet, manifest and latest.json: what the export Lambda does for one report.
 */
import { S3Client } from '@aws-sdk/client-s3';
import { reportResult, workerInput } from '../lib/worker';
import { LocalLedger } from '../../shared/ledger/local-ledger';
import { S3Storage } from '../../shared/storage/s3-storage';
import type { Credentials } from '../../shared/planning-api/credentials';
import { parseReportDefinition } from '../../shared/report/definition/definition';
import { runContextOf } from '../../shared/report/run/context';
import { planRun } from '../../shared/report/run/plan-run';
import { exportRun } from '../../shared/report/run/run-export';

interface Input {
  credentials: Credentials;
  endpoint: string;
  bucket: string;
  runId: string;
}

const input = workerInput<Input>();
const client = new S3Client({
  endpoint: input.endpoint,
  region: 'us-east-1',
  forcePathStyle: true,
  credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
  // As shared/aws-clients.ts does for a local endpoint: s3rver stores aws-chunked framing verbatim.
  requestChecksumCalculation: 'WHEN_REQUIRED',
  responseChecksumValidation: 'WHEN_REQUIRED',
});
const storage = new S3Storage({ client, bucket: input.bucket, prefix: 'bench' });
const definition = parseReportDefinition({ name: 'bench-e2e', datasets: { boardItems: {} }, formats: ['xlsx', 'csv', 'parquet'] });

const cpuStart = process.cpuUsage();
const started = performance.now();
const context = runContextOf({
  planning: { credentials: { getCredentials: () => Promise.resolve(input.credentials) } },
  clock: systemClock,
  storage,
  // A local ledger in a fresh directory: the benchmark measures the export, not DynamoDB.
  ledger: new LocalLedger(await mkdtemp(join(tmpdir(), 'bench-ledger-'))),
});
const draft = { definition, runId: input.runId, trigger: 'on-demand', runDate: undefined, path: { via: 'single' } } as const;
const result = await exportRun(await planRun(draft, context), context);
const wallMs = performance.now() - started;
const cpu = process.cpuUsage(cpuStart);
client.destroy();
reportResult({
  wallMs,
  cpuMs: (cpu.user + cpu.system) / 1000,
  rows: result.manifest.summary.rows,
  files: [...result.manifest.files, ...(result.manifest.tables ?? [])].map((f) => ({ path: f.path.slice(f.path.lastIndexOf('/') + 1), bytes: f.bytes })),
  manifestKey: result.manifestKey,
});
