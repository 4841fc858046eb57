import { describe, expect, it, vi } from 'vitest';
import { settle, useFakeClockFromZero } from '../../support/fake-clock';
import { timerSleep } from '../../../shared/core/retry/retry';
import { asyncInvocations, LAMBDA_ASYNC, throttleBackoffMs } from '../../support/async-invocations';

/**
 * The fleet's stand-in of Lambda's asynchronous invocation (test/support/async-invocations.ts) on fake
 * timers: hours of Lambda's backoff pass at once, and every time asserted is a time on the fake clock.
 * The jitter is fixed at its largest (random() = 1 - ε rounds to the whole step), so the times are Lambda's steps.
 */
const WHOLE_STEP = () => 0.999_999_9;
const SECOND = 1_000;

useFakeClockFromZero();

describe("the stand-in of Lambda's asynchronous invocation", () => {
  it('backs a throttled event off from 1 s, doubling up to 5 minutes', () => {
    expect([0, 1, 2, 3].map((n) => throttleBackoffMs(n, 1))).toEqual([1 * SECOND, 2 * SECOND, 4 * SECOND, 8 * SECOND]);
    expect(throttleBackoffMs(8, 1)).toBe(256 * SECOND);
    expect(throttleBackoffMs(9, 1)).toBe(LAMBDA_ASYNC.maxBackoffMs);
    expect(throttleBackoffMs(1_000, 1)).toBe(LAMBDA_ASYNC.maxBackoffMs);
    // Full jitter: anywhere between no wait and the step.
    expect(throttleBackoffMs(2, 0.5)).toBe(2 * SECOND);
    expect(throttleBackoffMs(2, 0)).toBe(0);
  });

  it('runs at most the cap at once; a throttled event gets in at its next try after a slot frees, none is dropped', async () => {
    const startedAt: number[] = [];
    let inFlight = 0;
    let most = 0;
    const stats = await settle(
      asyncInvocations(
        [...Array(6).keys()],
        2,
        async () => {
          startedAt.push(Date.now());
          most = Math.max(most, ++inFlight);
          await timerSleep(10 * SECOND);
          inFlight -= 1;
        },
        { random: WHOLE_STEP },
      ),
    );
    expect(most).toBe(2);
    // Tries at 0, 1, 3, 7, 15, 31 s: the first two slots free at 10 s, taken at the try at 15 s; those free at 25 s, taken at 31 s.
    expect(startedAt).toEqual([0, 0, 15, 15, 31, 31].map((s) => s * SECOND));
    expect(stats).toEqual({ retried: 0, failed: 0, throttles: 4 * 4 + 2 * 1, expired: 0, failures: [] });
  });

  it('gives an event up once it is older than its maximum age, never running it', async () => {
    const ran: number[] = [];
    const stats = await settle(
      asyncInvocations(
        [0, 1],
        1,
        async (k) => {
          ran.push(k);
          await timerSleep(7 * 3_600 * SECOND);
        },
        { random: WHOLE_STEP },
      ),
    );
    expect(ran).toEqual([0]);
    expect(stats.expired).toBe(1);
    // 1 s doubling to 5 minutes, then every 5 minutes, within 6 hours.
    expect(stats.throttles).toBeGreaterThan(70);
  });

  it('retries a function error twice, one minute and then two minutes later, then gives the event up', async () => {
    const triedAt: number[] = [];
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const stats = await settle(
      asyncInvocations([0], 1, () => {
        triedAt.push(Date.now());
        return Promise.reject(new Error('the function failed', { cause: new TypeError('fetch failed at http://127.0.0.1:9/hooks/T0SECRET') }));
      }),
    );
    expect(triedAt).toEqual([0, 60 * SECOND, 180 * SECOND]);
    expect(stats).toMatchObject({ retried: 2, failed: 1, throttles: 0, expired: 0 });
    // Each failed try is kept with its error, the cause behind it, and a URL cut to its origin (a webhook's path is its secret).
    expect(stats.failures).toEqual([0, 60, 180].map((s, i) => ({ event: '0', attempt: i + 1, atMs: s * SECOND, error: 'Error: the function failed ← TypeError: fetch failed at http://127.0.0.1:9/…' })));
    expect(warn).toHaveBeenCalledOnce();
    warn.mockRestore();
  });

  it('runs an event that failed once on its retry', async () => {
    const failsOnce = new Set([2, 5]);
    const ran: number[] = [];
    const stats = await settle(
      asyncInvocations([...Array(10).keys()], 3, async (k) => {
        await timerSleep(SECOND);
        if (failsOnce.delete(k)) throw new Error(`event ${k} failed once`);
        ran.push(k);
      }),
    );
    expect([...ran].sort((a, b) => a - b)).toEqual([...Array(10).keys()]);
    expect(stats).toMatchObject({ retried: 2, failed: 0, expired: 0 });
  });
});
