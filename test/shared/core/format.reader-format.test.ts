import { describe, expect, it } from 'vitest';
import { localeProblem, readerFormat } from '../../../shared/core/format';

describe('readerFormat', () => {
  it('writes numbers, percentages and deltas with the locale\'s separators and one rule for " %"', () => {
    const gb = readerFormat('en-GB', 'UTC');
    const de = readerFormat('de-DE', 'UTC');
    const fr = readerFormat('fr-FR', 'UTC');
    expect([gb.integer(2148), de.integer(2148), fr.integer(2148)]).toEqual(['2,148', '2.148', '2\u202f148']);
    expect([gb.number(2148.256), de.number(2148.256), fr.number(0.5)]).toEqual(['2,148.26', '2.148,26', '0,5']);
    // A space and "%" on every locale, as the workbook's format "0.0 %" writes it.
    expect([gb.percent(50.1), de.percent(50.1), fr.percent(50.1), gb.percent(104.25)]).toEqual(['50.1 %', '50,1 %', '50,1 %', '104.3 %']);
    expect([gb.percentPoints(4.94), de.percentPoints(4.94), de.percentPoints(-1), de.percentPoints(0.01)]).toEqual(['+4.9 pp', '+4,9 Pp.', '−1,0 Pp.', '+0,01 Pp.']);
    expect([gb.delta(1148), de.delta(-1148), fr.delta(0), de.delta(2.5)]).toEqual(['+1,148', '−1.148', '0', '+2,5']);
  });

  it('writes dates as the locale\'s numeric day, month and year, and date-times with its clock and zone name', () => {
    const instant = new Date('2026-11-25T23:30:00Z'); // already the 26th in Berlin
    const zoned = (locale: string) => readerFormat(locale, 'Europe/Berlin');
    expect(['en-US', 'en-GB', 'de-DE', 'fr-FR'].map((l) => zoned(l).date(instant))).toEqual(['11/26/2026', '26/11/2026', '26.11.2026', '26/11/2026']);
    expect(['en-US', 'en-GB', 'de-DE', 'fr-FR'].map((l) => zoned(l).dateTime(instant))).toEqual([
      '11/26/2026, 12:30 AM GMT+1',
      '26/11/2026, 00:30 CET',
      '26.11.2026, 00:30 MEZ',
      '26/11/2026 00:30 UTC+1',
    ]);
    // A calendar date (carried at 00:00 UTC) is never shifted into a zone west of Greenwich.
    expect(readerFormat('en-GB', 'America/New_York').calendarDate(new Date('2026-11-26T00:00:00Z'))).toBe('26/11/2026');
  });

  it('names what is wrong with a tag that is not a locale', () => {
    expect(localeProblem('en-GB')).toBeUndefined();
    expect(localeProblem('en_GB')).toBe('is not a BCP 47 language tag');
    expect(localeProblem('zz-ZZ')).toBe('is not a locale this exporter can format numbers and dates in');
    expect(readerFormat('de-de', 'UTC').locale).toBe('de-DE');
  });
});
