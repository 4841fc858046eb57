// @tier slow
import { GetObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLambdaHarness, type LambdaHarness } from '../support/lambda-harness';
import { httpApiEvent, lambdaContext } from '../support/lambda-events';

/**
 * What the on-demand API lets a caller do and see. Before: POST /exports accepted any override (another report's
 * name moved its latest.json; email.to made SES send the caller's subject anywhere; an inline
 * definition could do both); an unknown report name listed every configured report; a failed job's
 * status showed the secret's name. Runs through the real handlers against s3rver and SES local.
 */

const WEEKLY = { name: 'weekly', datasets: { risks: {} }, formats: ['csv'], email: { to: ['team@example.test'] } };
const PAYROLL = { name: 'payroll-risks', datasets: { risks: {} }, formats: ['csv'] };

function harnessApi(h: () => LambdaHarness) {
  const post = async (body: unknown) => {
    const response = await h().apiHandler(httpApiEvent('POST', 'POST /exports', '/exports', { body: JSON.stringify(body) }), lambdaContext('export-api'));
    return { statusCode: response.statusCode, body: String(response.body), json: JSON.parse(String(response.body)) as Record<string, unknown> };
  };
  const status = async (id: string) => {
    const response = await h().apiHandler(
      httpApiEvent('GET', 'GET /exports/{id}', `/exports/${id}`, { pathParameters: { id } }),
      lambdaContext('export-api'),
    );
    return JSON.parse(String(response.body)) as { status: string; error?: string; report: string; manifestKey?: string };
  };
  const keys = async (prefix: string) => {
    const out = await h().s3.client.send(new ListObjectsV2Command({ Bucket: h().s3.bucket, Prefix: prefix }));
    return (out.Contents ?? []).map((o) => o.Key!).sort();
  };
  const text = async (key: string) => {
    const out = await h().s3.client.send(new GetObjectCommand({ Bucket: h().s3.bucket, Key: key }));
    return out.Body!.transformToString();
  };
  return { post, status, keys, text };
}

describe('the on-demand API grants only what callers need', () => {
  let h: LambdaHarness;
  const api = harnessApi(() => h);
  beforeAll(async () => {
    h = await startLambdaHarness({ weekly: WEEKLY, 'payroll-risks': PAYROLL });
  });
  afterAll(async () => {
    await h.close();
  });

  it('refuses overrides.name, so nobody writes into another report or moves its latest.json', async () => {
    await h.exportHandler({ report: 'payroll-risks', source: 'schedule', scheduledTime: '2026-11-23T06:00:00Z' }, lambdaContext('export-report'));
    const latestBefore = await api.text('reports/payroll-risks/latest.json');
    const invocations = h.lambda.invocations.length;

    const refused = await api.post({ report: 'weekly', overrides: { name: 'payroll-risks' } });
    expect(refused.statusCode).toBe(400);
    expect(refused.json.issues).toEqual([expect.objectContaining({ path: 'overrides.name' })]);
    await h.lambda.settled();
    expect(h.lambda.invocations).toHaveLength(invocations);
    expect(await api.text('reports/payroll-risks/latest.json')).toBe(latestBefore);
  });

  it('refuses overrides of recipients and subject: no mail leaves for the caller', async () => {
    const refused = await api.post({ report: 'weekly', overrides: { email: { to: ['victim@elsewhere.test'], subjectTemplate: 'Invoice overdue' } } });
    expect(refused.statusCode).toBe(400);
    expect(refused.json.issues).toEqual([expect.objectContaining({ path: 'overrides.email' })]);
    await h.lambda.settled();
    expect((await h.ses.fetchStore()).filter((m) => m.destination.to.includes('victim@elsewhere.test'))).toEqual([]);
  });

  it('refuses selectors outside the configured scope but runs a narrowed export', async () => {
    const scoped = await api.post({ report: 'weekly', overrides: { datasets: { okrs: {} } } });
    expect(scoped.statusCode).toBe(400);
    const narrowed = await api.post({ report: 'weekly', overrides: { formats: ['csv'], datasets: { risks: { registers: [h.sim.tenant.registers[0]!.id] } } } });
    expect(narrowed.statusCode).toBe(202);
    await h.lambda.settled();
    const done = await api.status(narrowed.json.id as string);
    expect(done.status).toBe('succeeded');
    expect(done.report).toBe('weekly');
  });

  it('refuses inline definitions while the stack has not turned them on', async () => {
    const refused = await api.post({ definition: { ...PAYROLL, email: { to: ['victim@elsewhere.test'] } } });
    expect(refused.statusCode).toBe(400);
    expect(refused.body).toMatch(/inline definitions are turned off/);
  });

  it('an unknown report name does not list the configured reports', async () => {
    const unknown = await api.post({ report: 'secret-plans' });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.body).not.toMatch(/weekly|payroll/);
  });
});

describe('inline definitions when the stack turns them on', () => {
  let h: LambdaHarness;
  const api = harnessApi(() => h);
  beforeAll(async () => {
    h = await startLambdaHarness(
      { 'payroll-risks': PAYROLL },
      { env: { INLINE_DEFINITIONS: 'on', INLINE_PREFIX: 'adhoc-', INLINE_EMAIL_DOMAINS: 'example.test' } },
    );
  });
  afterAll(async () => {
    await h.close();
  });

  it('write under their own prefix, never into a configured report', async () => {
    await h.exportHandler({ report: 'payroll-risks', source: 'schedule', scheduledTime: '2026-11-23T06:00:00Z' }, lambdaContext('export-report'));
    const latestBefore = await api.text('reports/payroll-risks/latest.json');
    const accepted = await api.post({ definition: PAYROLL });
    expect(accepted.statusCode).toBe(202);
    expect(accepted.json.report).toBe('adhoc-payroll-risks');
    await h.lambda.settled();
    const done = await api.status(accepted.json.id as string);
    expect(done.status).toBe('succeeded');
    expect(done.manifestKey).toMatch(/^adhoc-payroll-risks\//);
    expect(await api.text('reports/payroll-risks/latest.json')).toBe(latestBefore);
    expect((await api.keys('reports/adhoc-payroll-risks/')).length).toBeGreaterThan(0);
  });

  it('e-mail only allow-listed domains, with the configured sender and the default subject', async () => {
    const refused = await api.post({ definition: { ...PAYROLL, email: { to: ['victim@elsewhere.test'] } } });
    expect(refused.statusCode).toBe(400);
    const subject = await api.post({ definition: { ...PAYROLL, email: { to: ['ok@example.test'], subjectTemplate: 'Invoice overdue' } } });
    expect(subject.statusCode).toBe(400);
    const accepted = await api.post({ definition: { ...PAYROLL, email: { to: ['ok@example.test'] } } });
    expect(accepted.statusCode).toBe(202);
    await h.lambda.settled();
    const mails = await h.ses.fetchStore();
    expect(mails.flatMap((m) => m.destination.to)).toEqual(['ok@example.test']);
    expect(mails[0]!.from).toBe('reports@example.test');
  });

  // Before: 202 for deliveries with any recipient or chat secret (nothing was sent only because inline runs are not sliced).
  it('hold their deliveries to the same rules: no recipient outside the allowed domains, no chat channel', async () => {
    const invocations = h.lambda.invocations.length;
    const refused = await api.post({
      definition: {
        ...PAYROLL,
        deliveries: [
          { name: 'outside', email: { to: ['ok@example.test', 'victim@elsewhere.test'], subjectTemplate: 'Invoice overdue' } },
          { name: 'chat', delivery: { channels: [{ type: 'slack', webhook: { secretId: 'chat/webhooks', key: 'rte' } }] } },
        ],
      },
    });
    expect(refused.statusCode).toBe(400);
    expect((refused.json.issues as { path: string }[]).map((i) => i.path)).toEqual([
      'definition.deliveries.0.email.subjectTemplate',
      'definition.deliveries.0.email.to.1',
      'definition.deliveries.1.delivery.channels',
    ]);
    await h.lambda.settled();
    expect(h.lambda.invocations).toHaveLength(invocations);
    const allowed = await api.post({ definition: { ...PAYROLL, deliveries: [{ name: 'inside', email: { to: ['ok@example.test'] } }] } });
    expect(allowed.statusCode).toBe(202);
    await h.lambda.settled();
  });

  // Before: CR/LF were stripped, but the title still followed the subject in quotes:
  // `adhoc-payroll-risks – 2026-… – "URGENT: reset your password Bcc: evil@… From: ceo@…"`.
  it("keep a caller's title out of the subject line: the default subject of the prefixed name, the title in the body", async () => {
    const bait = 'URGENT: reset your password Bcc: evil@elsewhere.test From: ceo@example.test';
    const accepted = await api.post({ definition: { ...PAYROLL, title: bait, email: { to: ['title@example.test'] } } });
    expect(accepted.statusCode).toBe(202);
    await h.lambda.settled();
    expect((await api.status(accepted.json.id as string)).status).toBe('succeeded');
    const mail = (await h.ses.fetchStore()).find((m) => m.destination.to.includes('title@example.test'));
    expect(mail?.subject).toMatch(/^adhoc-payroll-risks – \d{2}\/\d{2}\/\d{4}$/);
    expect(mail?.from).toBe('reports@example.test');
    expect(mail?.body.text).toContain(bait);
    expect(mail?.body.html).toContain('URGENT: reset your password');
  });
});

describe('a failed job does not show the secret to the caller', () => {
  let h: LambdaHarness;
  const api = harnessApi(() => h);
  beforeAll(async () => {
    h = await startLambdaHarness({ weekly: WEEKLY }, { planningSecret: (sim) => JSON.stringify({ ...sim.credentials(), apiKey: '' }) });
  });
  afterAll(async () => {
    await h.close();
  });

  it('says the credentials are unusable without naming the secret or an ARN', async () => {
    const accepted = await api.post({ report: 'weekly' });
    expect(accepted.statusCode).toBe(202);
    await h.lambda.settled();
    const failed = await api.status(accepted.json.id as string);
    expect(failed.status).toBe('failed');
    expect(failed.error).toMatch(/credentials could not be read or are incomplete/);
    expect(failed.error).not.toMatch(/planning\/credentials|arn:aws|secret "/);
    const event = h.events.events.filter((e) => e.DetailType === 'ReportFailed').at(-1);
    expect(event?.Detail).not.toMatch(/planning\/credentials|arn:aws/);
  });
});
