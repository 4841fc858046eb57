import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { lambdaContext } from '../test/support/lambda-events';
import { startLambdaHarness } from '../test/support/lambda-harness';

/**
 * `npx tsx scripts/cost-figures.ts`: the figures behind docs/deploy.md's cost of 500 weekly reports,
 * measured on the local stack. Four weekly scheduled runs of the demo report (demo tenant, e-mail on)
 * through the real export handler; a counting proxy in front of s3rver and dynalite counts the
 * requests per kind, and the bucket is listed for the bytes one run keeps.
 */
interface Counter {
  readonly endpoint: string;
  readonly counts: Map<string, number>;
  /** Where requests go (set once the server behind it runs). */
  target: string;
  close(): Promise<void>;
}

/** A pass-through HTTP proxy that counts requests by a label (S3: method; DynamoDB: X-Amz-Target). */
async function countingProxy(label: (method: string, headers: Record<string, string | string[] | undefined>) => string): Promise<Counter> {
  const counts = new Map<string, number>();
  const server = createServer((req, res) => {
    const upstream = new URL(counter.target);
    const key = label(req.method ?? '', req.headers);
    counts.set(key, (counts.get(key) ?? 0) + 1);
    const forward = httpRequest({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const counter: Counter = {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    counts,
    target: 'http://127.0.0.1:9',
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  return counter;
}

const definition = JSON.parse(await readFile(join(import.meta.dirname, '..', 'examples', 'demo-report.json'), 'utf8')) as { name: string };
const report = { ...definition, email: { to: ['rte@example.test'] }, formats: ['xlsx', 'csv', 'parquet'] };

// The harness's own servers, with the proxies in front of S3 and DynamoDB (the handlers get the proxies).
const s3 = await countingProxy((method) => `S3 ${method}`);
const dynamo = await countingProxy((_m, headers) => `DynamoDB ${String(headers['x-amz-target'] ?? '').split('.').pop()}`);
const harness = await startLambdaHarness(
  { [String(report.name)]: report },
  { tenant: 'demo', flavour: 'demo', env: { AWS_ENDPOINT_URL_S3: s3.endpoint, AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint } },
);
s3.target = harness.s3.endpoint;
dynamo.target = harness.dynamo.endpoint;
const handler = harness.exportHandler;

const durations: number[] = [];
for (const week of ['2026-11-02', '2026-11-09', '2026-11-16', '2026-11-23']) {
  const started = performance.now();
  const outcome = (await handler({ report: report.name, source: 'schedule', scheduledTime: `${week}T06:00:00Z`, executionId: week }, lambdaContext('export-report'))) as { status: string };
  durations.push(performance.now() - started);
  if (outcome.status !== 'succeeded') throw new Error(`run of ${week} ${outcome.status}`);
}
const listed = await harness.s3.client.send(new ListObjectsV2Command({ Bucket: harness.s3.bucket }));
const bytes = (listed.Contents ?? []).reduce((sum, o) => sum + (o.Size ?? 0), 0);
const mails = (await harness.ses.fetchStore()).length;
const perRun = (n: number) => (n / durations.length).toFixed(1);
const lines = [
  `runs: ${durations.length}; handler time per run (ms): ${durations.map((d) => d.toFixed(0)).join(', ')}`,
  `rows per run: see the manifest; objects kept: ${listed.KeyCount ?? 0}, ${(bytes / 1024).toFixed(0)} KiB in all, ${(bytes / 1024 / durations.length).toFixed(0)} KiB per run`,
  `e-mails: ${mails}; planning API requests: ${harness.sim.requests.length} (${perRun(harness.sim.requests.length)} per run)`,
  ...[...s3.counts, ...dynamo.counts].sort().map(([k, n]) => `${k}: ${n} (${perRun(n)} per run)`),
];
process.stdout.write(`${lines.join('\n')}\n`);
await Promise.all([s3.close(), dynamo.close()]);
await harness.close();
