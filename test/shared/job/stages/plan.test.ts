import { readdir } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { JobStatusStore } from '../../../../shared/job/status/job-status';
import { runJob } from '../../../../shared/job/run-job';
import { ledgerKey } from '../../../../shared/ledger/ledger';
import { dataRequests } from '../../../support/list-calls';
import { useMailedJobs } from '../../../support/mailed-jobs';

/**
 * The plan stage of a job (shared/job/stages/plan.ts), through runJob as the export Lambda runs it:
 * a definition that cannot run fails before its run is leased or any data fetched, and every
 * problem reaches the job's outcome, the on-demand job's status and the owners' failure e-mail.
 */
const MISNAMED = {
  name: 'misnamed',
  title: 'Misnamed report',
  datasets: { risks: { registers: ['ENT', 'No such register'] }, piObjectives: {}, boardItems: { boards: ['Payments ARTT'] } },
  formats: ['csv'],
  email: { to: ['team@example.test'], onFailure: ['owner@example.test'] },
};
const PROBLEMS = [
  /datasets\.risks\.registers\[1\]: "No such register" is not a risk register this key can see \(by id, key or title\); visible: ENT "Enterprise risks", OPS/,
  /datasets\.boardItems\.boards\[0\]: "Payments ARTT" is not a board this key can see \(by id or title\); visible: 1000 "Payments ART", /,
];

describe('the plan stage of a job', () => {
  const kit = useMailedJobs('plan-stage-');
  const at = '2026-11-23T06:00:00Z';

  /** Nothing of the run: no file under the report's folder, no lease on the run in the ledger. */
  async function nothingWritten(runId: string): Promise<void> {
    expect(await readdir(kit.dir)).not.toContain('misnamed');
    expect(await kit.ledger.get(ledgerKey('run', 'misnamed', runId))).toBeUndefined();
  }

  it('fails a scheduled run before its lease or any data, not retried, and tells the owners every problem', async () => {
    kit.sim.clearRequests();
    const outcome = await runJob({ report: 'misnamed', source: 'schedule', scheduledTime: at }, kit.deps({ misnamed: MISNAMED }, () => new Date(at)));
    expect(outcome).toMatchObject({ status: 'failed', retryable: false });
    const reason = outcome.status === 'failed' ? outcome.reason : '';
    expect(reason).toMatch(/^report "misnamed" cannot run as defined \(2 problems\); nothing was fetched or written:\n {2}- /);
    for (const problem of PROBLEMS) expect(reason).toMatch(problem);
    expect(dataRequests(kit.sim.requests)).toEqual([]);
    await nothingWritten('s-20261123T060000Z');

    const [mail, ...more] = await kit.mailsTo('owner@example.test');
    expect(more).toEqual([]);
    expect(mail!.subject).toBe('Report "Misnamed report" is failing');
    const text = mail!.body.text ?? '';
    for (const problem of PROBLEMS) expect(text).toMatch(problem);
    expect(text).toContain('What to do: The run was stopped before it fetched anything: the reason above lists each problem with its place.');
  });

  it('puts every problem in the status of an on-demand job', async () => {
    const jobs = new JobStatusStore(kit.ledger);
    const created = '2026-11-23T05:59:00.000Z';
    await jobs.put({ id: 'export-0001', report: 'misnamed', status: 'queued', createdAt: created, updatedAt: created });
    const outcome = await runJob({ report: 'misnamed', source: 'api', exportId: 'export-0001' }, kit.deps({ misnamed: MISNAMED }, () => new Date(at)));
    expect(outcome).toMatchObject({ status: 'failed', retryable: false });
    const status = await jobs.get('export-0001');
    expect(status?.status).toBe('failed');
    for (const problem of PROBLEMS) expect(status?.error).toMatch(problem);
    await nothingWritten('export-0001');
  });

  it('names the company prefix the API refuses, in one problem', async () => {
    const deps = kit.deps({ misnamed: { ...MISNAMED, datasets: { risks: {}, boardItems: {} } } }, () => new Date(at));
    const wrongPrefix = { ...deps, planning: { credentials: { getCredentials: () => Promise.resolve({ ...kit.sim.credentials(), companyPrefix: 'acmee' }) } } };
    kit.sim.clearRequests();
    const outcome = await runJob({ report: 'misnamed', source: 'manual', runId: 'r-prefix' }, wrongPrefix);
    expect(outcome).toEqual({
      status: 'failed',
      retryable: false,
      reason:
        'report "misnamed" cannot run as defined (one problem); nothing was fetched or written:\n' +
        '  - credentials.companyPrefix: the planning API does not accept the company prefix "acmee" of the credentials: the list of boards answered 404. ' +
        "Set companyPrefix in the credentials to the prefix of your company's login address (https://<companyPrefix>.…), as your administrator gives it.",
    });
    expect(dataRequests(kit.sim.requests)).toEqual([]);
    await nothingWritten('r-prefix');
  });
});
