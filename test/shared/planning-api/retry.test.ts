import { describe, expect, it } from 'vitest';
import {
  backoffDelay,
  DEFAULT_RETRY,
  isRetryableStatus,
  parseRetryAfter,
  resolveRetryOptions,
  retryDelay,
} from '../../../shared/planning-api/retry';

const NOW = Date.parse('2025-03-10T12:00:00Z');

describe('parseRetryAfter', () => {
  it('reads delay-seconds as milliseconds', () => {
    expect(parseRetryAfter('3', NOW)).toBe(3000);
    expect(parseRetryAfter(' 12 ', NOW)).toBe(12_000);
  });

  it('treats 0 as retry now', () => {
    expect(parseRetryAfter('0', NOW)).toBe(0);
  });

  it('reads an HTTP-date as the time left until then', () => {
    expect(parseRetryAfter('Mon, 10 Mar 2025 12:00:07 GMT', NOW)).toBe(7000);
  });

  it('treats an HTTP-date in the past as retry now', () => {
    expect(parseRetryAfter('Mon, 10 Mar 2025 11:00:00 GMT', NOW)).toBe(0);
  });

  it('returns undefined for a missing or unreadable value so the caller uses its backoff', () => {
    expect(parseRetryAfter(null, NOW)).toBeUndefined();
    expect(parseRetryAfter(undefined, NOW)).toBeUndefined();
    expect(parseRetryAfter('', NOW)).toBeUndefined();
    expect(parseRetryAfter('-5', NOW)).toBeUndefined();
    expect(parseRetryAfter('1.5', NOW)).toBeUndefined();
    expect(parseRetryAfter('soon', NOW)).toBeUndefined();
  });
});

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

describe('isRetryableStatus', () => {
  it('retries throttling and transient server failures only', () => {
    expect([429, 500, 502, 503, 504].every(isRetryableStatus)).toBe(true);
    expect([400, 401, 403, 404, 409, 422, 501, 505].some(isRetryableStatus)).toBe(false);
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
