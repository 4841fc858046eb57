/**
 * What the Lambda bundles put in place of `@noble/ciphers/aes`, the cipher pdfkit encrypts a PDF with
 * when it is given a password, through an esbuild alias in infra/constructs/exporter-function.ts
 * (UNUSED_PDFKIT_PARTS). The report's PDF has no password (document.ts); encrypting one would fail
 * here, loudly.
 */
function unavailable(): never {
  throw new Error('PDFs cannot be encrypted in this bundle: the report PDF has no password (shared/render/pdf/document.ts)');
}
export const cbc = unavailable;
export const ecb = unavailable;
