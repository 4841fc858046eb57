import { describe, expect, it } from 'vitest';
import { fixedClock } from '../../../../shared/core/clock';
import { SesMailer } from '../../../../shared/email/ses-mailer';
import { runJob, type JobContext } from '../../../../shared/job/run-job';
import { useRefusedDelivery } from '../../../support/mailed-jobs';
import { MESSAGE_REJECTED } from '../../../support/ses-refusals';
import { isOpenRiskStatus } from '../../../support/open-risks';

/**
 * The owners' notices step (stages/notice.ts, issue 48 item 2): the deliver and alert stages hand on
 * what happened and one step tells the owners, each kind once and in the order they always came: the
 * report's chat channel, its refused recipients, the alert's channel, the alert's refused recipients.
 * Against aws-ses-v2-local behind a front that refuses one address, and a recorded Slack webhook.
 */
const SLACK = 'slack/T01/B01/notice-secret';
const OWNER = 'owner@example.test';
const delivery = useRefusedDelivery('notice-step-');
const { jobs } = delivery;

describe("the owners' notices of one run", () => {
  it('come after the run, once per kind, in the order of the stages that saw what happened', async () => {
    const line = jobs.sim.tenant.allRisks.filter((r) => isOpenRiskStatus(r.status.status)).length - 1;
    const report = {
      name: 'noticed',
      title: 'Noticed',
      datasets: { risks: {} },
      formats: ['csv'],
      email: { to: ['a@example.test', 'bad@example.test'], onFailure: [OWNER] },
      delivery: { when: 'always', channels: [{ type: 'slack', webhook: { secretId: 'hooks', key: 'rte' } }] },
      alerts: { rules: [{ figure: 'openRisks', above: line }] },
    };
    const mailer = new SesMailer({ client: delivery.ses.client });
    const deps: JobContext = {
      ...jobs.deps({ [report.name]: report }, fixedClock(new Date('2026-11-09T06:00:00Z'))),
      mail: { send: (email) => mailer.send(email) },
      channels: { webhooks: { webhookUrl: () => Promise.resolve(delivery.hooks.url(SLACK)) }, post: { sleep: () => Promise.resolve() } },
    };
    delivery.ses.refuse.set('bad@example.test', MESSAGE_REJECTED);
    // The report's post and the alert's post both answered 404 (not retried).
    delivery.hooks.script({ status: 404, body: 'channel_not_found' }, { status: 404, body: 'channel_not_found' });

    const outcome = await runJob({ report: report.name, source: 'schedule', scheduledTime: '2026-11-09T06:00:00Z' }, deps);
    expect(outcome.status).toBe('succeeded');
    if (outcome.status !== 'succeeded') return;
    expect(outcome.delivery.channels.map((c) => c.status)).toEqual(['failed']);
    expect(outcome.alerts?.channels.map((c) => c.status)).toEqual(['failed']);
    // What the owners got, in the order they got it: the note of served fields no column holds last.
    const toOwner = (await jobs.ses.fetchStore()).filter((m) => m.destination.to.includes(OWNER)).map((m) => m.subject);
    expect(toOwner).toEqual([
      'Report "Noticed": Slack delivery is failing',
      'Noticed: 1 recipient could not be e-mailed',
      'Report "Noticed": Slack alert delivery is failing',
      'Noticed: 1 alert recipient could not be e-mailed',
      'Noticed: the planning API sends fields the report does not hold',
    ]);
  });
});
