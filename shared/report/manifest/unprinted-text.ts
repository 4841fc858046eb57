import type { ManifestFigures } from './manifest-summary';

/** A place of the PDF with characters its fonts cannot draw, as the owners are told of it. */
export interface UnprintedFinding {
  /** What the owners' notice compares from run to run: the place and its scripts, not the count (which moves with the data). */
  readonly key: string;
  /** The line the owners read: where, how many, which scripts, a sample. */
  readonly line: string;
}

/** What readers lose and where to look instead: said once to the owners, with the lines. */
export const UNPRINTED_ADVICE = 'Readers find these values in the workbook and the CSV files, which hold every character.';

/**
 * The manifest's `summary.unprintedText` (the PDF printed these characters as "?": render/pdf/glyphs.ts)
 * as the owners' notice and the run list read it, in the PDF's reading order.
 */
export function unprintedFindings(figures: Pick<ManifestFigures, 'unprintedText'>): UnprintedFinding[] {
  return (figures.unprintedText ?? []).map((u) => ({
    key: `pdf: ${u.where} (${u.scripts.join(', ')})`,
    line: `${u.where}: ${u.characters} ${u.characters === 1 ? 'character' : 'characters'} (${u.scripts.join(', ')}), e.g. ${u.sample}`,
  }));
}
