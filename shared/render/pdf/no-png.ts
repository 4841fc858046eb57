/**
 * What the Lambda bundles put in place of `png-js`, pdfkit's PNG image decoder, through an esbuild alias
 * in infra/constructs/exporter-function.ts (UNUSED_PDFKIT_PARTS). The report's PDF draws its charts as
 * vector paths and embeds no image; a PNG would fail here, loudly.
 */
export default function png(): never {
  throw new Error('PNG images cannot be embedded in this bundle: the report PDF draws its charts as vector paths');
}
