/**
 * The PDF's fonts: Liberation Sans (metrics of Arial/Helvetica, Latin, Greek and Cyrillic), TrueType
 * files in fonts/ beside this module, embedded as subsets. pdfkit's standard fonts would cost nothing
 * in the file but are loaded at run time from pdfkit's own folder, which a bundled Lambda does not
 * have, and they encode Windows-1252 only: the Summary's "−1.0 pp" or a board called "Łódź" would not
 * print. The fonts are files, not code: a bundle would carry them as 0.3 MB of text to parse at every
 * cold start, also in a run that writes no PDF.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { create, type Font } from 'fontkit';

export const REGULAR = 'Sans';
export const BOLD = 'Sans-Bold';

/**
 * fonts/ beside this module; in a Lambda bundle the module is index.mjs, and the function's bundling
 * copies the folder beside it (PDF_FONTS, infra/constructs/exporter-function.ts).
 */
const FONTS_DIR = new URL('./fonts/', import.meta.url);
const FILES = { regular: 'LiberationSans-Regular.ttf', bold: 'LiberationSans-Bold.ttf' } as const;

let fonts: { readonly regular: Font; readonly bold: Font } | undefined;

function fontOf(file: string): Font {
  const path = fileURLToPath(new URL(file, FONTS_DIR));
  let data: Buffer;
  try {
    data = readFileSync(path);
  } catch (error) {
    throw new Error(`the PDF's font ${path} cannot be read: a bundle needs the fonts/ folder beside it (PDF_FONTS in infra/constructs/exporter-function.ts)`, { cause: error });
  }
  const font = create(data);
  if (!('layout' in font)) throw new Error(`the PDF's font ${path} is a collection, not one font`);
  return font;
}

/**
 * The fonts, read once per process: reading a font's tables costs about as much as laying out a
 * whole Summary, and a warm function writes many PDFs. Every document embeds its own subset of them.
 */
export function pdfFonts(): { readonly regular: Font; readonly bold: Font } {
  fonts ??= { regular: fontOf(FILES.regular), bold: fontOf(FILES.bold) };
  return fonts;
}
