import { describe, expect, it } from 'vitest';
import { excelDateFormats, readerFormat } from '../../../shared/core/format';

describe('excelDateFormats: the workbook\'s date formats in the report\'s locale', () => {
  it('follows the locale\'s order and separators, as the reader format writes dates', () => {
    expect(excelDateFormats('de-DE')).toEqual({ date: 'dd.mm.yyyy', datetime: 'dd.mm.yyyy", "hh:mm' });
    expect(excelDateFormats('en-US')).toEqual({ date: 'mm/dd/yyyy', datetime: 'mm/dd/yyyy", "hh:mm AM/PM' });
    expect(excelDateFormats('en-GB')).toEqual({ date: 'dd/mm/yyyy', datetime: 'dd/mm/yyyy", "hh:mm' });
    expect(excelDateFormats('ja-JP').date).toBe('yyyy/mm/dd');
    expect(excelDateFormats('sv-SE').date).toBe('yyyy-mm-dd');
    // The tag in any case, as the definition may write it.
    expect(excelDateFormats('de-de').date).toBe('dd.mm.yyyy');
  });

  it('shows a date as the reader format writes it (its digits: Excel draws them with the same pattern)', () => {
    const day = new Date(Date.UTC(2027, 0, 4));
    for (const locale of ['de-DE', 'en-US', 'en-GB', 'fr-FR', 'nl-NL', 'pl-PL']) {
      const shown = excelDateFormats(locale).date.replace('dd', '04').replace('mm', '01').replace('yyyy', '2027');
      expect(shown, locale).toBe(readerFormat(locale, 'UTC').calendarDate(day));
    }
  });

  it('quotes literal text Excel would read as codes, and keeps the Gregorian year where a locale\'s calendar differs', () => {
    // Finnish writes "klo" between date and time; Bulgarian ends a date with "г.".
    expect(excelDateFormats('fi-FI').datetime).toBe('dd.mm.yyyy" klo "hh.mm');
    expect(excelDateFormats('bg-BG').date).toBe('dd.mm.yyyy" г."');
    // Thai counts Buddhist years by default; Excel's serials are Gregorian.
    expect(excelDateFormats('th-TH').date).toBe('dd/mm/yyyy');
  });

  it('falls back to ISO for a tag this runtime does not format in', () => {
    expect(excelDateFormats('not a tag')).toEqual({ date: 'yyyy-mm-dd', datetime: 'yyyy-mm-dd hh:mm' });
  });
});
