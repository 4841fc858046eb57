import { describe, expect, it } from 'vitest';
import { nextRun } from '../../../shared/definitions/next-run';

const at = (iso: string) => new Date(iso);
const next = (cron: string, timeZone: string, after: string) => nextRun({ cron, timeZone }, at(after))?.toISOString();

describe('next run of a Scheduler cron', () => {
  it('evaluates the cron in its time zone, across daylight saving', () => {
    // Tuesday 24 Nov 2026: next Monday 07:00 Berlin is 06:00 UTC (winter time).
    expect(next('cron(0 7 ? * MON *)', 'Europe/Berlin', '2026-11-24T06:00:00Z')).toBe('2026-11-30T06:00:00.000Z');
    // Summer time: 07:00 Berlin is 05:00 UTC.
    expect(next('cron(0 7 ? * MON *)', 'Europe/Berlin', '2026-06-02T00:00:00Z')).toBe('2026-06-08T05:00:00.000Z');
  });

  it('numbers the days of the week 1 (Sunday) to 7 (Saturday), as Scheduler does', () => {
    // 2 = Monday, 6 = Friday; 1-7 style ranges and the nth weekday shift the same way.
    expect(next('cron(30 8 ? * 2 *)', 'UTC', '2026-11-24T00:00:00Z')).toBe('2026-11-30T08:30:00.000Z');
    expect(next('cron(0 9 ? * 6 *)', 'UTC', '2026-11-24T00:00:00Z')).toBe('2026-11-27T09:00:00.000Z');
    expect(next('cron(0 9 ? * 2-3 *)', 'UTC', '2026-11-24T10:00:00Z')).toBe('2026-11-30T09:00:00.000Z');
    // The first Tuesday (3#1) of December 2026 is the 1st.
    expect(next('cron(0 9 ? * 3#1 *)', 'UTC', '2026-11-24T00:00:00Z')).toBe('2026-12-01T09:00:00.000Z');
  });

  it('reads "?" in the day of the month, the last day, and a year field', () => {
    expect(next('cron(0 6 L * ? *)', 'UTC', '2026-11-24T00:00:00Z')).toBe('2026-11-30T06:00:00.000Z');
    expect(next('cron(0 6 1 * ? 2028)', 'UTC', '2026-11-24T00:00:00Z')).toBe('2028-01-01T06:00:00.000Z');
    expect(next('cron(0 6 1 * ? 2025)', 'UTC', '2026-11-24T00:00:00Z')).toBeUndefined();
  });

  it('says nothing rather than a wrong date for what it cannot evaluate (W, the nearest weekday)', () => {
    expect(next('cron(0 6 15W * ? *)', 'UTC', '2026-11-24T00:00:00Z')).toBeUndefined();
  });
});
