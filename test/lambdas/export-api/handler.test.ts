// @tier slow
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLinkToken } from '../../../shared/links/link-token';
import { API_BASE_URL, LINK_KEYS, startLambdaHarness, type LambdaHarness } from '../../support/lambda-harness';
import { httpApiEvent, lambdaContext } from '../../support/lambda-events';

const ON_DEMAND = { name: 'on-demand', datasets: { risks: {}, okrs: {} }, formats: ['xlsx', 'csv'] };

describe('export-api handler', () => {
  let h: LambdaHarness;
  beforeAll(async () => {
    h = await startLambdaHarness({ 'on-demand': ON_DEMAND });
  });
  afterAll(async () => {
    await h.close();
  });

  const post = (body: string, base64 = false) =>
    h.apiHandler(httpApiEvent('POST', 'POST /exports', '/exports', { body, base64 }), lambdaContext('export-api'));
  const status = (id: string) =>
    // As API Gateway hands it on: the path encoded, the parameter decoded.
    h.apiHandler(httpApiEvent('GET', 'GET /exports/{id}', `/exports/${encodeURIComponent(id)}`, { pathParameters: { id } }), lambdaContext('export-api'));
  const link = (token: string) =>
    h.apiHandler(httpApiEvent('GET', 'GET /links/{token}', `/links/${token}`, { pathParameters: { token } }), lambdaContext('export-api'));

  it('starts an export with 202, runs it asynchronously, and then serves its files through presigned links', async () => {
    const accepted = await post(JSON.stringify({ report: 'on-demand', overrides: { formats: ['csv', 'xlsx'] } }), true);
    expect(accepted.statusCode).toBe(202);
    const body = JSON.parse(String(accepted.body)) as { id: string; status: string; statusUrl: string };
    expect(body.status).toBe('queued');
    expect(body.statusUrl).toBe(`${API_BASE_URL}/exports/${body.id}`);
    expect(accepted.headers!.location).toBe(body.statusUrl);
    expect(h.lambda.invocations.at(-1)).toMatchObject({
      functionName: 'export-report',
      invocationType: 'Event',
      payload: { report: 'on-demand', exportId: body.id, source: 'api' },
    });

    // Read while the job may be writing its status: always a whole status, never a 500.
    const early = await status(body.id);
    expect(early.statusCode, String(early.body)).toBe(200);
    expect(['queued', 'running', 'succeeded']).toContain((JSON.parse(String(early.body)) as { status: string }).status);

    // The export runs in the Lambda stub; wait for it to finish rather than polling on a timer.
    await h.lambda.settled();
    const response = await status(body.id);
    expect(response.statusCode, String(response.body)).toBe(200);
    const current = JSON.parse(String(response.body)) as {
      status: string;
      files?: { path: string; url: string; sha256: string; bytes: number }[];
    };
    expect(current.status).toBe('succeeded');
    expect(current.files!.map((f) => f.path).sort()).toEqual(['changes.csv', 'okrs.csv', 'on-demand.xlsx', 'risk-custom-fields.csv', 'risks.csv', 'strategic-themes.csv']);
    for (const file of current.files!) {
      const bytes = Buffer.from(await (await fetch(file.url)).arrayBuffer());
      expect(bytes.length).toBe(file.bytes);
      expect(createHash('sha256').update(bytes).digest('hex')).toBe(file.sha256);
    }
  });

  it('runs a job once: a duplicate delivery, during or after the run, does nothing', async () => {
    const accepted = await post(JSON.stringify({ report: 'on-demand' }));
    const { id } = JSON.parse(String(accepted.body)) as { id: string };
    const payload = h.lambda.invocations.at(-1)!.payload;
    // The same event delivered twice more while the first is running (at-least-once delivery).
    const duplicates = await Promise.all([
      h.exportHandler(payload, lambdaContext('export-report')),
      h.exportHandler(payload, lambdaContext('export-report')),
    ]);
    await h.lambda.settled();
    const finished = JSON.parse(String((await status(id)).body)) as { status: string; updatedAt: string; runId: string };
    expect(finished.status).toBe('succeeded');
    const outcomes = duplicates as { status: string; reason?: string }[];
    // The first delivery may be either of the three; exactly one ran the export.
    const skipped = outcomes.filter((o) => o.status === 'skipped');
    expect(skipped.length).toBeGreaterThanOrEqual(1);
    for (const o of skipped) expect(o.reason).toMatch(new RegExp(`export ${id} is already (running|succeeded)`));
    const exported = h.events.events.filter((e) => JSON.parse(String(e.Detail)).exportId === id && e.DetailType === 'ReportExported');
    expect(exported).toHaveLength(1);

    const late = (await h.exportHandler(payload, lambdaContext('export-report'))) as { status: string };
    expect(late.status).toBe('skipped');
    expect(JSON.parse(String((await status(id)).body))).toMatchObject({ status: 'succeeded', updatedAt: finished.updatedAt, runId: finished.runId });
  });

  it('answers 400 with the field and reason for bad input', async () => {
    const notJson = await post('{"report":');
    expect(notJson.statusCode).toBe(400);
    expect(JSON.parse(String(notJson.body)).issues[0].path).toBe('(body)');

    const badField = await post(JSON.stringify({ report: 'on-demand', overrides: { formats: ['docx'] } }));
    expect(badField.statusCode).toBe(400);
    expect(JSON.parse(String(badField.body)).issues).toContainEqual(expect.objectContaining({ path: 'formats.0' }));

    // An unknown name is refused without telling the caller which reports exist.
    const unknown = await post(JSON.stringify({ report: 'nope' }));
    expect(unknown.statusCode).toBe(400);
    expect(JSON.parse(String(unknown.body)).message).toContain('"nope"');
    expect(String(unknown.body)).not.toContain('on-demand');

    const extra = await post(JSON.stringify({ report: 'on-demand', colour: 'blue' }));
    expect(extra.statusCode).toBe(400);
    expect(String(extra.body)).toContain('colour');
  });

  it('answers 404 for an unknown export id and 400 for a malformed one', async () => {
    expect((await status('0123456789abcdef')).statusCode).toBe(404);
    expect((await status('../../etc')).statusCode).toBe(400);
  });

  it('answers 403 with no detail for tampered, expired and malformed link tokens', async () => {
    const now = new Date();
    const valid = createLinkToken({ runKey: 'on-demand/dt=2026-11-23/run=x', file: 'risks.csv', expiresAt: new Date(now.getTime() + 3_600_000) }, LINK_KEYS.current, now);
    const expired = createLinkToken({ runKey: 'on-demand/dt=2026-11-23/run=x', file: 'risks.csv', expiresAt: new Date(now.getTime() - 1000) }, LINK_KEYS.current, new Date(now.getTime() - 3_600_000));
    const [payload, signature] = valid.split('.');
    const tampered = `${payload!.slice(0, -2)}AA.${signature}`;
    const bodies = new Set<string>();
    for (const token of [tampered, expired, 'not-a-token', `${payload}.${'A'.repeat(43)}`]) {
      const response = await link(token);
      expect(response.statusCode).toBe(403);
      bodies.add(String(response.body));
    }
    expect([...bodies]).toEqual([JSON.stringify({ message: 'invalid or expired link' })]);
    expect((await link(valid)).statusCode).toBe(302);
  });

  it('never leaks internals: an unknown route is a plain 404', async () => {
    const response = await h.apiHandler(httpApiEvent('GET', 'GET /admin', '/admin'), lambdaContext('export-api'));
    expect(response.statusCode).toBe(404);
    expect(String(response.body)).not.toMatch(/at .*\.ts|stack/i);
  });
});
