/**
 * The report for a meeting, `<report>.pdf` in the run folder: the Summary and the sheets of charts
 * other outputs add (context.sheets, the Trends) on the locale's paper, written at the run's end from the same content
 * as the workbook's Summary and Trends sheets (shared/render/pdf/).
 */
import { readerFormat } from '../../core/format';
import { PDF_FORMAT } from '../manifest/formats';
import { fileEntry, NO_ENTRIES, type OutputFactory } from './output';

export const pdfOutput: OutputFactory = (run, context) => {
  const { definition } = run;
  const { writer } = context;
  const name = `${definition.name}.pdf`;
  const title = definition.title ?? definition.name;
  return Promise.resolve({
    openTable: () => Promise.resolve(undefined),
    finishTable: () => Promise.resolve(NO_ENTRIES),
    async finishRun(finished) {
      const format = readerFormat(definition.locale, definition.timeZone);
      const chartSheets = [];
      for (const sheet of context.sheets.added) chartSheets.push(await sheet.content(finished));
      // Loaded when a run writes its PDF: pdfkit, fontkit and the fonts stay out of a cold start that writes none.
      const { renderReportPdf, unprintedInPdf } = await import('../../render/pdf/document');
      const report = {
        title,
        header: `${title} – ${format.date(context.exportedAt)}`,
        summary: finished.summary,
        chartSheets,
        createdAt: context.exportedAt,
        format,
        creator: 'planning-report-exporter',
      };
      // Text its fonts lack prints as a placeholder: the reader's note says so, and the owners hear where (manifest summary.unprintedText, field-notice.ts).
      const unprinted = unprintedInPdf(report);
      const bytes = await renderReportPdf(report, unprinted);
      const upload = await writer.openUpload(`${writer.runFolder}/${name}`, { contentType: PDF_FORMAT.contentType, downloadName: name });
      upload.stream.end(bytes);
      const object = await writer.stored(upload, 0);
      return { files: [fileEntry(object, writer.runFolder, PDF_FORMAT, {})], ...(unprinted.length > 0 && { figures: { unprintedText: unprinted.map((u) => ({ ...u, scripts: [...u.scripts] })) } }) };
    },
  });
};
