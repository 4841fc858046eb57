/**
 * What the Lambda bundles put in place of the parts of archiver (exceljs's zip writer) that read
 * files from disk or write tar archives: `glob`, `readdir-glob` and `tar-stream`, through esbuild
 * aliases in infra/constructs/exporter-function.ts (BUNDLING); with minimatch, 53 KiB of the export
 * bundle. exceljs only appends its own parts to a zip stream; a call that reached one of these would
 * fail here, loudly.
 */
export default function unavailable(): never {
  throw new Error('archiver cannot glob files or write tar archives in this bundle: the workbook writer appends its parts to a zip stream');
}
