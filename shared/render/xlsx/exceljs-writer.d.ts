/** exceljs ships no typings for its deep modules; the streaming writer is narrowed where it is used. */
declare module 'exceljs/lib/stream/xlsx/workbook-writer.js' {
  const WorkbookWriter: new (options: Record<string, unknown>) => unknown;
  export default WorkbookWriter;
}
