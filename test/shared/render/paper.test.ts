import { describe, expect, it } from 'vitest';
import { paperFor } from '../../../shared/render/paper';

describe('paperFor: the paper a locale prints on', () => {
  it('is Letter in the United States and Canada, in any of their languages', () => {
    for (const locale of ['en-US', 'en-CA', 'fr-CA', 'es-US']) {
      expect(paperFor(locale), locale).toMatchObject({ name: 'LETTER', excelPaperSize: 1, widthIn: 8.5, heightIn: 11 });
    }
  });

  it('is A4 everywhere else, a bare language by its likeliest region (`en` is the US, `de` Germany)', () => {
    for (const locale of ['de-DE', 'en-GB', 'fr-FR', 'ja-JP', 'es-MX', 'de']) {
      expect(paperFor(locale), locale).toMatchObject({ name: 'A4', excelPaperSize: 9 });
    }
    expect(paperFor('en').name).toBe('LETTER');
  });
});
