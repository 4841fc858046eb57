import { describe, expect, it } from 'vitest';
import { settle, settleAt, useFakeClockFromZero } from '../../support/fake-clock';
import { timerSleep } from '../../../shared/core/retry/retry';
import { SCHEDULED_RUNS } from '../../../shared/core/names';
import { queueInvocations, SQS_DEFAULTS } from '../../support/queue-invocations';

/**
 * The fleet's stand-in of an SQS queue with a maximum-concurrency event source
 * (test/support/queue-invocations.ts) on fake timers: a visibility timeout of 90 minutes passes at once,
 * and every time asserted is a time on the fake clock.
 */
const SECOND = 1_000;
const MINUTE = 60 * SECOND;

useFakeClockFromZero();

describe('the stand-in of an SQS queue with maximum concurrency', () => {
  it('runs at most the maximum at once, and a freed slot takes the next message at once: the work ÷ the maximum, no idle slot', async () => {
    const startedAt: number[] = [];
    let inFlight = 0;
    let most = 0;
    const { result: stats, endedAtMs } = await settleAt(
      queueInvocations(
        [...Array(6).keys()],
        async () => {
          startedAt.push(Date.now());
          most = Math.max(most, ++inFlight);
          await timerSleep(10 * SECOND);
          inFlight -= 1;
        },
        { maxConcurrency: 2 },
      ),
    );
    expect(most).toBe(2);
    expect(startedAt).toEqual([0, 0, 10, 10, 20, 20].map((s) => s * SECOND));
    expect(endedAtMs).toBe(30 * SECOND);
    expect(stats).toEqual({ receives: 6, retried: 0, deadLettered: 0, failures: [] });
  });

  it('gives a failed message back after the visibility timeout from its receive, with its receive count, while the others go on', async () => {
    const receives: { event: number; count: number; at: number }[] = [];
    const stats = await settle(
      queueInvocations(
        [0, 1, 2],
        async (event, count) => {
          receives.push({ event, count, at: Date.now() });
          await timerSleep(MINUTE);
          // Message 0 fails its first receive (a batch item failure), the others succeed.
          return !(event === 0 && count === 1);
        },
        { maxConcurrency: 1, visibilityTimeoutMs: 90 * MINUTE },
      ),
    );
    expect(receives).toEqual([
      { event: 0, count: 1, at: 0 },
      { event: 1, count: 1, at: 1 * MINUTE },
      { event: 2, count: 1, at: 2 * MINUTE },
      // Invisible until 90 minutes after its first receive, then taken at once by the idle slot.
      { event: 0, count: 2, at: 90 * MINUTE },
    ]);
    expect(stats).toEqual({ receives: 4, retried: 1, deadLettered: 0, failures: [] });
  });

  it('treats a throw as a failed receive, and moves a message to the dead-letter queue after its last receive', async () => {
    const counts: number[] = [];
    const { result: stats, endedAtMs } = await settleAt(
      queueInvocations(
        ['broken'],
        (_event, count) => {
          counts.push(count);
          return Promise.reject(new Error('planning API down'));
        },
        { maxConcurrency: 2, visibilityTimeoutMs: 10 * MINUTE },
      ),
    );
    expect(counts).toEqual([1, 2, SCHEDULED_RUNS.maxReceiveCount]);
    expect(endedAtMs).toBe(20 * MINUTE);
    expect(stats).toMatchObject({ receives: 3, retried: 2, deadLettered: 1 });
    expect(stats.failures.map((f) => [f.event, f.attempt, f.atMs, f.error])).toEqual([1, 2, 3].map((n) => ['broken', n, (n - 1) * 10 * MINUTE, 'Error: planning API down']));
  });

  it("defaults to the stack's figures: 6 × a 15-minute timeout, three receives", () => {
    expect(SQS_DEFAULTS).toEqual({ visibilityTimeoutMs: 90 * MINUTE, maxReceiveCount: 3 });
  });
});
