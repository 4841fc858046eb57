import { describe, expect, it } from 'vitest';
import { silentLog } from '../../shared/core/logger';
import { SesMailer } from '../../shared/email/ses-mailer';
import { countAttempt, LAMBDA_ASYNC_ATTEMPTS } from '../../shared/job/attempt';
import { runJob, type JobContext } from '../../shared/job/run-job';
import { noticeFailure, notificationStateKey } from '../../shared/messages/notices/failure-notice';
import { parseReportDefinition } from '../../shared/report/definition/definition';
import type { Ledger } from '../../shared/ledger/ledger';
import { useMailedJobs } from '../support/mailed-jobs';
import type { StoredMail } from '../support/ses-local';
import { startRefusingSes, THROTTLED } from '../support/ses-refusals';
import { zeroBackoffJitter } from '../support/zero-jitter';

/**
 * When a scheduled report fails its owners get ONE e-mail per failure streak (not one per retry or
 * per day) saying what failed and what to do, and one more when it works again. The mail is read
 * back from aws-ses-v2-local; the streak state lives in the ledger between "invocations". Each test
 * starts from an empty ledger, storage and mail store, so none depends on what another left behind.
 */

const WEEKLY = {
  name: 'weekly',
  title: 'Weekly risks',
  datasets: { risks: {} },
  formats: ['csv'],
  email: { to: ['team@example.test'], onFailure: ['owner@example.test'] },
};
const DAILY = { name: 'daily', datasets: { risks: {} }, formats: ['csv'], email: { to: ['readers@example.test'] } };
const PAIR = { name: 'pair', title: 'Pair', datasets: { risks: {} }, formats: ['csv'], email: { to: ['a@example.test', 'b@example.test'], onFailure: ['owner@example.test'] } };

describe('failure notifications', () => {
  const kit = useMailedJobs('notices-');

  function deps(at: string): JobContext {
    return kit.deps({ weekly: WEEKLY, daily: DAILY, pair: PAIR }, () => new Date(at));
  }

  /** One scheduled invocation; a retryable failure is thrown (for the Lambda's retry), which is fine here. */
  async function scheduled(report: string, scheduledTime: string, at = scheduledTime): Promise<string> {
    try {
      const outcome = await runJob({ report, source: 'schedule', scheduledTime }, deps(at));
      return outcome.status;
    } catch {
      return 'failed (retrying)';
    }
  }

  /**
   * One invocation as the export function's door makes it (lambdas/export-report/handler.ts): its
   * attempt counted in the ledger against Lambda's three; `context` changes the job's ports.
   */
  async function invoked(report: string, scheduledTime: string, at: string, context: Partial<JobContext> = {}): Promise<string> {
    const request = { report, source: 'schedule' as const, scheduledTime };
    const attempt = await countAttempt(request, { ledger: kit.ledger, clock: () => new Date(at) }, LAMBDA_ASYNC_ATTEMPTS);
    try {
      return (await runJob(request, { ...deps(at), ...context, attempt })).status;
    } catch {
      return 'failed (retrying)';
    }
  }

  const failAll = () => kit.sim.injectFault({ status: 401, times: 1000 });
  const mailsTo = (mails: StoredMail[], address: string) => mails.filter((m) => m.destination.to.includes(address));
  // The owners also get one notice when the served fields change (field-notice.test.ts); this test counts the streak's.
  const streakMails = (mails: StoredMail[]) => mailsTo(mails, 'owner@example.test').filter((m) => m.subject.startsWith('Report "'));

  it('one e-mail per failure streak to the owners, none per retry or per day, and one when it works again', async () => {
    failAll();
    expect(await scheduled('weekly', '2026-11-23T06:00:00Z')).toBe('failed');
    expect(await scheduled('weekly', '2026-11-23T06:00:00Z', '2026-11-23T06:05:00Z')).toBe('failed'); // a retry
    expect(await scheduled('weekly', '2026-11-24T06:00:00Z')).toBe('failed'); // the next day
    expect(await scheduled('weekly', '2026-11-25T06:00:00Z')).toBe('failed');

    let owner = mailsTo(await kit.ses.fetchStore(), 'owner@example.test');
    expect(owner).toHaveLength(1);
    expect(owner[0]!.subject).toBe('Report "Weekly risks" is failing');
    expect(owner[0]!.from).toBe('reports@example.test');
    const text = owner[0]!.body.text ?? '';
    expect(text).toContain('Run: s-20261123T060000Z');
    expect(text).toMatch(/What failed: listRiskRegisters: the planning API rejected the credentials \(401\)/);
    expect(text).toMatch(/What to do: Check the planning API user and its API key/);
    expect(mailsTo(await kit.ses.fetchStore(), 'team@example.test')).toEqual([]);

    kit.sim.clearInjectedFaults();
    expect(await scheduled('weekly', '2026-11-26T06:00:00Z')).toBe('succeeded');
    expect(await scheduled('weekly', '2026-11-27T06:00:00Z')).toBe('succeeded');
    owner = streakMails(await kit.ses.fetchStore());
    expect(owner.map((m) => m.subject)).toEqual(['Report "Weekly risks" is failing', 'Report "Weekly risks" works again']);
    expect(owner[1]!.body.text).toContain('Failing since: 2026-11-23T06:00:00.000Z (run s-20261123T060000Z)');
    // The recipients got their two reports, and nothing about the streak.
    expect(mailsTo(await kit.ses.fetchStore(), 'team@example.test')).toHaveLength(2);

    // A new streak is a new e-mail.
    failAll();
    expect(await scheduled('weekly', '2026-11-28T06:00:00Z')).toBe('failed');
    expect(streakMails(await kit.ses.fetchStore())).toHaveLength(3);
  });

  it('tells the recipients when the definition names no owners, and says what to do for a transient failure', async () => {
    zeroBackoffJitter();
    kit.sim.injectFault({ status: 503, times: 1000 });
    expect(await scheduled('daily', '2026-11-23T07:00:00Z')).toBe('failed (retrying)');
    expect(await scheduled('daily', '2026-11-23T07:00:00Z', '2026-11-23T07:02:00Z')).toBe('failed (retrying)');
    const readers = mailsTo(await kit.ses.fetchStore(), 'readers@example.test');
    expect(readers).toHaveLength(1);
    expect(readers[0]!.body.text).toMatch(/What to do: This kind of failure often passes by itself/);
  });

  it('a run failing retryably on its first two attempts tells no owner; its last attempt tells them once', async () => {
    zeroBackoffJitter();
    kit.sim.injectFault({ status: 503, times: 1000 });
    expect(await invoked('weekly', '2026-11-23T06:00:00Z', '2026-11-23T06:00:00Z')).toBe('failed (retrying)');
    expect(await invoked('weekly', '2026-11-23T06:00:00Z', '2026-11-23T06:01:00Z')).toBe('failed (retrying)');
    expect(streakMails(await kit.ses.fetchStore())).toEqual([]);
    expect(await invoked('weekly', '2026-11-23T06:00:00Z', '2026-11-23T06:03:00Z')).toBe('failed (retrying)');
    const told = streakMails(await kit.ses.fetchStore());
    expect(told.map((m) => m.subject)).toEqual(['Report "Weekly risks" is failing']);
    expect(told[0]!.body.text).toContain('Run: s-20261123T060000Z');
  });

  it('a failure no retry can mend is told on the first attempt', async () => {
    failAll();
    expect(await invoked('weekly', '2026-11-23T06:00:00Z', '2026-11-23T06:00:00Z')).toBe('failed');
    expect(streakMails(await kit.ses.fetchStore()).map((m) => m.subject)).toEqual(['Report "Weekly risks" is failing']);
  });

  it("never tells the owners of a throttle: the planning API's 429 fails the first attempt, SES's throttle the second, the last delivers to each reader once", async () => {
    const front = await startRefusingSes(kit.ses.endpoint);
    const mailer = new SesMailer({ client: front.client });
    const mail = { send: (email: Parameters<SesMailer['send']>[0]) => mailer.send(email) };
    try {
      kit.sim.injectFault({ status: 429, times: 1000 });
      expect(await invoked('pair', '2026-11-23T07:00:00Z', '2026-11-23T07:00:00Z', { mail })).toBe('failed (retrying)');
      kit.sim.clearInjectedFaults();
      front.refuse.set('b@example.test', THROTTLED);
      expect(await invoked('pair', '2026-11-23T07:00:00Z', '2026-11-23T07:01:00Z', { mail })).toBe('failed (retrying)');
      expect(front.refused).toBe(1);
      front.refuse.clear();
      expect(await invoked('pair', '2026-11-23T07:00:00Z', '2026-11-23T07:03:00Z', { mail })).toBe('succeeded');
    } finally {
      await front.close();
    }
    const mails = await kit.ses.fetchStore();
    expect(streakMails(mails)).toEqual([]);
    expect(mailsTo(mails, 'a@example.test')).toHaveLength(1);
    expect(mailsTo(mails, 'b@example.test')).toHaveLength(1);
  });

  it('concurrent attempts of one failing run send one e-mail', async () => {
    failAll();
    const outcomes = await Promise.all([0, 1, 2, 3].map(() => scheduled('weekly', '2026-12-01T06:00:00Z')));
    // The run ledger lets one attempt of a run id work at a time: the others are skipped, not failed.
    expect(outcomes).toContain('failed');
    expect(outcomes.every((o) => o === 'failed' || o === 'skipped')).toBe(true);
    expect(mailsTo(await kit.ses.fetchStore(), 'owner@example.test')).toHaveLength(1);
  });

  it('a stale writer (it read the state before another attempt changed it) sends nothing', async () => {
    const definition = { ...parseReportDefinition(WEEKLY), name: 'stale-case' };
    const key = notificationStateKey('stale-case');
    const staleOk = { status: 'ok', since: '2026-11-01T00:00:00.000Z', runId: 'old', writer: 'w-old' };
    expect(await kit.ledger.put(key, staleOk, 0)).toBe(true);
    const stale = await kit.ledger.get(key);
    // Attempt B moves the state on from staleOk and tells the owners.
    const b = await noticeFailure(
      definition,
      { runId: 'r-b', reason: 'boom', errorType: 'PlanningApiError', retryable: true },
      { ledger: kit.ledger, mail: { send: () => Promise.resolve() }, sender: 'reports@example.test', log: silentLog, now: new Date('2026-12-02T06:00:00Z') },
    );
    expect(b).toBe('sent');
    const fresh = await kit.ledger.get(key);
    // Attempt A read the state before B wrote it: its first read returns the stale entry.
    let reads = 0;
    const staleLedger: Ledger = {
      get: (k) => (k === key && reads++ === 0 ? Promise.resolve(stale) : kit.ledger.get(k)),
      put: (k, v, expected, options) => kit.ledger.put(k, v, expected, options),
      describe: () => kit.ledger.describe(),
    };
    const sent: unknown[] = [];
    const outcome = await noticeFailure(
      definition,
      { runId: 'r-a', reason: 'boom', errorType: 'PlanningApiError', retryable: true },
      { ledger: staleLedger, mail: { send: (m) => Promise.resolve(sent.push(m)) }, sender: 'reports@example.test', log: silentLog, now: new Date('2026-12-02T06:01:00Z') },
    );
    expect(outcome).toBe('lost-race');
    expect(sent).toEqual([]);
    expect(await kit.ledger.get(key)).toEqual(fresh);
  });
});
