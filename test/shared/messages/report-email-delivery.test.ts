import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { fixedClock } from '../../../shared/core/clock';
import { RetryableExportError } from '../../../shared/core/errors';
import { SesMailer } from '../../../shared/email/ses-mailer';
import { runJob, type JobContext } from '../../../shared/job/run-job';
import { useMailedJobs } from '../../support/mailed-jobs';
import { MESSAGE_REJECTED, startRefusingSes, THROTTLED, type RefusingSes } from '../../support/ses-refusals';

/**
 * Every recipient is mailed on its own (issue 42, item 3): SES refusing one address (MessageRejected,
 * as the sandbox refuses an unverified one) does not stop the e-mail to the others nor fail the run;
 * the run's outcome says how many of the recipients got it and names the refused one, and the
 * owners are told once. A throttled address is retried as before: the run fails retryable after
 * mailing everyone else, and its retry sends to that address alone.
 */
const WEEKLY = {
  name: 'weekly',
  title: 'Weekly',
  datasets: { risks: {} },
  formats: ['csv'],
  email: { to: ['a@example.test', 'bad@example.test', 'c@example.test'], cc: ['d@example.test'], onFailure: ['owner@example.test'] },
};
const jobs = useMailedJobs('report-email-delivery-');
let ses: RefusingSes;
beforeAll(async () => {
  ses = await startRefusingSes(jobs.ses.endpoint);
});
afterEach(() => ses.refuse.clear());
afterAll(() => ses.close());

/** A scheduled run at `at`, mailing through the refusing SES. */
function scheduled(at: string) {
  const mailer = new SesMailer({ client: ses.client });
  const deps: JobContext = { ...jobs.deps({ weekly: WEEKLY }, fixedClock(new Date(at))), mail: { send: (email) => mailer.send(email) } };
  return runJob({ report: 'weekly', source: 'schedule', scheduledTime: at }, deps);
}

/** Who got the report's own e-mail (the owners' notices left out). */
const mailed = async () => (await jobs.ses.fetchStore()).filter((m) => m.subject.startsWith('Weekly –')).flatMap((m) => [...m.destination.to, ...m.destination.cc]).sort();

describe('a recipient SES refuses', () => {
  it('is named in the outcome and told to the owners once; every other recipient is mailed, every week', async () => {
    ses.refuse.set('bad@example.test', MESSAGE_REJECTED);
    const first = await scheduled('2026-11-23T06:00:00Z');
    expect(first.status).toBe('succeeded');
    if (first.status !== 'succeeded') return;
    expect(first.delivery.reason).toMatch(/; e-mail sent to 3 of 4 recipients; refused: bad@example\.test \(MessageRejected: Email address is not verified/);
    expect(first.delivery.refused).toEqual([expect.objectContaining({ address: 'bad@example.test' })]);
    const store = await jobs.ses.fetchStore();
    const notices = store.filter((m) => m.subject.includes('could not be e-mailed'));
    expect(notices).toHaveLength(1);
    expect(notices[0]?.subject).toBe('Weekly: 1 recipient could not be e-mailed');
    expect(notices[0]?.body.text).toContain('bad@example.test');
    expect(notices[0]?.body.text).toContain('MessageRejected');
    expect(notices[0]?.destination.to).toEqual(['owner@example.test']);
    expect(await mailed()).toEqual(['a@example.test', 'c@example.test', 'd@example.test']);

    // Next week the same: the others get it, the owners are not told again.
    await jobs.ses.clearStore();
    const next = await scheduled('2026-11-30T06:00:00Z');
    expect(next.status === 'succeeded' && next.delivery.reason).toMatch(/sent to 3 of 4 recipients/);
    expect(await mailed()).toEqual(['a@example.test', 'c@example.test', 'd@example.test']);
    expect((await jobs.ses.fetchStore()).filter((m) => m.subject.includes('could not be e-mailed'))).toEqual([]);
  });

  it('retries a throttled recipient as before, after mailing the others; the retry mails that one alone', async () => {
    ses.refuse.set('bad@example.test', THROTTLED);
    // A scheduled run's transient failure is thrown for the invocation's retry policy.
    await expect(scheduled('2026-11-23T06:00:00Z')).rejects.toThrow(RetryableExportError);
    expect(await mailed()).toEqual(['a@example.test', 'c@example.test', 'd@example.test']);
    ses.refuse.clear();
    await jobs.ses.clearStore();
    const retry = await scheduled('2026-11-23T06:00:00Z');
    expect(retry.status).toBe('succeeded');
    expect(await mailed()).toEqual(['bad@example.test']);
  });
});
