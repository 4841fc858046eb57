/**
 * The workbook for people, `<report>.xlsx` in the run folder: one sheet per table as the rows stream,
 * then "Needs attention" (every item the Summary counts), the sheets other outputs add (context.sheets,
 * e.g. Trends) and the Changes sheet, listed right
 * after the Summary, which is written last (it needs every table's figures).
 */
import { readerFormat } from '../../core/format';
import { changesSheetContent } from '../changes/sheet';
import { attentionSheetContent } from '../summary/attention';
import { sheetNames } from '../sheet-names';
import { XLSX_FORMAT } from '../manifest/formats';
import { fileEntry, NO_ENTRIES, type OutputFactory } from './output';

export const xlsxOutput: OutputFactory = async (run, context) => {
  const { definition } = run;
  const { writer } = context;
  // Loaded when a run writes its workbook, as the PDF's renderer: exceljs and archiver stay out of
  // the cold start of a call that writes none (a fan-out's plan and workers, a status update).
  const { openXlsxWorkbook } = await import('../../render/xlsx/workbook');
  const name = `${definition.name}.xlsx`;
  const upload = await writer.openUpload(`${writer.runFolder}/${name}`, { contentType: XLSX_FORMAT.contentType, downloadName: name });
  const title = definition.title ?? definition.name;
  const format = readerFormat(definition.locale, definition.timeZone);
  const sheets = sheetNames(format.messages);
  const workbook = openXlsxWorkbook(upload.stream, {
    createdAt: context.exportedAt,
    timeZone: definition.timeZone,
    locale: definition.locale,
    creator: 'planning-report-exporter',
    title,
    // "Needs attention" right after the Summary: its "n more" rows lead there.
    leadingSheets: [sheets.attention, ...context.sheets.added.map((s) => s.name), sheets.changes],
    footer: `${title} – ${format.date(context.exportedAt)}`,
    words: { summarySheet: sheets.summary, pageOf: format.t('page.of', { page: '{page}', pages: '{pages}' }) },
  });
  return {
    openTable: (table) => Promise.resolve(workbook.openSheet(table, { outlineLevels: table.outlineLevels ?? 0 })),
    finishTable: () => Promise.resolve(NO_ENTRIES),
    async finishRun(finished) {
      await workbook.writeLeadingSheet(sheets.attention, attentionSheetContent(finished.attention, format.messages));
      for (const sheet of context.sheets.added) await workbook.writeChartSheet(sheet.name, await sheet.content(finished));
      await workbook.writeLeadingSheet(sheets.changes, changesSheetContent(finished.changes, format));
      await workbook.writeSummary(finished.summary);
      await workbook.close();
      const total = Object.values(finished.rows).reduce((a, b) => a + b, 0);
      const object = await writer.stored(upload, total);
      return { files: [fileEntry(object, writer.runFolder, XLSX_FORMAT, finished.rows)] };
    },
  };
};
