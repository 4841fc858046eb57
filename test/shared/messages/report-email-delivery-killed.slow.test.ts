// @tier slow
import { describe, expect, it } from 'vitest';
import { runJob } from '../../../shared/job/run-job';
import { SEND_TIMEOUT_MS, UNSENT_POLL_MS } from '../../../shared/messages/message-claim';
import { useMailedJobs } from '../../support/mailed-jobs';
import type { ClaimKilledJob } from '../../support/claim-killed-job';
import { killOnWord } from '../../support/killed-child';

/**
 * Kill trials of the message claims (issue 52, item 7): an export process is killed (SIGKILL) right
 * after the ledger took one recipient's claim, before that recipient's message went out. The run's
 * retry then comes when Lambda's first retry comes, a minute later: it must not read the claim as
 * "sent" (it was never marked sent) but wait it out and send, so every recipient is mailed exactly
 * once, read from aws-ses-v2-local's store. The clock is injected: the retry's wait moves it.
 */
const RECIPIENTS = ['a@example.test', 'b@example.test', 'c@example.test'];
const WEEKLY = { name: 'weekly', title: 'Weekly', datasets: { risks: {} }, formats: ['csv'], email: { to: RECIPIENTS } };
const AT = '2026-11-23T06:00:00Z';
const jobs = useMailedJobs('report-email-delivery-killed-');

/** Runs the job in a child process and kills it on its word that `address`'s claim is written. */
async function killedAfterClaimOf(address: string): Promise<void> {
  const job: ClaimKilledJob = { dir: jobs.dir, credentials: jobs.sim.credentials(), sesEndpoint: jobs.ses.endpoint, report: WEEKLY, scheduledTime: AT, dieAfterClaimOf: address };
  await killOnWord('test/support/claim-killed-job.ts', job, 'claimed');
}

/** Who got the report's e-mail, each address once per message. */
const mailed = async () => (await jobs.ses.fetchStore()).filter((m) => m.subject.startsWith('Weekly')).flatMap((m) => m.destination.to).sort();

describe('a recipient whose message was claimed by a killed attempt', () => {
  // Killed after the middle recipient's claim: the one retry shows each side of the victim at once (one
  // mailed before, not mailed again; one unclaimed after, mailed). Killing after the first's and the
  // last's claims as well showed one side each, a child process of ~5 s apiece.
  const index = 1;
  const victim = RECIPIENTS[index]!;

  it(`is mailed by the retry, and every recipient exactly once (killed after the claim of recipient ${index + 1} of ${RECIPIENTS.length})`, async () => {
    await killedAfterClaimOf(victim);
    expect(await mailed()).toEqual(RECIPIENTS.slice(0, index));

    // Lambda's first retry, a minute later: the claim is younger than the send timeout, so it waits.
    let now = Date.parse(AT) + 60_000;
    const waits: number[] = [];
    const wait = (ms: number) => {
      waits.push(ms);
      now += ms;
      return Promise.resolve();
    };
    const deps = jobs.deps({ weekly: WEEKLY }, () => new Date(now));
    const retry = await runJob({ report: 'weekly', source: 'schedule', scheduledTime: AT }, { ...deps, leaseWait: wait });
    expect(retry.status).toBe('succeeded');
    // It looks again every UNSENT_POLL_MS until the claim is as old as the send timeout, then sends.
    expect(waits).toEqual(Array.from({ length: (SEND_TIMEOUT_MS - 60_000) / UNSENT_POLL_MS }, () => UNSENT_POLL_MS));
    expect(await mailed()).toEqual(RECIPIENTS);

    // A later delivery of the same run sends nothing more.
    const again = await runJob({ report: 'weekly', source: 'schedule', scheduledTime: AT }, { ...deps, leaseWait: wait });
    expect(again.status === 'succeeded' && again.delivery.reason).toMatch(/not sent again/);
    expect(await mailed()).toEqual(RECIPIENTS);
  }, 60_000);

  it('without a way to wait, the retry fails retryable and names when it sends, rather than calling the message sent', async () => {
    await killedAfterClaimOf('b@example.test');
    const deps = jobs.deps({ weekly: WEEKLY }, () => new Date(Date.parse(AT) + 60_000));
    await expect(runJob({ report: 'weekly', source: 'schedule', scheduledTime: AT }, deps)).rejects.toThrow(/b@example\.test.*not marked sent yet: a retry from 2026-11-23T06:03:00\.000Z sends it/);
    expect(await mailed()).toEqual(['a@example.test', 'c@example.test']);
    // That later retry sends it, and only it.
    const later = await runJob({ report: 'weekly', source: 'schedule', scheduledTime: AT }, jobs.deps({ weekly: WEEKLY }, () => new Date(Date.parse(AT) + SEND_TIMEOUT_MS)));
    expect(later.status).toBe('succeeded');
    expect(await mailed()).toEqual(RECIPIENTS);
  }, 60_000);
});
