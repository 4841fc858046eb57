import { describe, expect, it } from 'vitest';
import {
  backoffDelay,
  DEFAULT_RETRY,
  resolveRetryOptions,
  retryDelay,
} from '../../../../shared/planning-api/transport/retry';

describe('backoffDelay (full jitter)', () => {
  const options = { maxAttempts: 5, baseDelayMs: 100, maxDelayMs: 1000 };

  it('doubles the ceiling with each attempt', () => {
    expect(backoffDelay(1, options, () => 0.999999)).toBe(99);
    expect(backoffDelay(2, options, () => 0.999999)).toBe(199);
    expect(backoffDelay(3, options, () => 0.999999)).toBe(399);
  });

  it('never exceeds maxDelayMs', () => {
    expect(backoffDelay(20, options, () => 0.999999)).toBe(999);
  });

  it('picks a random point between 0 and the ceiling', () => {
    expect(backoffDelay(3, options, () => 0)).toBe(0);
    expect(backoffDelay(3, options, () => 0.5)).toBe(200);
  });
});

describe('retryDelay', () => {
  const options = { maxAttempts: 5, baseDelayMs: 100, maxDelayMs: 1000 };

  it('follows Retry-After instead of the backoff', () => {
    expect(retryDelay(1, 700, options, () => 0)).toBe(700);
    expect(retryDelay(1, 0, options, () => 0.9)).toBe(0);
  });

  it('caps a long Retry-After at maxDelayMs', () => {
    expect(retryDelay(1, 3_600_000, options)).toBe(1000);
  });

  it('uses the jittered backoff without Retry-After', () => {
    expect(retryDelay(2, undefined, options, () => 0.5)).toBe(100);
  });
});

describe('resolveRetryOptions', () => {
  it('fills in the defaults', () => {
    expect(resolveRetryOptions(undefined)).toEqual(DEFAULT_RETRY);
    expect(resolveRetryOptions({ maxAttempts: 2 })).toEqual({ ...DEFAULT_RETRY, maxAttempts: 2 });
  });

  it('rejects nonsense', () => {
    expect(() => resolveRetryOptions({ maxAttempts: 0 })).toThrow(RangeError);
    expect(() => resolveRetryOptions({ baseDelayMs: -1 })).toThrow(RangeError);
  });
});
