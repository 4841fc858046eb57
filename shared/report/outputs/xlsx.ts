/**
 * The workbook for people, `<report>.xlsx` in the run folder: one sheet per table as the rows stream,
 * then the sheets other outputs add (ctx.sheets, e.g. Trends) and the Changes sheet, listed right
 * after the Summary, which is written last (it needs every table's figures).
 */
import { readerFormat } from '../../core/format';
import { CHANGES_SHEET_NAME, changesSheetContent } from '../changes/sheet';
import { XLSX_FORMAT } from '../definition/formats';
import { fileEntry, NO_ENTRIES, type OutputFactory } from './output';

export const xlsxOutput: OutputFactory = async (ctx) => {
  const { definition, writer } = ctx;
  // Loaded when a run writes its workbook, as the PDF's renderer: exceljs and archiver stay out of
  // the cold start of a call that writes none (a fan-out's plan and workers, a status update).
  const { openXlsxWorkbook } = await import('../../render/xlsx/workbook');
  const name = `${definition.name}.xlsx`;
  const upload = await writer.openUpload(`${writer.runFolder}/${name}`, { contentType: XLSX_FORMAT.contentType, downloadName: name });
  const title = definition.title ?? definition.name;
  const format = readerFormat(definition.locale, definition.timeZone);
  const workbook = openXlsxWorkbook(upload.stream, {
    createdAt: ctx.exportedAt,
    timeZone: definition.timeZone,
    locale: definition.locale,
    creator: 'planning-report-exporter',
    title,
    leadingSheets: [...ctx.sheets.added.map((s) => s.name), CHANGES_SHEET_NAME],
    footer: `${title} – ${format.date(ctx.exportedAt)}`,
  });
  return {
    openTable: (table) => Promise.resolve(workbook.openSheet(table, { outlineLevels: table.outlineLevels ?? 0 })),
    finishTable: () => Promise.resolve(NO_ENTRIES),
    async finishRun(run) {
      for (const sheet of ctx.sheets.added) await workbook.writeChartSheet(sheet.name, await sheet.content(run));
      await workbook.writeLeadingSheet(CHANGES_SHEET_NAME, changesSheetContent(run.changes, format));
      await workbook.writeSummary(run.summary);
      await workbook.close();
      const total = Object.values(run.rows).reduce((a, b) => a + b, 0);
      const object = await writer.stored(upload, total);
      return { files: [fileEntry(object, writer.runFolder, XLSX_FORMAT, run.rows)] };
    },
  };
};
