/**
 * The PDF's fonts: Liberation Sans (metrics of Arial/Helvetica, Latin, Greek and Cyrillic), carried in
 * the bundle (font-data.ts) and embedded as subsets. pdfkit's standard fonts would cost nothing in the
 * file but are loaded at run time from pdfkit's own folder, which a bundled Lambda does not have, and
 * they encode Windows-1252 only: the Summary's "−1.0 pp" or a board called "Łódź" would not print.
 */
import { gunzipSync } from 'node:zlib';
import { create, type Font } from 'fontkit';
import { LIBERATION_SANS_BOLD, LIBERATION_SANS_REGULAR } from './font-data';

export const REGULAR = 'Sans';
export const BOLD = 'Sans-Bold';

let fonts: { readonly regular: Font; readonly bold: Font } | undefined;

function fontOf(data: string): Font {
  const font = create(gunzipSync(Buffer.from(data, 'base64')));
  if (!('layout' in font)) throw new Error('the embedded font data is a collection, not one font');
  return font;
}

/**
 * The fonts, read once per process: reading a font's tables costs about as much as laying out a
 * whole Summary, and a warm function writes many PDFs. Every document embeds its own subset of them.
 */
export function pdfFonts(): { readonly regular: Font; readonly bold: Font } {
  fonts ??= { regular: fontOf(LIBERATION_SANS_REGULAR), bold: fontOf(LIBERATION_SANS_BOLD) };
  return fonts;
}
