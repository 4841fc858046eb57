/**
 * What the Lambda bundles put in place of `saxes`, the XML parser exceljs reads workbooks with (its
 * xforms' `parse`), through an esbuild alias in infra/constructs/exporter-function.ts (XML_READER):
 * 28 kB of the export bundle. The renderer only writes workbooks, which never parses XML; a read that
 * reached it would fail here, loudly.
 */
export class SaxesParser {
  constructor() {
    throw new Error('exceljs cannot read XML in this bundle: the workbook renderer only writes workbooks');
  }
}
