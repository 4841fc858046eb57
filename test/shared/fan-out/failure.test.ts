import { beforeEach, describe, expect, it } from 'vitest';
import { fixedClock } from '../../../shared/core/clock';
import { silentLog } from '../../../shared/core/logger';
import type { ReportFailedDetail } from '../../../shared/events/report-events';
import type { CaughtError } from '../../../shared/fan-out/event';
import { assembleFanOut, failFanOut, fetchBoardAnswers, planFanOut, runFanOutStep } from '../../../shared/fan-out/steps';
import { runJob, type JobContext } from '../../../shared/job/run-job';
import { ledgerKey } from '../../../shared/ledger/ledger';
import { DEFAULT_LEASE_MS } from '../../../shared/report/run/run-entry';
import { RunLease } from '../../../shared/report/run/run-lease';
import { useMailedJobs } from '../../support/mailed-jobs';
import { zeroBackoffJitter } from '../../support/zero-jitter';

/**
 * The fan-out's failure step (`fanOut: 'fail'`, where the state machine's Catches lead) at the
 * boundaries it talks to: the ledger in a folder, the run's files beside it, the owners' e-mail on
 * aws-ses-v2-local, ReportFailed recorded. Errors reach it as Step Functions hands them to a Catch:
 * the name, and the function's error JSON as the cause.
 */
const PORTFOLIO = {
  name: 'portfolio',
  title: 'Portfolio',
  datasets: { risks: {}, boardItems: {} },
  formats: ['csv'],
  email: { to: ['pmo@example.test'], onFailure: ['owner@example.test'] },
};

/** The execution's input, as the route starts it: the scheduled request with its run id. */
const executionInput = (scheduledTime: string) => ({
  report: 'portfolio',
  source: 'schedule' as const,
  scheduledTime,
  runId: `s-${scheduledTime.replace(/[-:]/g, '')}`,
});

/** What a Catch hands on for an error the function threw: its name and the function's error JSON. */
function caught(thrown: unknown): CaughtError {
  const error = thrown as Error;
  return { Error: error.name, Cause: JSON.stringify({ errorType: error.name, errorMessage: error.message, trace: (error.stack ?? '').split('\n') }) };
}

describe('the fan-out\'s failure step', () => {
  const kit = useMailedJobs('fan-out-failure-');
  let published: ReportFailedDetail[];
  beforeEach(() => {
    published = [];
  });

  /** The job at `at`, ReportFailed recorded. */
  function deps(at: string): JobContext {
    return {
      ...kit.deps({ portfolio: PORTFOLIO }, fixedClock(new Date(at))),
      events: { publish: (type: string, detail: unknown) => Promise.resolve(void (type === 'ReportFailed' && published.push(detail as ReportFailedDetail))) },
    };
  }
  const mailsTo = (address: string) => kit.mailsTo(address);

  it('tells the owners of a caught plan failure once per streak, publishes ReportFailed each time, and the single path ends the same streak', async () => {
    kit.sim.injectFault({ status: 401, times: 1000 });
    for (const [week, at] of [['2026-11-23T06:00:00Z', '2026-11-23T06:00:05Z'], ['2026-11-30T06:00:00Z', '2026-11-30T06:00:05Z']] as const) {
      const input = executionInput(week);
      // The plan step as the export function runs it: what it throws is what the Catch hands on.
      const thrown = await runFanOutStep({ fanOut: 'plan', ...input }, deps(at)).then(() => undefined, (error: unknown) => error);
      expect(thrown).toBeInstanceOf(Error);
      const outcome = await failFanOut({ request: input, failed: 'plan', error: caught(thrown) }, deps(at));
      expect(outcome).toMatchObject({ status: 'failed', report: 'portfolio', runId: input.runId, failed: 'plan', errorType: 'AuthenticationError', released: null, told: true });
      expect(outcome.reason).toMatch(/^the fan-out's plan \(reading the report and listing its boards\) failed: .*rejected the credentials \(401\)/);
    }

    const owner = await mailsTo('owner@example.test');
    expect(owner.map((m) => m.subject)).toEqual(['Report "Portfolio" is failing']);
    expect(owner[0]!.body.text).toContain('Run: s-20261123T060000Z');
    expect(owner[0]!.body.text).toMatch(/What failed: the fan-out's plan .* failed: .*\(401\)/);
    expect(owner[0]!.body.text).toMatch(/What to do: Check the planning API user and its API key/);
    expect(published.map((e) => [e.runId, e.errorType])).toEqual([
      ['s-20261123T060000Z', 'AuthenticationError'],
      ['s-20261130T060000Z', 'AuthenticationError'],
    ]);
    expect(await mailsTo('pmo@example.test')).toEqual([]);

    // The streak is the single path's: its next good run tells the owners the report works again.
    kit.sim.clearInjectedFaults();
    expect((await runJob({ report: 'portfolio', source: 'schedule', scheduledTime: '2026-12-07T06:00:00Z' }, deps('2026-12-07T06:00:05Z'))).status).toBe('succeeded');
    // The failure streak (the owners also hear, once, that the API sends fields no column holds: field-notice.ts).
    expect((await mailsTo('owner@example.test')).map((m) => m.subject)).toEqual([
      'Report "Portfolio" is failing',
      'Report "Portfolio" works again',
      'Portfolio: the planning API sends fields the report does not hold',
    ]);
  });

  it('releases the lease a killed assembler left, so the next attempt of the run is not blocked, and says it ran out of time', async () => {
    const at = '2026-11-23T06:10:00Z';
    const input = executionInput('2026-11-23T06:00:00Z');
    const plan = await planFanOut(input, deps(at));
    for (const chunk of plan.chunks) await fetchBoardAnswers(plan, chunk, deps(at));
    // The assembler Lambda stopped at its time limit: it held the run's lease and had begun a file.
    const killed = await RunLease.acquire({ ledger: kit.ledger, clock: fixedClock(new Date(at)), log: silentLog, leaseMs: DEFAULT_LEASE_MS }, { report: 'portfolio', runId: input.runId });
    if (killed.kind !== 'acquired') throw new Error('expected to take the lease');
    await killed.lease.renew({ addKeys: ['portfolio/dt=2026-11-23/s-20261123T060000Z/risks.csv'] });
    expect(await assembleFanOut(plan, deps(at))).toMatchObject({ status: 'skipped' });

    const timedOut: CaughtError = {
      Error: 'Sandbox.Timedout',
      Cause: JSON.stringify({ errorType: 'Sandbox.Timedout', errorMessage: 'RequestId: 7f1c Error: Task timed out after 900.00 seconds' }),
    };
    const outcome = await failFanOut({ request: input, failed: 'assemble', error: timedOut }, deps(at));
    expect(outcome).toMatchObject({ released: killed.lease.attempt, told: true, errorType: 'Sandbox.Timedout' });
    expect(outcome.reason).toBe("the fan-out's assembler (the export of the run) ran out of time: Lambda stopped the function at its time limit");
    expect((await kit.ledger.get(ledgerKey('run', 'portfolio', input.runId)))?.value).toMatchObject({
      status: 'released',
      keys: ['portfolio/dt=2026-11-23/s-20261123T060000Z/risks.csv'],
    });
    expect(published).toEqual([
      { report: 'portfolio', runId: input.runId, reason: outcome.reason, errorType: 'Sandbox.Timedout', retryable: false },
    ]);
    const owner = await mailsTo('owner@example.test');
    expect(owner).toHaveLength(1);
    expect(owner[0]!.body.text).toMatch(/What to do: The run was stopped at a function's time or memory limit/);

    // The same instant: without the release the killed attempt's lease would still be live for a minute.
    const retried = await assembleFanOut(plan, deps(at));
    expect(retried).toMatchObject({ status: 'succeeded', runId: input.runId });
    // The failure streak (the owners also hear, once, that the API sends fields no column holds: field-notice.ts).
    expect((await mailsTo('owner@example.test')).map((m) => m.subject)).toEqual([
      'Report "Portfolio" is failing',
      'Report "Portfolio" works again',
      'Portfolio: the planning API sends fields the report does not hold',
    ]);
  });

  it('does not tell again what the assembler\'s job told before it threw its retryable failure, and leaves a run nobody holds alone', async () => {
    const input = executionInput('2026-11-23T06:00:00Z');
    const told = caught(Object.assign(new Error('listBoardItems: the planning API answered 503'), { name: 'RetryableExportError' }));
    const outcome = await failFanOut({ request: input, failed: 'assemble', error: told }, deps('2026-11-23T06:20:00Z'));
    expect(outcome).toMatchObject({ told: false, released: null, errorType: 'RetryableExportError' });
    expect(outcome.reason).toBe("the fan-out's assembler (the export of the run) failed: listBoardItems: the planning API answered 503");
    expect(published).toEqual([]);
    expect(await kit.ses.fetchStore()).toEqual([]);
    expect(await kit.ledger.get(ledgerKey('run', 'portfolio', input.runId))).toBeUndefined();
  });

  it("tells the owners of the assembler's retryable failure on its last try alone (State.RetryCount 2), and the failure step not again", async () => {
    zeroBackoffJitter();
    const at = '2026-11-23T06:10:00Z';
    const input = executionInput('2026-11-23T06:00:00Z');
    const plan = await planFanOut(input, deps(at));
    kit.sim.injectFault({ status: 503, times: 1000 });
    const streak = async () => (await mailsTo('owner@example.test')).filter((m) => m.subject.endsWith('is failing')).map((m) => m.subject);
    let thrown: unknown;
    for (const attempt of [0, 1, 2]) {
      thrown = await runFanOutStep({ fanOut: 'assemble', request: plan.request, attempt }, deps(at)).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect((thrown as Error).name).toBe('RetryableExportError');
      expect(await streak()).toEqual(attempt < 2 ? [] : ['Report "Portfolio" is failing']);
    }
    const outcome = await failFanOut({ request: input, failed: 'assemble', error: caught(thrown) }, deps(at));
    expect(outcome).toMatchObject({ told: false, errorType: 'RetryableExportError' });
    expect(await streak()).toEqual(['Report "Portfolio" is failing']);
  });

  it('never shows an ARN or a platform error\'s cause: the function\'s ARN in a Lambda error, an ARN in a step\'s message', async () => {
    const input = executionInput('2026-11-23T06:00:00Z');
    const lambdaError: CaughtError = {
      Error: 'Lambda.AWSLambdaException',
      Cause: 'Function not found: arn:aws:lambda:eu-central-1:123456789012:function:PlanningReportExporter-ExportReport (Service: Lambda, Status Code: 404, Request ID: 5d1e)',
    };
    const platform = await failFanOut({ request: input, failed: 'workers', error: lambdaError }, deps('2026-11-23T06:20:00Z'));
    expect(platform.reason).toBe("the fan-out's workers (fetching the boards' items) failed in Lambda (Lambda.AWSLambdaException); the operators have the details in the logs");
    const stepError = caught(
      Object.assign(new Error('AccessDenied reading arn:aws:s3:::acme-reports/reports/portfolio/latest.json'), { name: 'StorageError' }),
    );
    const ours = await failFanOut({ request: input, failed: 'plan', error: stepError }, deps('2026-11-23T06:20:00Z'));
    expect(ours.reason).toBe("the fan-out's plan (reading the report and listing its boards) failed: AccessDenied reading [ARN]");
    const shown = JSON.stringify([published, (await kit.ses.fetchStore()).map((m) => [m.subject, m.body.text])]);
    expect(shown).not.toMatch(/arn:aws|123456789012|Request ID/);
  });
});
