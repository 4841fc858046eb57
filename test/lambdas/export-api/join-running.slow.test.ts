// @tier slow
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoDbLedger } from '../../../shared/ledger/dynamodb-ledger';
import { LedgerRunLinkLedger } from '../../../shared/http/run-link-ledger';
import { API_BASE_URL, startLambdaHarness, type LambdaHarness } from '../../support/lambda-harness';
import { httpApiEvent, lambdaContext } from '../../support/lambda-events';

/**
 * `POST /exports` of a configured report joins the export already running for it (issue 42, item 7),
 * through the real export-api handler, the run ledger on dynalite and the Lambda stub. Exports are
 * held before they run, so "running" lasts until the test lets them go: no timing involved.
 */
const ON_DEMAND = { name: 'on-demand', datasets: { risks: {} }, formats: ['csv'] };
const OTHER = { name: 'other', datasets: { risks: {} }, formats: ['csv'] };

interface Accepted {
  id: string;
  status: string;
  report: string;
  statusUrl: string;
  joined: boolean;
}

describe('POST /exports joins the running export of its report', () => {
  let h: LambdaHarness;
  let release: () => void = () => undefined;
  let held = Promise.resolve();
  const hold = () => {
    held = new Promise((resolve) => (release = resolve));
  };
  beforeAll(async () => {
    h = await startLambdaHarness({ 'on-demand': ON_DEMAND, other: OTHER }, { beforeExport: () => held });
  });
  afterAll(async () => {
    release();
    await h?.close();
  });

  const post = async (body: unknown) => {
    const response = await h.apiHandler(httpApiEvent('POST', 'POST /exports', '/exports', { body: JSON.stringify(body) }), lambdaContext('export-api'));
    expect(response.statusCode, String(response.body)).toBe(202);
    return { body: JSON.parse(String(response.body)) as Accepted, location: response.headers!.location };
  };
  const startedIds = () => h.lambda.invocations.map((i) => (i.payload as { exportId: string }).exportId);

  it('30 concurrent starts of one report start one export, and every answer names it; after it finished, a new one starts', async () => {
    hold();
    const before = h.lambda.invocations.length;
    const answers = await Promise.all(Array.from({ length: 30 }, () => post({ report: 'on-demand' })));
    expect(h.lambda.invocations.length - before).toBe(1);
    const started = startedIds().at(-1)!;
    expect(new Set(answers.map((a) => a.body.id))).toEqual(new Set([started]));
    for (const { body, location } of answers) {
      expect(body).toMatchObject({ id: started, report: 'on-demand', statusUrl: `${API_BASE_URL}/exports/${started}` });
      expect(location).toBe(body.statusUrl);
      expect(['queued', 'running']).toContain(body.status);
    }
    // Exactly one answer started it; the other 29 say they joined a run already in progress.
    expect(answers.filter((a) => !a.body.joined)).toHaveLength(1);
    expect(answers.filter((a) => a.body.joined)).toHaveLength(29);

    release();
    await h.lambda.settled();
    const done = await h.apiHandler(httpApiEvent('GET', 'GET /exports/{id}', `/exports/${started}`, { pathParameters: { id: started } }), lambdaContext('export-api'));
    expect((JSON.parse(String(done.body)) as { status: string }).status).toBe('succeeded');

    // A finished run is not joined: the next start is a new export.
    const next = await post({ report: 'on-demand' });
    expect(next.body.joined).toBe(false);
    expect(next.body.id).not.toBe(started);
    expect(startedIds().at(-1)).toBe(next.body.id);
    await h.lambda.settled();
  });

  it('starts its own export when the request has overrides, and never joins another report', async () => {
    hold();
    const running = await post({ report: 'on-demand' });
    expect(running.body.joined).toBe(false);
    const overridden = await post({ report: 'on-demand', overrides: { formats: ['xlsx'] } });
    expect(overridden.body).toMatchObject({ joined: false, report: 'on-demand' });
    expect(overridden.body.id).not.toBe(running.body.id);
    const other = await post({ report: 'other' });
    expect(other.body.joined).toBe(false);
    expect(other.body.id).not.toBe(running.body.id);
    // A plain start still joins the first one, not the overridden one.
    expect((await post({ report: 'on-demand' })).body).toMatchObject({ id: running.body.id, joined: true });
    release();
    await h.lambda.settled();
  });

  it('takes over a slot left by a start that crashed before writing its job status', async () => {
    const ledger = new LedgerRunLinkLedger(new DynamoDbLedger({ client: h.dynamo.client, tableName: h.dynamo.tableName }));
    const current = await ledger.currentRun('on-demand');
    // A starter died between taking the slot and writing the job: two minutes ago, no job status.
    const crashed = { exportId: 'crashed-start-0001', startedAt: new Date(Date.now() - 120_000).toISOString() };
    expect(await ledger.swapRun('on-demand', current?.exportId, crashed)).toBe(true);
    const before = h.lambda.invocations.length;
    const answer = await post({ report: 'on-demand' });
    expect(answer.body.joined).toBe(false);
    expect(answer.body.id).not.toBe(crashed.exportId);
    expect(h.lambda.invocations.length - before).toBe(1);
    expect((await ledger.currentRun('on-demand'))?.exportId).toBe(answer.body.id);
    await h.lambda.settled();
  });
});
