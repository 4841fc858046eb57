/**
 * The report as a PDF for a meeting: the Summary, then the chart sheets (the Trends), portrait A4 or
 * Letter by the locale (../paper.ts), the same figures and words as the workbook's Summary and Trends
 * sheets. The only module that imports pdfkit (fonts.ts the only one that imports fontkit). The same
 * content and time give the same bytes: the document's dates are the run's and pdfkit's file id is a
 * hash of its info (no random id, no clock).
 */
import PDFDocument from 'pdfkit';
import type { ReportSummary } from '../../table/table';
import type { ChartSheetContent } from '../xlsx/chart-sheet';
import { drawChartSheet } from './chart-pages';
import { BOLD, pdfFonts, REGULAR } from './fonts';
import { placeholderNote, printableFormat, unprintedText, type UnprintedText } from './glyphs';
import { drawPageFrames, startFlow } from './page';
import { drawAbout, drawSummary } from './summary';
import { pdfValueFormat } from './values';
import type { ReaderFormat } from '../../core/format';
import { truncateForExcel } from '../cell-text';
import { paperFor } from '../paper';

/** A chart sheet goes on below what the page holds when that is at most this share of the page. */
const SHARED_PAGE_FILL = 0.5;
/** The space above a chart sheet that goes on below the page's other content. */
const SHEET_GAP = 24;

export interface PdfReport {
  /** The document's title (the report's title). */
  readonly title: string;
  /** On top of every page: the report's title and the run's date. */
  readonly header: string;
  readonly summary: ReportSummary;
  /** Sheets of charts after the Summary, each starting on a new page. */
  readonly chartSheets: readonly ChartSheetContent[];
  /** When the run started: the document's creation and modification date. */
  readonly createdAt: Date;
  /** The report's locale and zone: every number and date of the document is written by it. */
  readonly format: ReaderFormat;
  readonly creator: string;
}

/**
 * The characters of `report` its fonts cannot draw, by place: they print as a placeholder, and the
 * run tells the owners (outputs/pdf.ts puts them into the manifest).
 */
export function unprintedInPdf(report: PdfReport): UnprintedText[] {
  return unprintedText(report, pdfValueFormat(report.format));
}

/**
 * Renders the whole document; it is small (a few pages), so it is built in memory. `unprinted`: what
 * unprintedInPdf found, when the caller already asked (the run reports it too), else found here.
 */
export async function renderReportPdf(report: PdfReport, unprinted: readonly UnprintedText[] = unprintedInPdf(report)): Promise<Uint8Array> {
  const fonts = pdfFonts();
  const doc = new PDFDocument({
    size: paperFor(report.format.locale).name,
    layout: 'portrait',
    margin: 0,
    bufferPages: true,
    autoFirstPage: true,
    // No default font: pdfkit would load Helvetica from its package folder (see fonts.ts); ours are registered below.
    font: null as unknown as string,
    info: { Title: truncateForExcel(report.title), Creator: report.creator, Producer: report.creator, CreationDate: report.createdAt, ModDate: report.createdAt },
    pdfVersion: '1.7',
    // The language the words are in (English where the locale's language has no catalogue), not the locale's.
    lang: report.format.messages.language,
    displayTitle: true,
    // Tagged: headings, tables and charts (with alternative text) in reading order for screen readers.
    tagged: true,
  });
  // pdfkit takes a font fontkit has read as well as the font's bytes (its types know only the bytes).
  doc.registerFont(REGULAR, fonts.regular as unknown as Buffer).registerFont(BOLD, fonts.bold as unknown as Buffer);
  const chunks: Buffer[] = [];
  doc.on('data', (chunk: Buffer) => chunks.push(chunk));
  const ended = new Promise<void>((resolve, reject) => {
    doc.on('end', resolve);
    doc.on('error', reject);
  });
  const format = printableFormat(pdfValueFormat(report.format));
  const root = doc.struct('Document');
  doc.addStructure(root);
  let flow = startFlow(doc, root);
  drawSummary(doc, flow, report.summary, format);
  for (const sheet of report.chartSheets) {
    flow.end();
    // A sheet starts a page of its own, unless the page before holds only a little (the Summary's
    // last small sections): a page of a few lines then a page break read as a page left empty.
    if (flow.filled() > SHARED_PAGE_FILL) {
      doc.addPage();
      flow = startFlow(doc, root);
    } else flow.gap(SHEET_GAP);
    drawChartSheet(doc, flow, sheet, format);
  }
  drawAbout(doc, flow, report.summary, format, placeholderNote(unprinted, format));
  flow.end();
  drawPageFrames(doc, report.header, (page, pages) => format.t('page.of', { page, pages }));
  root.end();
  doc.end();
  await ended;
  return Buffer.concat(chunks);
}
