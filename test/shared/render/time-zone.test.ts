import { describe, expect, it } from 'vitest';
import { createZoneClock } from '../../../shared/render/time-zone';

describe('createZoneClock', () => {
  it('writes instants as ISO 8601 with the zone offset of that instant (winter and summer time)', () => {
    const berlin = createZoneClock('Europe/Berlin');
    expect(berlin.isoWithOffset(new Date('2026-11-21T07:00:00Z'))).toBe('2026-11-21T08:00:00+01:00');
    expect(berlin.isoWithOffset(new Date('2026-07-01T12:30:15Z'))).toBe('2026-07-01T14:30:15+02:00');
  });

  it('writes milliseconds only when there are some', () => {
    const utc = createZoneClock('UTC');
    expect(utc.isoWithOffset(new Date('2026-01-02T03:04:05.678Z'))).toBe('2026-01-02T03:04:05.678+00:00');
    expect(utc.isoWithOffset(new Date('2026-01-02T03:04:05Z'))).toBe('2026-01-02T03:04:05+00:00');
  });

  it('handles negative and non-whole-hour offsets', () => {
    expect(createZoneClock('America/New_York').isoWithOffset(new Date('2026-01-15T12:00:00Z'))).toBe(
      '2026-01-15T07:00:00-05:00',
    );
    expect(createZoneClock('Asia/Kathmandu').isoWithOffset(new Date('2026-01-15T12:00:00Z'))).toBe(
      '2026-01-15T17:45:00+05:45',
    );
  });

  it('is exact on both sides of a daylight-saving transition, inside the cached 15-minute slice', () => {
    const berlin = createZoneClock('Europe/Berlin');
    // 2026-03-29 01:00 UTC: clocks go from 02:00 CET to 03:00 CEST.
    const transition = Date.UTC(2026, 2, 29, 1, 0, 0);
    expect(berlin.offsetMs(transition - 1)).toBe(3_600_000);
    expect(berlin.offsetMs(transition)).toBe(7_200_000);
    expect(berlin.isoWithOffset(new Date(transition - 1000))).toBe('2026-03-29T01:59:59+01:00');
    expect(berlin.isoWithOffset(new Date(transition))).toBe('2026-03-29T03:00:00+02:00');
    // Lord Howe shifts by 30 minutes at 02:00 local (15:00 UTC the day before).
    const lordHowe = createZoneClock('Australia/Lord_Howe');
    const lhTransition = Date.UTC(2026, 3, 4, 15, 0, 0);
    expect(lordHowe.offsetMs(lhTransition - 1)).toBe(11 * 3_600_000);
    expect(lordHowe.offsetMs(lhTransition)).toBe(10.5 * 3_600_000);
  });

  it('matches Intl for many instants across years (the cache never changes a result)', () => {
    const zone = 'America/Sao_Paulo';
    const clock = createZoneClock(zone);
    const format = new Intl.DateTimeFormat('sv-SE', {
      timeZone: zone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    for (let ms = Date.UTC(2015, 0, 1); ms < Date.UTC(2020, 0, 1); ms += 7_777_777) {
      const wall = new Date(ms + clock.offsetMs(ms)).toISOString().slice(0, 19).replace('T', ' ');
      expect(wall).toBe(format.format(ms));
    }
  });

  it('rejects an unknown time zone with a message naming it', () => {
    expect(() => createZoneClock('Mars/Olympus_Mons')).toThrow(/Unknown time zone "Mars\/Olympus_Mons"/);
  });
});
