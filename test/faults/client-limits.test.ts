// @tier slow
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runExportCommand } from '../../cli/export-command';
import { DeadlineExceededError, PlanningApiError, ResponseTooLargeError } from '../../shared/core/errors';
import { exportDeadline } from '../../shared/job/run-context';
import { type RequestEvent } from '../../shared/planning-api';
import { startSimulator, type RunningSimulator } from '../../simulator/index';
import { startLambdaHarness, type LambdaHarness } from '../support/lambda-harness';
import { lambdaContext } from '../support/lambda-events';
import { captureIo } from '../support/cli-io';
import { planningClient } from '../support/planning-client';

/**
 * Limits in the client. Before them, a 300 MB body was buffered whole (1.8 GB, then
 * "Invalid string length"); a v1 server ignoring startAt gave 120 rows of which 50 unique; a hung
 * server took 5 × 30 s to fail and nothing bounded the whole run. The simulator's fault modes
 * 'oversized', ignoreStartAt and 'hang' play the broken server.
 */

const MiB = 1024 * 1024;

async function failureOf(promise: Promise<unknown>): Promise<Error> {
  return promise.then(
    () => {
      throw new Error('expected a failure');
    },
    (error: unknown) => error as Error,
  );
}

async function drain<T>(iterable: AsyncIterable<T>, into: T[]): Promise<void> {
  for await (const item of iterable) into.push(item);
}

describe('client limits', () => {
  let sim: RunningSimulator;
  let dir: string;

  beforeAll(async () => {
    sim = await startSimulator({ tenant: 'tiny' });
    dir = await mkdtemp(join(tmpdir(), 'limits-'));
    await writeFile(join(dir, 'credentials.json'), JSON.stringify(sim.credentials()));
    await writeFile(join(dir, 'report.json'), JSON.stringify({ name: 'limits', datasets: { risks: {} }, formats: ['csv'] }));
  });
  afterEach(() => {
    sim.setFaults({});
    sim.clearInjectedFaults();
    sim.clearRequests();
  });
  afterAll(async () => {
    await sim.close();
    await rm(dir, { recursive: true, force: true });
  });

  async function cli(argv: string[], env: Record<string, string> = {}): Promise<{ code: number; text: string }> {
    const io = captureIo(dir, env);
    const code = await runExportCommand(['--report', 'report.json', '--credentials', 'credentials.json', ...argv, '--quiet'], io);
    return { code, text: io.printed() };
  }

  it('refuses a body over the default 64 MiB while it streams in, naming the operation, without retrying', async () => {
    sim.injectFault({ status: 'oversized', bytes: 100 * MiB, times: 5 });
    const events: RequestEvent[] = [];
    const client = planningClient({ credentials: sim.credentials(), onRequest: (e) => events.push(e) });
    const error = await failureOf(drain(client.listRiskRegisters(), []));
    expect(error).toBeInstanceOf(ResponseTooLargeError);
    expect(error.message).toMatch(/^listRiskRegisters: /);
    expect(error.message).toContain('more than 64.0 MiB in one response');
    expect(error.message).toContain('API_MAX_RESPONSE_BYTES');
    expect(events.map((e) => e.outcome)).toEqual(['too-large']);
    // The client stopped reading at the limit (give or take one network chunk), far from the 100 MiB sent.
    // (Not the process's memory: the simulator producing the body runs in this process too.)
    const read = /stopped reading after ([\d.]+) MiB/.exec(error.message);
    expect(read).not.toBeNull();
    expect(Number(read![1])).toBeLessThan(65);
  });

  it('takes the byte limit from API_MAX_RESPONSE_BYTES on the command line and publishes nothing', async () => {
    sim.injectFault({ status: 'oversized', bytes: 3 * MiB, times: 5 });
    const { code, text } = await cli(['--out', 'out-big'], { API_MAX_RESPONSE_BYTES: String(MiB) });
    expect(code).toBe(1);
    expect(text).toMatch(/the planning API sent more than 1.0 MiB in one response/);
    await expect(stat(join(dir, 'out-big', 'limits', 'latest.json'))).rejects.toThrow(/ENOENT/);
  });

  it('stops with a clear error and no duplicate rows when a v1 server ignores startAt', async () => {
    const register = sim.tenant.registers.find((r) => sim.tenant.risks(r.id).length > 2);
    expect(register).toBeDefined();
    sim.setFaults({ ignoreStartAt: true });
    const client = planningClient({ credentials: sim.credentials(), pageLimit: 2 });
    const rows: { id: string }[] = [];
    const error = await failureOf(drain(client.listRisks(register!.id), rows));
    expect(error).toBeInstanceOf(PlanningApiError);
    expect(error.message).toMatch(/^listRisks: the server returned the same page for startAt=2 as for startAt=0/);
    expect(new Set(rows.map((r) => r.id)).size).toBe(rows.length);
  });

  it('pages of one record: the second page repeating the first stops the list after one record', async () => {
    sim.setFaults({ ignoreStartAt: true });
    const client = planningClient({ credentials: sim.credentials(), pageLimit: 1 });
    const registers: unknown[] = [];
    const error = await failureOf(drain(client.listRiskRegisters(), registers));
    expect(error.message).toMatch(/same page for startAt=1 as for startAt=0/);
    expect(registers).toHaveLength(1);
  });

  it('a hung server fails at the overall deadline after one attempt, not after 5 × 30 s', async () => {
    sim.injectFault({ status: 'hang', times: 100 });
    // The run's clock and the attempt's time limit are the test's: the deadline passes once the hung
    // request has reached the server, not after waiting for it.
    let now = Date.parse('2026-11-23T06:00:00Z');
    const limits: number[] = [];
    const attempt = new AbortController();
    const client = planningClient({
      credentials: sim.credentials(),
      deadline: now + 1500,
      clock: () => new Date(now),
      timeoutSignal: (ms) => {
        limits.push(ms);
        return attempt.signal;
      },
      retry: { baseDelayMs: 1, maxDelayMs: 5 },
    });
    void sim.nextRequest((r) => r.fault === 'injected').then(() => {
      now += 1500;
      attempt.abort(new DOMException('timed out', 'TimeoutError'));
    });
    const error = await failureOf(drain(client.listRiskRegisters(), []));
    expect(error).toBeInstanceOf(DeadlineExceededError);
    expect(error.message).toMatch(/^listRiskRegisters: the export ran out of time/);
    // The attempt's own limit was cut from 30 s to what was left before the deadline.
    expect(limits).toEqual([1500]);
    expect(sim.requests.filter((r) => r.fault === 'injected')).toHaveLength(1);
  });

  it('--timeout bounds the command line run against a hung server', { timeout: 30_000 }, async () => {
    sim.injectFault({ status: 'hang', times: 100 });
    const { code, text } = await cli(['--out', 'out-hung', '--timeout', '2s']);
    expect(code).toBe(1);
    expect(text).toMatch(/ran out of time/);
    expect(text).toMatch(/--timeout/);
    expect(sim.requests.filter((r) => r.fault === 'injected')).toHaveLength(1);
  });

  it('rejects a malformed --timeout as a usage error', async () => {
    const { code, text } = await cli(['--out', 'o', '--timeout', 'soon']);
    expect(code).toBe(2);
    expect(text).toMatch(/--timeout must be a duration/);
  });

  it('a Lambda keeps a margin of its remaining time for reporting', () => {
    expect(exportDeadline(1_000_000, 900_000)).toBe(1_000_000 + 900_000 - 30_000);
    expect(exportDeadline(1_000_000, 10_000)).toBe(1_000_000 + 8_000);
  });
});

describe('the export Lambda fails cleanly before its own timeout', () => {
  let h: LambdaHarness;
  beforeAll(async () => {
    h = await startLambdaHarness({ hung: { name: 'hung', datasets: { risks: {} }, formats: ['csv'] } });
  });
  afterAll(async () => {
    await h.close();
  });

  it('fails each attempt cleanly on a hung server and reports ReportFailed once, on the last of Lambda\'s three', { timeout: 60_000 }, async () => {
    h.sim.injectFault({ status: 'hang', times: 100 });
    const context = { ...lambdaContext('export-report'), getRemainingTimeInMillis: () => 2500 };
    const event = { report: 'hung', source: 'schedule', scheduledTime: '2026-11-23T06:00:00Z' } as const;
    const failedEvents = (): { errorType: string }[] => h.events.events.filter((e) => e.DetailType === 'ReportFailed').map((e) => JSON.parse(e.Detail) as { errorType: string });
    // Lambda's asynchronous invocation: the event and its two retries, the same run each time.
    for (const attempt of [1, 2, 3]) {
      const error = await failureOf(h.exportHandler(event, context));
      expect(error.message).toMatch(/ran out of time/);
      // A retryable failure another attempt follows is not a failed report: the alarm counts a report once.
      expect(failedEvents()).toHaveLength(attempt < 3 ? 0 : 1);
    }
    expect(failedEvents()).toEqual([expect.objectContaining({ report: 'hung', errorType: 'DeadlineExceededError', retryable: true })]);
    expect(h.sim.requests.filter((r) => r.fault === 'injected')).toHaveLength(3);
  });
});
