import { fixedClock } from '../../../shared/core/clock';
import { StorageError } from '../../../shared/core/errors';
import { silentLog } from '../../../shared/core/logger';
import { createUnsubscribeToken } from '../../../shared/links/unsubscribe-token';
import { createApiRouter, type ApiDependencies } from '../../../shared/http/router';
import { runJob } from '../../../shared/job/run-job';
import { SuppressionList } from '../../../shared/messages/recipients/suppressions';
import { describe, expect, it } from 'vitest';
import { httpApiEvent, lambdaContext } from '../../support/lambda-events';
import { MAILED_JOB_LINK_KEYS, useMailedJobs } from '../../support/mailed-jobs';

/**
 * A recipient's unsubscribe link (RFC 8058 one-click and the footer's page), through the export API's
 * routes, and what the next run does with it: that address is not e-mailed, the others are.
 */
const T0 = new Date('2026-11-23T06:00:00Z');
const WEEKLY = {
  name: 'weekly',
  datasets: { risks: {} },
  formats: ['csv'],
  email: { to: ['ann@example.test'], cc: ['Bob@Example.test'] },
};
const ADDRESSES = ['ann@example.test', 'bob@example.test'];
const jobs = useMailedJobs('unsubscribe-');

function api(now = T0): ApiDependencies {
  return {
    suppressions: jobs.ledger,
    linkKeys: () => Promise.resolve(MAILED_JOB_LINK_KEYS),
    clock: fixedClock(now),
    log: silentLog,
  } as unknown as ApiDependencies;
}
/** The e-mail's link through the export API's router, as API Gateway hands it the request. */
const unsubscribe = (method: 'GET' | 'POST', token: string, body: string | undefined, now = T0) =>
  createApiRouter(api(now)).resolve(
    httpApiEvent(method, `${method} /unsubscribe/{token}`, `/unsubscribe/${token}`, { pathParameters: { token }, ...(body !== undefined && { body }) }),
    lambdaContext('export-api'),
  );
const request = (method: 'GET' | 'POST', token: string, body?: string) => unsubscribe(method, token, body);
const token = (address: string) => createUnsubscribeToken({ report: 'weekly', address }, MAILED_JOB_LINK_KEYS.current, T0);

describe('the unsubscribe link', () => {
  it('pauses one recipient of one report on a one-click POST; a GET only shows the button', async () => {
    const list = new SuppressionList(jobs.ledger);
    const page = await request('GET', token('ann@example.test'));
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Stop e-mailing me this report');
    expect(await list.of('weekly', ADDRESSES)).toEqual({});

    const click = await request('POST', token('ann@example.test'), 'List-Unsubscribe=One-Click');
    expect({ status: click.statusCode, body: click.body }).toEqual({ status: 200, body: 'Unsubscribed.\n' });
    expect(await list.of('weekly', ADDRESSES)).toEqual({ 'ann@example.test': { since: T0.toISOString(), reason: 'unsubscribed' } });
  });

  it('undoes and redoes it from the page, and refuses a link that is forged or expired', async () => {
    const list = new SuppressionList(jobs.ledger);
    const paused = await request('POST', token('bob@example.test'), 'action=unsubscribe');
    expect(paused.body).toContain('no longer gets the report');
    expect(Object.keys(await list.of('weekly', ADDRESSES))).toEqual(['bob@example.test']);
    const back = await request('POST', token('bob@example.test'), 'action=resubscribe');
    expect(back.body).toContain('again from its next run');
    expect(await list.of('weekly', ADDRESSES)).toEqual({});

    const forged = createUnsubscribeToken({ report: 'weekly', address: 'bob@example.test' }, { id: 'k1', secret: 'z'.repeat(48) }, T0);
    expect((await request('POST', forged, 'List-Unsubscribe=One-Click')).statusCode).toBe(403);
    const late = await unsubscribe('POST', token('bob@example.test'), 'List-Unsubscribe=One-Click', new Date(T0.getTime() + 91 * 86_400_000));
    expect(late.statusCode).toBe(403);
    expect(await list.of('weekly', ADDRESSES)).toEqual({});
  });

  it('keeps the next run from e-mailing an address that unsubscribed; each other recipient gets its own message and link', async () => {
    const first = await runJob({ report: 'weekly', source: 'schedule', scheduledTime: '2026-11-23T06:00:00Z' }, jobs.deps({ weekly: WEEKLY }, fixedClock(T0)));
    expect(first.status).toBe('succeeded');
    const [ann] = await jobs.mailsTo('ann@example.test');
    const [bob] = await jobs.mailsTo('Bob@Example.test');
    expect(ann?.destination).toEqual({ to: ['ann@example.test'], cc: [], bcc: [] });
    expect(bob?.destination.to).toEqual(['Bob@Example.test']);
    const annLink = ann?.headers?.find((h) => h.name === 'List-Unsubscribe')?.value;
    const bobLink = bob?.headers?.find((h) => h.name === 'List-Unsubscribe')?.value;
    expect(annLink).toMatch(/^<https:\/\/api\.example\.test\/unsubscribe\/[\w-]+\.[\w-]+>$/);
    expect(bobLink).not.toBe(annLink);
    expect(ann?.headers?.find((h) => h.name === 'List-Unsubscribe-Post')?.value).toBe('List-Unsubscribe=One-Click');
    expect(ann?.body.html).toContain(annLink!.slice(1, -1));

    // Ann's mail client unsubscribes with her link's token.
    const annToken = annLink!.slice(annLink!.lastIndexOf('/') + 1, -1);
    expect((await request('POST', annToken, 'List-Unsubscribe=One-Click')).statusCode).toBe(200);
    await jobs.ses.clearStore();
    const week = new Date('2026-11-30T06:00:00Z');
    const next = await runJob({ report: 'weekly', source: 'schedule', scheduledTime: week.toISOString() }, jobs.deps({ weekly: WEEKLY }, fixedClock(week)));
    expect(next.status === 'succeeded' && next.delivery.reason).toMatch(/\(1 recipient is not e-mailed: unsubscribed or bounced\)$/);
    expect(await jobs.mailsTo('ann@example.test')).toEqual([]);
    expect(await jobs.mailsTo('Bob@Example.test')).toHaveLength(1);
  });

  it("lifts only the reader's own unsubscribe: a bounce or a complaint stays until the owners lift it", async () => {
    const list = new SuppressionList(jobs.ledger);
    await list.suppress('weekly', 'ann@example.test', 'bounced', T0);
    await list.suppress('weekly', 'bob@example.test', 'complained', T0);
    for (const address of ADDRESSES) {
      const page = await request('GET', token(address));
      expect(page.body).toContain('Ask the report');
      expect(page.body).not.toContain('E-mail me this report again');
      // The button's POST, as a forwarded copy's reader could send it, changes nothing.
      const again = await request('POST', token(address), 'action=resubscribe');
      expect(again.statusCode).toBe(200);
      expect(again.body).not.toContain('again from its next run');
    }
    expect(await list.of('weekly', ADDRESSES)).toEqual({
      'ann@example.test': { since: T0.toISOString(), reason: 'bounced' },
      'bob@example.test': { since: T0.toISOString(), reason: 'complained' },
    });
    // A one-click unsubscribe keeps the first reason, and the owner's command lifts either.
    expect((await request('POST', token('ann@example.test'), 'List-Unsubscribe=One-Click')).statusCode).toBe(200);
    expect((await list.of('weekly', ['ann@example.test']))['ann@example.test']?.reason).toBe('bounced');
    expect(await list.lift('weekly', 'ann@example.test', T0)).toBe('lifted');
    expect(await list.of('weekly', ['ann@example.test'])).toEqual({});
  });

  it('answers 503 with Retry-After, never a 200, when the ledger cannot take the one-click unsubscribe', async () => {
    const failing = { ...jobs.ledger, get: jobs.ledger.get.bind(jobs.ledger), describe: () => 'failing', put: () => Promise.reject(new StorageError('throttled', { retryable: true })) };
    const router = createApiRouter({ ...api(), suppressions: failing });
    const t = token('ann@example.test');
    const answer = await router.resolve(
      httpApiEvent('POST', 'POST /unsubscribe/{token}', `/unsubscribe/${t}`, { pathParameters: { token: t }, body: 'List-Unsubscribe=One-Click' }),
      lambdaContext('export-api'),
    );
    expect({ status: answer.statusCode, retryAfter: answer.headers?.['retry-after'] }).toEqual({ status: 503, retryAfter: '60' });
    expect(await new SuppressionList(jobs.ledger).of('weekly', ADDRESSES)).toEqual({});
  });
});
