import type { ManifestFigures } from './manifest-summary';

/** What readers lose and where to look instead: said once to the owners, with the lines. */
export const UNPRINTED_ADVICE = 'Readers find these values in the workbook and the CSV files, which hold every character.';

/** The PDF's unprinted text as the owners read it and as their notice compares it from run to run. */
export interface UnprintedFindings {
  /**
   * `pdf: <part>: <script>`, each once (`pdf: Summary: Han`): what the owners' notice compares. Not
   * the count, nor the section, whose heading carries the baseline's date: both move every week.
   */
  readonly keys: readonly string[];
  /** One line per place: where, how many, which scripts, a sample. */
  readonly lines: readonly string[];
}

/**
 * The manifest's `summary.unprintedText` (the PDF printed these characters as "?": render/pdf/glyphs.ts)
 * as the owners' notice and the run list read it, in the PDF's reading order.
 */
export function unprintedFindings(figures: Pick<ManifestFigures, 'unprintedText'>): UnprintedFindings {
  const all = figures.unprintedText ?? [];
  const part = (where: string) => where.split(' › ')[0]!;
  return {
    keys: [...new Set(all.flatMap((u) => u.scripts.map((script) => `pdf: ${part(u.where)}: ${script}`)))],
    lines: all.map((u) => `${u.where}: ${u.characters} ${u.characters === 1 ? 'character' : 'characters'} (${u.scripts.join(', ')}), e.g. ${u.sample}`),
  };
}
