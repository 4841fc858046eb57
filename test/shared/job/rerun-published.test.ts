import { describe, expect, it } from 'vitest';
import { fixedClock } from '../../../shared/core/clock';
import { runJob } from '../../../shared/job/run-job';
import { useMailedJobs } from '../../support/mailed-jobs';

/**
 * A rerun of a published run (the same run id) while the planning API is down (issue 52): it asks the
 * API nothing, finds the run published and says so ("not sent again"), instead of failing and saying
 * nothing was published. Read against the simulator, which refuses every request meanwhile.
 */
const WEEKLY = { name: 'weekly', title: 'Weekly', datasets: { risks: {} }, formats: ['csv'], email: { to: ['a@example.test'] } };
const AT = '2026-11-23T06:00:00Z';
const jobs = useMailedJobs('rerun-published-');

describe('a rerun of a published run while the planning API is down', () => {
  it('finds the run published, asks the API nothing and sends nothing again', async () => {
    const deps = jobs.deps({ weekly: WEEKLY }, fixedClock(new Date(AT)));
    const first = await runJob({ report: 'weekly', source: 'schedule', scheduledTime: AT }, deps);
    expect(first.status).toBe('succeeded');
    if (first.status !== 'succeeded') return;

    jobs.sim.injectFault({ status: 503, times: 10_000 });
    const asked = jobs.sim.requests.length;
    const rerun = await runJob({ report: 'weekly', source: 'schedule', scheduledTime: AT }, deps);
    expect(rerun).toMatchObject({ status: 'succeeded', runId: first.runId, manifestKey: first.manifestKey });
    expect(rerun.status === 'succeeded' && rerun.delivery.reason).toBe(`not sent again: an earlier attempt of run ${first.runId} sent its messages`);
    expect(jobs.sim.requests.length).toBe(asked);
    expect((await jobs.mailsTo('a@example.test')).length).toBe(1);
  });
});
