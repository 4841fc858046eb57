import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { attemptOf, countAttempt, LAMBDA_ASYNC_ATTEMPTS, tellsOwners } from '../../../shared/job/attempt';
import { LocalLedger } from '../../../shared/ledger/local-ledger';

/** The attempts of a run as the export function's door counts them: Lambda says nothing of its retries. */
let dir: string;
let ledger: LocalLedger;
const clock = () => new Date('2026-11-23T07:00:00Z');
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'attempt-'));
  ledger = new LocalLedger(join(dir, '.ledger'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('countAttempt', () => {
  const run = (report: string, scheduledTime: string) => ({ report, source: 'schedule' as const, scheduledTime });

  it("counts the attempts of one scheduled run: Lambda's third is the last; another run or report starts at one", async () => {
    const counted = [];
    for (let i = 0; i < 3; i++) counted.push(await countAttempt(run('weekly', '2026-11-23T07:00:00Z'), { ledger, clock }, LAMBDA_ASYNC_ATTEMPTS));
    expect(counted).toEqual([
      { number: 1, last: false },
      { number: 2, last: false },
      { number: 3, last: true },
    ]);
    expect(await countAttempt(run('weekly', '2026-11-30T07:00:00Z'), { ledger, clock }, LAMBDA_ASYNC_ATTEMPTS)).toEqual({ number: 1, last: false });
    expect(await countAttempt(run('daily', '2026-11-23T07:00:00Z'), { ledger, clock }, LAMBDA_ASYNC_ATTEMPTS)).toEqual({ number: 1, last: false });
  });

  it('takes a request whose attempts share no run (on demand, a schedule without its time) as its only attempt, and writes nothing', async () => {
    expect(await countAttempt({ report: 'weekly', exportId: 'e1' }, { ledger, clock }, LAMBDA_ASYNC_ATTEMPTS)).toEqual({ number: 1, last: true });
    expect(await countAttempt({ report: 'weekly', source: 'schedule' }, { ledger, clock }, LAMBDA_ASYNC_ATTEMPTS)).toEqual({ number: 1, last: true });
    expect(await ledger.get('attempt/weekly/e1')).toBeUndefined();
  });
});

describe('tellsOwners', () => {
  it('tells a failure no retry mends at once, a retryable one on the last attempt, and either when no attempt is known', () => {
    expect(tellsOwners({ retryable: false }, attemptOf(1, 3))).toBe(true);
    expect(tellsOwners({ retryable: true }, attemptOf(2, 3))).toBe(false);
    expect(tellsOwners({ retryable: true }, attemptOf(3, 3))).toBe(true);
    expect(tellsOwners({ retryable: true }, undefined)).toBe(true);
  });
});
