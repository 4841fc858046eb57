/**
 * The PDF's fonts: Liberation Sans (metrics of Arial/Helvetica, Latin, Greek and Cyrillic), carried in
 * the bundle (font-data.ts) and embedded as subsets. pdfkit's standard fonts would cost nothing in the
 * file but are loaded at run time from pdfkit's own folder, which a bundled Lambda does not have, and
 * they encode Windows-1252 only: the Summary's "−1.0 pp" or a board called "Łódź" would not print.
 */
import { gunzipSync } from 'node:zlib';
import { LIBERATION_SANS_BOLD, LIBERATION_SANS_REGULAR } from './font-data';

export const REGULAR = 'Sans';
export const BOLD = 'Sans-Bold';

let decoded: { readonly regular: Buffer; readonly bold: Buffer } | undefined;

/** The font files, decoded once per process (about 10 ms). */
export function fontFiles(): { readonly regular: Buffer; readonly bold: Buffer } {
  decoded ??= {
    regular: gunzipSync(Buffer.from(LIBERATION_SANS_REGULAR, 'base64')),
    bold: gunzipSync(Buffer.from(LIBERATION_SANS_BOLD, 'base64')),
  };
  return decoded;
}
