/**
 * What the Lambda bundles put in place of fontkit's WOFF2 decoder (`brotli/decompress.js`, 475 KiB of the
 * bundle), through an esbuild alias in infra/constructs/exporter-function.ts (BUNDLING). The PDF's fonts are
 * TrueType (fonts.ts), which fontkit reads without it; a WOFF2 font would fail here, loudly.
 */
export default function decompress(): never {
  throw new Error('WOFF2 fonts cannot be read in this bundle: the PDF renderer embeds TrueType fonts (shared/render/pdf/fonts.ts)');
}
