/**
 * What the Lambda bundles put in place of the parts of archiver (exceljs's zip writer) that read
 * files from disk or write tar archives, through esbuild aliases in infra/constructs/exporter-function.ts
 * (UNUSED_ARCHIVER_PARTS): `glob`, `readdir-glob` and `tar-stream` (archiver's `glob()`, `directory()`
 * and tar format), and what archiver-utils needs only for `file()` and its file-list helpers: `lazystream`
 * (a file opened when first read), `graceful-fs` (its file reads) and four lodash functions. exceljs only
 * appends its own parts to a zip stream; a call that reached one of these would fail here, loudly.
 */
export default function unavailable(): never {
  throw new Error('archiver cannot read files from disk or write tar archives in this bundle: the workbook writer appends its parts to a zip stream');
}
