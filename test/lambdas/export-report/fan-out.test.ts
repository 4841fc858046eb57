// @tier slow
import { GetObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lambdaContext, startLambdaHarness, type LambdaHarness } from '../../support/lambda-harness';

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

  it('refuses a step it does not know with the field that is wrong', async () => {
    await expect(h.exportHandler({ fanOut: 'work', request: { report: 'portfolio', runId: 'r-1' } }, lambdaContext('export-report'))).rejects.toThrow(/boards/);
  });
});
