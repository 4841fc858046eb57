import { describe, expect, it } from 'vitest';
import { epochToCalendarDate, isoDateInZone, parseApiDate } from '../../../../shared/report/dataset/dates';

describe('parseApiDate', () => {
  it('reads the risk format DD-Mon-YYYY as that calendar day at 00:00 UTC', () => {
    expect(parseApiDate('05-Mar-2026')?.toISOString()).toBe('2026-03-05T00:00:00.000Z');
  });

  it('reads the board-item format DD Mon, YY with a 2000s pivot', () => {
    expect(parseApiDate('05 Mar, 26')?.toISOString()).toBe('2026-03-05T00:00:00.000Z');
    expect(parseApiDate('31 Dec, 99')?.toISOString()).toBe('1999-12-31T00:00:00.000Z');
  });

  it('accepts ISO dates and month names in any case', () => {
    expect(parseApiDate('2026-11-21')?.toISOString()).toBe('2026-11-21T00:00:00.000Z');
    expect(parseApiDate('01-SEP-2025')?.toISOString()).toBe('2025-09-01T00:00:00.000Z');
  });

  it('rejects impossible days and unknown months instead of rolling over', () => {
    expect(parseApiDate('31-Feb-2026')).toBeUndefined();
    expect(parseApiDate('01-Foo-2026')).toBeUndefined();
    expect(parseApiDate('next week')).toBeUndefined();
    expect(parseApiDate('')).toBeUndefined();
    expect(parseApiDate(null)).toBeUndefined();
  });
});

describe('epochToCalendarDate', () => {
  it('gives the calendar day in the report time zone', () => {
    const lateEveningUtc = Date.UTC(2026, 2, 5, 23, 30);
    expect(epochToCalendarDate(lateEveningUtc, 'UTC')?.toISOString()).toBe('2026-03-05T00:00:00.000Z');
    expect(epochToCalendarDate(lateEveningUtc, 'Europe/Berlin')?.toISOString()).toBe('2026-03-06T00:00:00.000Z');
  });

  it('returns undefined for missing values', () => {
    expect(epochToCalendarDate(null, 'UTC')).toBeUndefined();
    expect(epochToCalendarDate(Number.NaN, 'UTC')).toBeUndefined();
  });
});

describe('isoDateInZone', () => {
  it('formats the run partition date in the zone', () => {
    expect(isoDateInZone(new Date('2026-11-21T23:30:00Z'), 'Asia/Tokyo')).toBe('2026-11-22');
    expect(isoDateInZone(new Date('2026-11-21T23:30:00Z'), 'UTC')).toBe('2026-11-21');
  });
});
