// @tier slow
import { createHash } from 'node:crypto';
import { GetObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLambdaHarness, type LambdaHarness } from '../../support/lambda-harness';
import { httpApiEvent, lambdaContext, sqsEvent } from '../../support/lambda-events';

const WEEKLY = {
  name: 'weekly',
  title: 'Weekly <Planning> & Risks',
  timeZone: 'Europe/Berlin',
  datasets: { risks: {}, boardItems: {} },
  email: { to: ['team@example.test'], subjectTemplate: '{report} – {date}' },
};
const BROKEN = { name: 'broken', datasets: { boardItems: { boards: ['not-a-board'] } } };

/** The payload EventBridge Scheduler sends, with the context attributes the stack configures. */
const schedulerPayload = (report: string, scheduledTime: string) => ({
  report,
  source: 'schedule',
  scheduledTime,
  executionId: `exec-${scheduledTime}`,
});

async function keysUnder(h: LambdaHarness, prefix: string): Promise<string[]> {
  const out = await h.s3.client.send(new ListObjectsV2Command({ Bucket: h.s3.bucket, Prefix: prefix }));
  return (out.Contents ?? []).map((o) => o.Key!).sort();
}

async function objectText(h: LambdaHarness, key: string): Promise<string> {
  const out = await h.s3.client.send(new GetObjectCommand({ Bucket: h.s3.bucket, Key: key }));
  return out.Body!.transformToString();
}

describe('export-report handler', () => {
  let h: LambdaHarness;
  beforeAll(async () => {
    h = await startLambdaHarness({ weekly: WEEKLY, broken: BROKEN });
  });
  afterAll(async () => {
    await h.close();
  });

  it('turns a scheduled run into files in S3, an e-mail whose links download them, and a ReportExported event', async () => {
    const outcome = (await h.exportHandler(schedulerPayload('weekly', '2026-11-23T06:00:00Z'), lambdaContext('export-report'))) as {
      status: string;
      manifestKey: string;
    };
    expect(outcome.status).toBe('succeeded');
    const folder = 'reports/weekly/dt=2026-11-23/run=s-20261123T060000Z';
    expect(await keysUnder(h, `${folder}/`)).toEqual(
      [
        `${folder}/board-items.csv`, `${folder}/changes.csv`, `${folder}/manifest.json`, `${folder}/risk-custom-fields.csv`, `${folder}/risks.csv`, `${folder}/weekly.xlsx`, `${folder}/weekly.pdf`,
        `${folder}/snapshots/board-items.ndjson.gz`, `${folder}/snapshots/risks.ndjson.gz`,
      ].sort(),
    );
    const manifest = JSON.parse(await objectText(h, `${folder}/manifest.json`));
    expect(JSON.parse(await objectText(h, 'reports/weekly/latest.json')).manifest).toBe('weekly/dt=2026-11-23/run=s-20261123T060000Z/manifest.json');

    const mails = await h.ses.fetchStore();
    expect(mails).toHaveLength(1);
    const mail = mails[0]!;
    expect(mail.destination.to).toEqual(['team@example.test']);
    expect(mail.subject).toContain('Weekly <Planning> & Risks');
    expect(mail.body.html).toContain('Weekly &lt;Planning&gt; &amp; Risks');
    expect(mail.body.text).toContain('What changed\n  Not compared: This is the first run of this report, so there is nothing to compare with yet.');
    expect(manifest.changes).toMatchObject({ trigger: 'scheduled', previous: null, baseline: null });
    const links = [...new Set([...(mail.body.html ?? '').matchAll(/https:\/\/api\.example\.test\/links\/([A-Za-z0-9_.-]+)/g)].map((m) => m[1]!))];
    expect(links).toHaveLength(manifest.files.length);

    // Each e-mail link goes through the link route to a fresh presigned URL of the right object.
    for (const token of links) {
      const response = await h.apiHandler(
        httpApiEvent('GET', 'GET /links/{token}', `/links/${token}`, { pathParameters: { token } }),
        lambdaContext('export-api'),
      );
      expect(response.statusCode).toBe(302);
      const location = String(response.headers!.location);
      const bytes = Buffer.from(await (await fetch(location)).arrayBuffer());
      const sha = createHash('sha256').update(bytes).digest('hex');
      expect(manifest.files.map((f: { sha256: string }) => f.sha256)).toContain(sha);
    }

    const exported = h.events.events.filter((e) => e.DetailType === 'ReportExported');
    expect(exported).toHaveLength(1);
    expect(exported[0]!.Source).toBe('planning-report-exporter');
    expect(JSON.parse(exported[0]!.Detail)).toMatchObject({
      report: 'weekly',
      runId: 's-20261123T060000Z',
      manifestKey: 'weekly/dt=2026-11-23/run=s-20261123T060000Z/manifest.json',
      bucket: h.s3.bucket,
    });
  });

  it('reuses the keys of a scheduled run when the invocation is retried', async () => {
    const before = await keysUnder(h, 'reports/weekly/');
    await h.exportHandler(schedulerPayload('weekly', '2026-11-23T06:00:00Z'), lambdaContext('export-report'));
    expect(await keysUnder(h, 'reports/weekly/')).toEqual(before);
  });

  it('lets one of two overlapping deliveries of a scheduled run write it; the other stops without a failure', async () => {
    const payload = schedulerPayload('weekly', '2026-11-30T06:00:00Z');
    const outcomes = (await Promise.all([
      h.exportHandler(payload, lambdaContext('export-report')),
      h.exportHandler(payload, lambdaContext('export-report')),
    ])) as { status: string; reason?: string }[];
    // Both may succeed when the second arrives after the first finished (it then finds the run complete).
    expect(outcomes.filter((o) => o.status === 'succeeded').length).toBeGreaterThanOrEqual(1);
    for (const o of outcomes) {
      if (o.status !== 'succeeded') expect(o).toMatchObject({ status: 'skipped', reason: expect.stringMatching(/run "s-20261130T060000Z" of report "weekly" is in progress/) });
    }
    const folder = 'reports/weekly/dt=2026-11-30/run=s-20261130T060000Z';
    const manifest = JSON.parse(await objectText(h, `${folder}/manifest.json`)) as { files: { path: string; sha256: string }[] };
    for (const file of manifest.files) {
      const bytes = await h.s3.client.send(new GetObjectCommand({ Bucket: h.s3.bucket, Key: `${folder}/${file.path}` }));
      expect(createHash('sha256').update(await bytes.Body!.transformToByteArray()).digest('hex')).toBe(file.sha256);
    }
    const failed = h.events.events.filter((e) => e.DetailType === 'ReportFailed' && String(e.Detail).includes('s-20261130T060000Z'));
    expect(failed).toEqual([]);
  });

  it('records a definition that cannot succeed as ReportFailed without retrying, and writes nothing', async () => {
    const outcome = (await h.exportHandler(schedulerPayload('broken', '2026-11-23T06:00:00Z'), lambdaContext('export-report'))) as {
      status: string;
      reason: string;
    };
    expect(outcome).toMatchObject({ status: 'failed', reason: expect.stringContaining('not-a-board') });
    expect(await keysUnder(h, 'reports/broken/')).toEqual([]);
    const failed: unknown[] = h.events.events.filter((e) => e.DetailType === 'ReportFailed').map((e): unknown => JSON.parse(e.Detail));
    expect(failed).toContainEqual(expect.objectContaining({ report: 'broken', retryable: false, errorType: 'ReportPlanError' }));
  });

  it('rejects an event that is not a job request', async () => {
    await expect(h.exportHandler({ report: 42 }, lambdaContext('export-report'))).rejects.toThrow();
  });
});

describe('export-report handler behind the scheduled-runs queue', () => {
  let h: LambdaHarness;
  beforeAll(async () => {
    h = await startLambdaHarness({ weekly: WEEKLY });
  });
  afterAll(async () => {
    await h.close();
  });
  const receive = (event: unknown) => h.exportHandler(event, lambdaContext('export-report')) as Promise<{ batchItemFailures: { itemIdentifier: string }[] }>;

  it('runs the message SQS hands it, writes and mails the run, and answers no batch item failure so SQS deletes it', async () => {
    const answer = await receive(sqsEvent(schedulerPayload('weekly', '2026-12-07T06:00:00Z'), 1, 'msg-weekly'));
    expect(answer).toEqual({ batchItemFailures: [] });
    const folder = 'reports/weekly/dt=2026-12-07/run=s-20261207T060000Z';
    expect(await keysUnder(h, `${folder}/`)).toContain(`${folder}/manifest.json`);
    expect(JSON.parse(await objectText(h, 'reports/weekly/latest.json')).manifest).toBe('weekly/dt=2026-12-07/run=s-20261207T060000Z/manifest.json');
    const mails = await h.ses.fetchStore();
    expect(mails.map((m) => m.destination.to)).toEqual([['team@example.test']]);
    expect(h.events.events.filter((e) => e.DetailType === 'ReportExported').map((e) => (JSON.parse(e.Detail) as { runId: string }).runId)).toEqual(['s-20261207T060000Z']);
  });

  it('names a run that failed and may succeed later as a batch item failure, so SQS hands it out again; ReportFailed only when its last receive fails too', async () => {
    await h.ses.clearStore();
    const failedRuns = () => h.events.events.filter((e) => e.DetailType === 'ReportFailed').map((e) => JSON.parse(e.Detail) as { runId: string; retryable: boolean });
    // The planning API refuses the cached key and the secret cannot be read again for a moment: a retryable failure.
    h.sim.injectFault({ status: 401, times: 1000 });
    h.secrets.failNext(1000);
    const payload = schedulerPayload('weekly', '2026-12-14T06:00:00Z');
    try {
      expect(await receive(sqsEvent(payload, 1, 'msg-failing'))).toEqual({ batchItemFailures: [{ itemIdentifier: 'msg-failing' }] });
      // Another attempt follows: the bus hears nothing yet, so an alarm on ReportFailed counts the run once.
      expect(failedRuns()).toEqual([]);
      expect(await h.ses.fetchStore()).toEqual([]);
      // The last receive (maxReceiveCount 3) fails too: the message goes on to the dead-letter queue, and the failure is told.
      expect(await receive(sqsEvent(payload, 3, 'msg-failing'))).toEqual({ batchItemFailures: [{ itemIdentifier: 'msg-failing' }] });
    } finally {
      h.sim.clearInjectedFaults();
      h.secrets.failNext(0);
    }
    expect(failedRuns()).toEqual([expect.objectContaining({ runId: 's-20261214T060000Z', retryable: true })]);
    expect(await keysUnder(h, 'reports/weekly/dt=2026-12-14/')).toEqual([]);
    // The owners (the readers, when the report names no one else) hear of it once, from the last receive.
    const told = await h.ses.fetchStore();
    expect(told.map((m) => [m.destination.to, m.subject])).toEqual([[['team@example.test'], expect.stringMatching(/is failing/)]]);
  });

  it('answers a body that is no job request as a batch item failure, to reach the dead-letter queue rather than vanish', async () => {
    expect(await receive(sqsEvent({ report: 42 }, 1, 'msg-garbled'))).toEqual({ batchItemFailures: [{ itemIdentifier: 'msg-garbled' }] });
  });
});

describe('export-report handler with a rotated API key', () => {
  let h: LambdaHarness;
  beforeAll(async () => {
    // The secret starts with a key the planning API no longer accepts.
    h = await startLambdaHarness(
      { weekly: { ...WEEKLY, email: undefined } },
      { planningSecret: (sim) => JSON.stringify({ ...sim.credentials(), apiKey: 'revoked-key' }) },
    );
  });
  afterAll(async () => {
    await h.close();
  });

  it('fails with a message to check the e-mail and key when the secret still holds the revoked key', async () => {
    const outcome = (await h.exportHandler({ report: 'weekly', source: 'manual' }, lambdaContext('export-report'))) as {
      status: string;
      reason: string;
    };
    expect(outcome.status).toBe('failed');
    expect(outcome.reason).toMatch(/e-mail and API key/i);
    expect(outcome.reason).not.toContain('revoked-key');
    // One read, then one forced re-read after the 401 (which found the same key).
    expect(h.secrets.calls('planning/credentials')).toBe(2);
  });

  it('reads the secret again after a 401 and succeeds once the operator stored the new key', async () => {
    h.secrets.setSecret('planning/credentials', JSON.stringify(h.sim.credentials()));
    h.secrets.resetCalls();
    h.sim.clearRequests();
    const outcome = (await h.exportHandler({ report: 'weekly', source: 'manual' }, lambdaContext('export-report'))) as { status: string };
    expect(outcome.status).toBe('succeeded');
    // The cached (revoked) key got 401s only on the requests the run starts at once (the risks'
    // first and the board items' prefetch), then exactly one forced read fetched the new key.
    expect(h.secrets.calls('planning/credentials')).toBe(1);
    const refused = h.sim.requests.filter((r) => r.status === 401);
    expect(refused.map((r) => r.address).sort()).toEqual(['legacy', 'v1']);
    const lastRefused = h.sim.requests.findLastIndex((r) => r.status === 401);
    const firstAccepted = h.sim.requests.findIndex((r) => r.status === 200);
    expect(lastRefused).toBeLessThan(firstAccepted);
  });
});
