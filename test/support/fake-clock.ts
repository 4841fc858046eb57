import { afterEach, beforeEach, vi } from 'vitest';

/** Every test of the file on vitest's fake timers from moment 0, real timers again after each. */
export function useFakeClockFromZero(): void {
  beforeEach(() => {
    vi.useFakeTimers({ now: 0 });
  });
  afterEach(() => {
    vi.useRealTimers();
  });
}

/** Runs `run` to its end on the fake clock: every timer it sets fires at once, in order. */
export async function settle<T>(run: Promise<T>): Promise<T> {
  await vi.runAllTimersAsync();
  return run;
}

/** As settle, and says when on the fake clock `run` ended (taken as its promise settles). */
export async function settleAt<T>(run: Promise<T>): Promise<{ readonly result: T; readonly endedAtMs: number }> {
  const ended = run.then((result) => ({ result, endedAtMs: Date.now() }));
  await vi.runAllTimersAsync();
  return ended;
}
