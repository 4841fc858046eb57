// @tier slow
import { GetObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixedClock } from '../../../shared/core/clock';
import { silentLog } from '../../../shared/core/logger';
import { DynamoDbLedger } from '../../../shared/ledger/dynamodb-ledger';
import { ledgerKey } from '../../../shared/ledger/ledger';
import { scopedLedger, storageScope } from '../../../shared/ledger/scoped-ledger';
import { DEFAULT_LEASE_MS } from '../../../shared/report/run/run-entry';
import { RunLease } from '../../../shared/report/run/run-lease';
import { startLambdaHarness, type LambdaHarness } from '../../support/lambda-harness';
import { lambdaContext } from '../../support/lambda-events';

/**
 * The state machine's steps as the export function receives them (the payloads of
 * infra/constructs/report-fan-out.ts), in the local stack: plan, one worker per chunk, assemble.
 */
const REPORT = { name: 'portfolio', title: 'Portfolio', datasets: { risks: {}, boardItems: {} }, formats: ['csv'], email: { to: ['pmo@example.test'] } };

describe('the export function as the fan-out\'s steps', () => {
  let h: LambdaHarness;
  beforeAll(async () => {
    h = await startLambdaHarness({ portfolio: REPORT });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('plans, fetches per chunk of boards, assembles one published, e-mailed run; the scratch answers stay under _fanout/', async () => {
    const step = (event: unknown) => h.exportHandler(event, lambdaContext('export-report'));
    const plan = (await step({ fanOut: 'plan', report: 'portfolio', source: 'schedule', scheduledTime: '2026-11-23T06:00:00Z' })) as {
      request: { report: string; runId: string };
      chunks: string[][];
    };
    expect(plan.request).toMatchObject({ report: 'portfolio', runId: 's-20261123T060000Z', source: 'schedule' });
    expect(plan.chunks.flat()).toEqual(['1000', '1001', '1002', '1003']);
    for (const boards of plan.chunks) expect(await step({ fanOut: 'work', request: plan.request, boards })).toEqual({ boards: boards.length });

    const outcome = (await step({ fanOut: 'assemble', request: plan.request })) as { status: string; manifestKey: string; emailed: boolean; answers: { replayed: number } };
    expect(outcome).toMatchObject({ status: 'succeeded', emailed: true });
    expect(outcome.answers.replayed).toBeGreaterThan(0);
    const manifest = await h.s3.client.send(new GetObjectCommand({ Bucket: h.s3.bucket, Key: `reports/${outcome.manifestKey}` }));
    expect(JSON.parse(await manifest.Body!.transformToString())).toMatchObject({ report: 'portfolio', runId: 's-20261123T060000Z' });
    const scratch = await h.s3.client.send(new ListObjectsV2Command({ Bucket: h.s3.bucket, Prefix: 'reports/_fanout/portfolio/s-20261123T060000Z/' }));
    expect(scratch.KeyCount).toBeGreaterThan(0);
    expect((await h.ses.fetchStore()).filter((m) => m.destination.to.includes('pmo@example.test'))).toHaveLength(1);
  });

  it('tells a caught plan failure through the failure step: the owners once per streak, ReportFailed on the bus for every run', async () => {
    const step = (event: unknown) => h.exportHandler(event, lambdaContext('export-report'));
    h.sim.injectFault({ status: 401, times: 1000 });
    try {
      for (const scheduledTime of ['2026-11-30T06:00:00Z', '2026-12-07T06:00:00Z']) {
        const input = { report: 'portfolio', source: 'schedule', scheduledTime, runId: `s-${scheduledTime.replace(/[-:]/g, '')}` };
        const thrown = (await step({ fanOut: 'plan', ...input }).then(() => undefined, (error: unknown) => error)) as Error;
        // What Step Functions hands the Catch: the function's error type, and its error JSON as the cause.
        const error = { Error: thrown.name, Cause: JSON.stringify({ errorType: thrown.name, errorMessage: thrown.message, trace: [] }) };
        expect(await step({ fanOut: 'fail', request: input, failed: 'plan', error })).toMatchObject({
          status: 'failed',
          runId: input.runId,
          errorType: 'AuthenticationError',
          told: true,
          reason: expect.stringMatching(/^the fan-out's plan .* failed: .*\(401\)/) as unknown,
        });
      }
    } finally {
      h.sim.clearInjectedFaults();
    }
    const failing = (await h.ses.fetchStore()).filter((m) => m.subject === 'Report "Portfolio" is failing');
    expect(failing.map((m) => m.destination.to)).toEqual([['pmo@example.test']]);
    const failed = h.events.events.filter((e) => e.DetailType === 'ReportFailed').map((e) => JSON.parse(e.Detail) as { runId: string; reason: string });
    expect(failed.map((e) => e.runId)).toEqual(['s-20261130T060000Z', 's-20261207T060000Z']);
    expect(JSON.stringify(failed)).not.toMatch(/arn:aws/);
  });

  it('releases in DynamoDB the lease a killed assembler still holds', async () => {
    const ledger = scopedLedger(new DynamoDbLedger({ tableName: h.dynamo.tableName, client: h.dynamo.client }), storageScope(h.s3.bucket, 'reports'));
    const runId = 's-20261214T060000Z';
    // Taken at a time far ahead, so the lease is live whenever the step runs: only the release frees it.
    const killed = await RunLease.acquire({ ledger, clock: fixedClock(new Date('2099-01-01T00:00:00Z')), log: silentLog, leaseMs: DEFAULT_LEASE_MS }, { report: 'portfolio', runId });
    if (killed.kind !== 'acquired') throw new Error('expected to take the lease');
    const request = { report: 'portfolio', source: 'schedule', scheduledTime: '2026-12-14T06:00:00Z', runId };
    const error = { Error: 'Runtime.OutOfMemory', Cause: JSON.stringify({ errorType: 'Runtime.OutOfMemory', errorMessage: 'RequestId: 9a Error: Runtime exited with error: signal: killed' }) };
    const outcome = (await h.exportHandler({ fanOut: 'fail', request, failed: 'assemble', error }, lambdaContext('export-report'))) as { released: string | null; reason: string };
    expect(outcome.released).toBe(killed.lease.attempt);
    expect(outcome.reason).toBe("the fan-out's assembler (the export of the run) ran out of memory: Lambda stopped the function");
    expect((await ledger.get(ledgerKey('run', 'portfolio', runId)))?.value).toMatchObject({ status: 'released' });
  });

  it('refuses a step it does not know with the field that is wrong', async () => {
    await expect(h.exportHandler({ fanOut: 'work', request: { report: 'portfolio', runId: 'r-1' } }, lambdaContext('export-report'))).rejects.toThrow(/boards/);
  });
});
