import { describe, expect, it } from 'vitest';
import { fixedClock } from '../../../../shared/core/clock';
import { SesMailer } from '../../../../shared/email/ses-mailer';
import { runJob, type JobContext } from '../../../../shared/job/run-job';
import { useRefusedDelivery } from '../../../support/mailed-jobs';
import { MESSAGE_REJECTED } from '../../../support/ses-refusals';
import { isOpenRiskStatus } from '../../../support/open-risks';

/**
 * Alerts as independent as the report's messages (issue 52, item 8), through the job against
 * aws-ses-v2-local (behind a front that refuses one address as the SES sandbox does) and a recorded
 * Slack webhook: a refused recipient or a failing webhook silences nobody else, never fails the
 * published run, and is owed the alert by the next runs until it goes out or the figure came back;
 * the owners hear of the failing alert channel and of the refused address once, through the owners' notices.
 */
const SLACK = 'slack/T01/B01/alert-secret';
const OWNER = 'owner@example.test';
const delivery = useRefusedDelivery('alert-stage-');
const { jobs } = delivery;

describe('an alert with a refused recipient and a failing chat webhook', () => {
  it('reaches everyone else at once, and the others on a later run, until the figure comes back; the run stays published', async () => {
    const sim = jobs.sim;
    const open = () => sim.tenant.allRisks.filter((r) => isOpenRiskStatus(r.status.status));
    const closed = () => sim.tenant.allRisks.filter((r) => !isOpenRiskStatus(r.status.status));
    const line = open().length;
    const report = {
      name: 'risk-alerts',
      title: 'Train A risks',
      datasets: { risks: {} },
      formats: ['csv'],
      email: { to: ['a@example.test', 'bad@example.test', 'c@example.test'], onFailure: [OWNER], from: 'train-a@example.test' },
      delivery: { when: 'alerts-only', channels: [{ type: 'slack', webhook: { secretId: 'hooks', key: 'rte' } }] },
      alerts: { rules: [{ figure: 'openRisks', above: line }] },
    };
    const mailer = new SesMailer({ client: delivery.ses.client });
    const run = (at: string) => {
      const deps: JobContext = {
        ...jobs.deps({ [report.name]: report }, fixedClock(new Date(at))),
        mail: { send: (email) => mailer.send(email) },
        channels: { webhooks: { webhookUrl: () => Promise.resolve(delivery.hooks.url(SLACK)) }, post: { sleep: () => Promise.resolve() } },
      };
      return runJob({ report: report.name, source: 'schedule', scheduledTime: at }, deps);
    };
    const store = async () => (await jobs.ses.fetchStore()).map((m) => ({ to: m.destination.to.join(','), subject: m.subject }));
    const alertsTo = async () => (await store()).filter((m) => m.subject.startsWith('Alert: ')).map((m) => m.to).sort();
    // Every post that reached the webhook, the ones it answered 404 included.
    const slackPosts = () => delivery.hooks.postsTo(SLACK).length;

    expect((await run('2026-11-02T06:00:00Z')).status).toBe('succeeded');

    // Week 2: one risk more than the line. SES refuses bad@, the webhook answers 404 (not retried).
    const reopened = closed()[0]!.id;
    sim.advance({ risks: [{ id: reopened, reopen: true }] });
    delivery.ses.refuse.set('bad@example.test', MESSAGE_REJECTED);
    delivery.hooks.script({ status: 404, body: 'channel_not_found' });
    const week2 = await run('2026-11-09T06:00:00Z');
    expect(week2.status).toBe('succeeded');
    if (week2.status !== 'succeeded') return;
    expect(week2.alerts?.sent).toBe(true);
    expect(week2.alerts?.reason).toMatch(new RegExp(`^sent: openRisks-above-${line} crossed \\(1 line\\); not delivered, owed to the next run: bad@example\\.test \\(.*MessageRejected.*\\), slack \\(.*404`));
    expect(await alertsTo()).toEqual(['a@example.test', 'c@example.test']);
    expect(slackPosts()).toBe(1);
    // The owners hear that the Slack alert is failing, once.
    const notices = (await store()).filter((m) => m.to === OWNER && m.subject.includes('alert delivery'));
    expect(notices.map((m) => m.subject)).toEqual(['Report "Train A risks": Slack alert delivery is failing']);
    // And of the refused address, once, through the same engine (the report's own messages were not sent: alerts only).
    const refusedNotices = async () => (await jobs.ses.fetchStore()).filter((m) => m.destination.to.includes(OWNER) && m.subject.includes('could not be e-mailed'));
    const refused = await refusedNotices();
    expect(refused.map((m) => m.subject)).toEqual(['Train A risks: 1 alert recipient could not be e-mailed']);
    expect(refused[0]?.body.text).toMatch(/^The alert of run \S+ of "Train A risks" could not be e-mailed to this address: the mail service refused it\.\n\n {2}bad@example\.test: .*MessageRejected/);
    expect(refused[0]?.body.text).toContain('The alert was sent to 2 of 3 recipients; the run is kept.');
    // Every owners' notice of the report comes from the report's own sender, as its alerts do, not the stack's.
    const toOwner = (await jobs.ses.fetchStore()).filter((m) => m.destination.to.includes(OWNER));
    expect([...new Set(toOwner.map((m) => m.from))]).toEqual(['train-a@example.test']);

    // Week 3: still beyond the line, no news; the refused address and the channel take it now.
    delivery.ses.refuse.clear();
    await jobs.ses.clearStore();
    const week3 = await run('2026-11-16T06:00:00Z');
    expect(week3.status === 'succeeded' && week3.alerts?.reason).toBe('sent: what an earlier run could not deliver');
    expect(await alertsTo()).toEqual(['bad@example.test']);
    expect(slackPosts()).toBe(2);
    expect((delivery.hooks.postsTo(SLACK)[1]?.body as { text: string }).text).toBe(`Alert: Train A risks: Open risks: ${line + 1}, above ${line}`);
    expect((await store()).filter((m) => m.to === OWNER && m.subject.includes('alert delivery')).map((m) => m.subject)).toEqual(['Report "Train A risks": Slack alert delivery works again']);
    expect(await refusedNotices()).toEqual([]);

    // Week 4: nothing owed, nothing new: nobody hears anything.
    await jobs.ses.clearStore();
    const week4 = await run('2026-11-23T06:00:00Z');
    expect(week4.status === 'succeeded' && week4.alerts?.sent).toBe(false);
    expect(await alertsTo()).toEqual([]);
    expect(slackPosts()).toBe(2);

    // Week 5: back on the line, then beyond again (a new crossing) while the webhook fails again.
    sim.advance({ risks: [{ id: reopened, close: true }] });
    expect((await run('2026-11-26T06:00:00Z')).status).toBe('succeeded');
    const again = closed().find((r) => r.id !== reopened)!.id;
    sim.advance({ risks: [{ id: again, reopen: true }] });
    delivery.hooks.script({ status: 404, body: 'channel_not_found' });
    const week5 = await run('2026-11-30T06:00:00Z');
    expect(week5.status === 'succeeded' && week5.alerts?.reason).toMatch(/owed to the next run: slack/);
    expect(slackPosts()).toBe(3);
    expect(await alertsTo()).toEqual(['a@example.test', 'bad@example.test', 'c@example.test']);

    // Week 6: the figure came back before the channel took it: nothing is posted, nothing is owed.
    sim.advance({ risks: [{ id: again, close: true }] });
    const week6 = await run('2026-12-07T06:00:00Z');
    expect(week6.status === 'succeeded' && week6.alerts?.sent).toBe(false);
    expect(slackPosts()).toBe(3);
    const week7 = await run('2026-12-14T06:00:00Z');
    expect(week7.status === 'succeeded' && week7.alerts?.sent).toBe(false);
    expect(slackPosts()).toBe(3);
  }, 120_000);
});
