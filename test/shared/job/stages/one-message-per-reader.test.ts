import { describe, expect, it } from 'vitest';
import { fixedClock } from '../../../../shared/core/clock';
import { runJob } from '../../../../shared/job/run-job';
import { useMailedJobs } from '../../../support/mailed-jobs';
import { isOpenRiskStatus } from '../../../support/open-risks';

/**
 * One message per reader per run (issue 50, item 2), on real sent mail (aws-ses-v2-local): a reader
 * of the weekly e-mail who is also told of alerts gets the weekly e-mail opened by the lines crossed,
 * with the figure marked against the line, and no separate alert; a target of the alert alone still
 * gets the alert; a reader not told of alerts gets the weekly e-mail as before.
 */
const jobs = useMailedJobs('one-message-');

describe('a weekly e-mail and an alert in the same run', () => {
  it('go to a reader of both as one message; the alert alone to the others', async () => {
    const sim = jobs.sim;
    const line = sim.tenant.allRisks.filter((r) => isOpenRiskStatus(r.status.status)).length;
    const report = {
      name: 'weekly-with-alerts',
      title: 'Train A',
      datasets: { risks: {} },
      formats: ['csv'],
      email: { to: ['rte@example.test', 'pm@example.test'] },
      alerts: { rules: [{ figure: 'openRisks', above: line }], to: { email: ['rte@example.test', 'ops@example.test'] } },
    };
    const run = (at: string) => runJob({ report: report.name, source: 'schedule', scheduledTime: at }, jobs.deps({ [report.name]: report }, fixedClock(new Date(at))));
    expect((await run('2026-11-16T06:00:00Z')).status).toBe('succeeded');
    await jobs.ses.clearStore();

    const reopened = sim.tenant.allRisks.find((r) => !isOpenRiskStatus(r.status.status))!.id;
    sim.advance({ risks: [{ id: reopened, reopen: true }] });
    const week = await run('2026-11-23T06:00:00Z');
    expect(week.status).toBe('succeeded');
    if (week.status !== 'succeeded') return;
    expect(week.alerts?.reason).toBe(`sent: openRisks-above-${line} crossed (1 line); 1 target told in the run's own message`);

    const rte = await jobs.mailsTo('rte@example.test');
    expect(rte.map((m) => m.subject)).toEqual([expect.stringMatching(/^Train A – /) as string]);
    const text = rte[0]!.body.text!;
    // The banner opens the message, before the headline figures; the figure is marked beside its value.
    const banner = `Lines crossed\n  Open risks: ${line + 1} — above your line of ${line}`;
    expect(text).toContain(banner);
    expect(text.indexOf(banner)).toBeLessThan(text.indexOf('\nRisks\n'));
    expect(text).toContain(`  Open risks: ${line + 1} — above your line of ${line} (+1)`);
    expect(rte[0]!.body.html).toContain(`above your line of ${line}`);

    const ops = await jobs.mailsTo('ops@example.test');
    expect(ops.map((m) => m.subject)).toEqual([`Alert: Train A: Open risks: ${line + 1}, above ${line}`]);
    const pm = await jobs.mailsTo('pm@example.test');
    expect(pm).toHaveLength(1);
    expect(pm[0]!.body.text).not.toContain('Lines crossed');
    expect(pm[0]!.body.text).not.toContain('your line');
  }, 60_000);
});
