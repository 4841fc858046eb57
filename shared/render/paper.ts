/**
 * The paper a report prints on, by its locale: US Letter where readers print on it (the United
 * States and Canada), A4 everywhere else. One answer for the PDF and the workbook's page setup.
 */

export interface Paper {
  /** pdfkit's name of the size. */
  readonly name: 'A4' | 'LETTER';
  readonly widthIn: number;
  readonly heightIn: number;
  /** The workbook's `pageSetup.paperSize` (ECMA-376's paper codes: 1 Letter, 9 A4). */
  readonly excelPaperSize: 1 | 9;
}

export const A4: Paper = { name: 'A4', widthIn: 8.27, heightIn: 11.69, excelPaperSize: 9 };
export const LETTER: Paper = { name: 'LETTER', widthIn: 8.5, heightIn: 11, excelPaperSize: 1 };

/** Regions whose readers print on US Letter; every other one prints on A4. */
const LETTER_REGIONS: ReadonlySet<string> = new Set(['US', 'CA']);

/** The paper of a locale: Letter for en-US and en-CA (any language of those regions, `fr-CA` too), A4 otherwise. */
export function paperFor(locale: string): Paper {
  const region = new Intl.Locale(locale).maximize().region;
  return region !== undefined && LETTER_REGIONS.has(region) ? LETTER : A4;
}
