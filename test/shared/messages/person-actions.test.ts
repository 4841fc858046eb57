import { describe, expect, it } from 'vitest';
import { fixedClock } from '../../../shared/core/clock';
import { runJob } from '../../../shared/job/run-job';
import { useMailedJobs } from '../../support/mailed-jobs';
import { isOpenRiskStatus } from '../../support/open-risks';

/**
 * Each person's own actions (issue 50, item 7), on real sent mail: a recipient naming who they are in
 * the planning tool (`person`, a user id), and one whose address is an owner's, each get an e-mail that
 * opens with the risks they own that need attention; a reader who owns nothing gets the report as before.
 */
const jobs = useMailedJobs('person-actions-');

describe('a reader who owns risks that need attention', () => {
  it('gets an e-mail that opens with them; another owner gets theirs; a reader who owns nothing gets the report', async () => {
    const sim = jobs.sim;
    const severe = sim.tenant.allRisks.filter((r) => isOpenRiskStatus(r.status.status) && /high|critical|extreme/i.test(r.riskLevel.title));
    const [ada, ben] = severe;
    expect(ben).toBeDefined();
    sim.advance({
      risks: [
        { id: ada!.id, responsible: 'Ada Lovelace', resolutionDate: '01-Oct-2026' },
        { id: ben!.id, responsible: 'ben@example.test', resolutionDate: '02-Oct-2026' },
      ],
    });
    const report = {
      name: 'own-actions',
      title: 'Train A',
      datasets: { risks: {} },
      formats: ['csv'],
      email: { to: [{ address: 'ada@example.test', person: 'u-Ada Lovelace' }, 'ben@example.test', 'pm@example.test'] },
    };
    const at = '2026-11-23T06:00:00Z';
    expect((await runJob({ report: report.name, source: 'schedule', scheduledTime: at }, jobs.deps({ [report.name]: report }, fixedClock(new Date(at))))).status).toBe('succeeded');

    const textOf = async (address: string) => (await jobs.mailsTo(address))[0]!.body.text!;
    const adaText = await textOf('ada@example.test');
    const benText = await textOf('ben@example.test');
    const pmText = await textOf('pm@example.test');
    // Opens with what is theirs: right after the title and date, before the headline figures.
    expect(adaText.split('\n')[3]).toBe('1 item of yours needs attention');
    expect(adaText).toContain(ada!.key);
    expect(adaText.split('\nRisks\n')[0]).toContain(ada!.key);
    expect(adaText.split('\nRisks\n')[0]).not.toContain(ben!.key);
    expect(benText.split('\n')[3]).toBe('1 item of yours needs attention');
    expect(benText.split('\nRisks\n')[0]).toContain(ben!.key);
    expect(benText.split('\nRisks\n')[0]).not.toContain(ada!.key);
    expect(pmText).not.toContain('of yours');
  }, 60_000);
});
