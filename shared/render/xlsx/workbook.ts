/**
 * Excel renderer: the sheet writer on exceljs's streaming writer. Conventions are documented in
 * docs/formats.md. What exceljs needs to be told, and why (measured in the team's exceljs notes):
 * styles only with useStyles, zlib level 6, no shared strings, and pacing by the producer because
 * exceljs's internal buffers ignore backpressure. Cell values and styles come from ./cells.ts;
 * every reach into exceljs/archiver internals (Summary first, bounded buffering, recycled buffers,
 * hyperlinks in slices, charts) is in ./exceljs-internals/, one module per patch.
 */
import type { Writable } from 'node:stream';
import { ExporterError } from '../../core/errors';
import { outputWriteError } from '../output-error';
import type { ReportSummary, LeadingSheet, TableDefinition, TableSink } from '../../table/table';
import { worksheetText } from '../cell-text';
import { excelDateFormats } from '../../core/format';
import { paperFor, type Paper } from '../paper';
import { createZoneClock, type ZoneClock } from '../time-zone';
import { StyleBook } from './cells';
import { writeChartSheetRows, type ChartSheetContent } from './chart-sheet';
import { attachCharts } from './exceljs-internals/charts';
import { reserveLeadingSheets } from './exceljs-internals/sheet-order';
import { createWorkbookWriter, type WriterWorkbook } from './exceljs-internals/writer';
import { DataSheetSink, type DataSheetHost } from './data-sheet-sink';
import { writeLeadingRows } from './leading-sheet';
import { MARGINS, summarySetup } from './print-setup';
import { SUMMARY_COLUMN_WIDTHS, writeSummaryRows } from './summary-sheet';

export interface XlsxOptions {
  /** IANA zone: datetime cells hold the wall-clock time there (Excel cells have no zone). */
  readonly timeZone: string;
  /**
   * The report's BCP 47 locale: the number format of date and date-time cells (`dd.mm.yyyy` for
   * de-DE, `mm/dd/yyyy` for en-US) and the paper the sheets print on (Letter in the US and Canada, A4 otherwise).
   */
  readonly locale: string;
  readonly creator?: string;
  /**
   * The file's created and modified times (docProps/core.xml) and every zip entry's date: the run's
   * time, never the wall clock, so the same run writes the same bytes on any path or retry.
   */
  readonly createdAt: Date;
  /** Document title (file properties) and the default Summary title. */
  readonly title?: string;
  /** Left part of every printed page's footer, e.g. "ART weekly – 2026-11-23"; the page number is on the right. */
  readonly footer?: string;
  /**
   * The words of the report's language the renderer writes itself: the first sheet's name ("Summary")
   * and the footer's page number, `{page}` and `{pages}` standing for Excel's page codes ("Page {page} of {pages}").
   */
  readonly words?: { readonly summarySheet: string; readonly pageOf: string };
  /** Data rows a sheet takes before the table continues on "<sheet> (2)"; default Excel's 1,048,575 (tests lower it). */
  readonly maxRowsPerSheet?: number;
  /** Hyperlinks proper a data sheet takes before its links become HYPERLINK formulas; default MAX_SHEET_HYPERLINKS (tests lower it). */
  readonly maxHyperlinksPerSheet?: number;
  /**
   * Sheets written after the data sheets (with writeLeadingSheet) but listed right after the
   * Summary, in this order: the Changes sheet. Each must be written before the Summary.
   */
  readonly leadingSheets?: readonly string[];
}

export interface XlsxSheetOptions {
  /**
   * The deepest `outlineLevel` the rows will use (0-7). Excel sizes the outline gutter and its
   * level buttons from a sheet header that is written before the first row, so the renderer cannot
   * learn it from the rows. Default 0; rows with levels are still grouped, only the buttons are missing.
   */
  readonly outlineLevels?: number;
}

export interface XlsxWorkbook {
  /** Starts the next data sheet. One sheet at a time: close its sink before opening another. */
  openSheet(table: TableDefinition, options?: XlsxSheetOptions): TableSink;
  /**
   * Writes one of `options.leadingSheets`: a heading, one sentence, then a table, listed right after
   * the Summary. Call after the data sheets and before the Summary.
   */
  writeLeadingSheet(name: string, content: LeadingSheet): Promise<void>;
  /** Writes one of `options.leadingSheets` as small tables with native charts beside them (the Trends sheet). */
  writeChartSheet(name: string, content: ChartSheetContent): Promise<void>;
  /** Writes the Summary sheet, which is the workbook's first sheet. Call after the data sheets. */
  writeSummary(summary: ReportSummary): Promise<void>;
  /** Finishes the file and waits until `out` has finished. */
  close(): Promise<void>;
}

export const SUMMARY_SHEET_NAME = 'Summary';

/** Printing of sheets whose widths are set by their writer (the Changes and Trends sheets): landscape, one page wide. */
function printSetup(paper: Paper) {
  return { orientation: 'landscape', paperSize: paper.excelPaperSize, fitToWidth: 1, fitToHeight: 0, margins: MARGINS } as const;
}

/** The first sheet's name and every sheet's printed footer, in the report's language (English by default). */
function sheetWords(options: XlsxOptions): { summarySheet: string; footer: { oddFooter: string } } {
  const words = options.words ?? { summarySheet: SUMMARY_SHEET_NAME, pageOf: 'Page {page} of {pages}' };
  return { summarySheet: words.summarySheet, footer: printFooter(options.footer, words.pageOf) };
}

/**
 * The footer of every printed page: report and date on the left, the sheet's name in the middle (a
 * page of a 300-page print says what it is part of), "Page n of m" on the right.
 */
function printFooter(footer: string | undefined, pageOf: string): { oddFooter: string } {
  // `&` starts a code in Excel's header/footer language; a literal one is `&&`.
  const literal = (text: string) => worksheetText(text).replace(/&/g, '&&');
  const left = footer ? `&L&9${literal(footer)}` : '';
  const pages = pageOf.split('{page}').map((part) => part.split('{pages}').map(literal).join('&N')).join('&P');
  return { oddFooter: `${left}&C&9&A&R&9${pages}` };
}
// -------------------------------------------------------------------------------------------------
// Sheets

// eslint-disable-next-line no-control-regex -- control characters are what it replaces
const FORBIDDEN_SHEET_CHARS = /[[\]:*?/\\\u0000-\u001F]/g;

/**
 * Opens a streaming xlsx workbook on `out`: one sheet at a time is open (`openSheet`), rows stream
 * into it while `out` sets the pace, the Summary sheet is written last but listed first, and
 * `close()` finishes the zip. The only entry into exceljs for the rest of the code.
 */
export function openXlsxWorkbook(out: Writable, options: XlsxOptions): XlsxWorkbook {
  return new StreamingWorkbook(out, options);
}

/** The workbook's state between calls: the writer, what the sheets share, which sheet is open, what is written. */
class StreamingWorkbook implements XlsxWorkbook, DataSheetHost {
  readonly workbook: WriterWorkbook;
  readonly styles: StyleBook;
  readonly clock: ZoneClock;
  readonly paper: Paper;
  readonly footer: { oddFooter: string };
  readonly maxRowsPerSheet: number | undefined;
  readonly maxHyperlinksPerSheet: number | undefined;
  private readonly summarySheet: string;
  private readonly leading: readonly string[];
  private readonly leadingLeft: Set<string>;
  private readonly sheetOrder: ReturnType<typeof reserveLeadingSheets>;
  private readonly flow: OutputFlow;
  private readonly usedNames: Set<string>;
  private openSheetName: string | undefined;
  private summaryWritten = false;
  private closed = false;

  constructor(out: Writable, options: XlsxOptions) {
    this.clock = createZoneClock(options.timeZone);
    // exceljs defaults to zlib level 1; 6 makes files ~18 % smaller at no measurable time cost.
    this.workbook = createWorkbookWriter(out, { zlibLevel: 6, createdAt: options.createdAt });
    this.workbook.creator = options.creator ?? 'planning-report-exporter';
    this.workbook.lastModifiedBy = this.workbook.creator;
    if (options.title) this.workbook.title = options.title;
    this.leading = options.leadingSheets ?? [];
    this.sheetOrder = reserveLeadingSheets(this.workbook, 1 + this.leading.length);
    this.leadingLeft = new Set(this.leading);
    this.flow = new OutputFlow(out);
    this.styles = new StyleBook(excelDateFormats(options.locale)); // once: every date cell shares one style
    this.paper = paperFor(options.locale);
    ({ summarySheet: this.summarySheet, footer: this.footer } = sheetWords(options));
    this.usedNames = new Set<string>([this.summarySheet.toLowerCase(), ...this.leading.map((n) => n.toLowerCase())]);
    this.maxRowsPerSheet = options.maxRowsPerSheet;
    this.maxHyperlinksPerSheet = options.maxHyperlinksPerSheet;
  }

  openSheet(table: TableDefinition, sheetOptions?: XlsxSheetOptions): TableSink {
    this.assertWritable(`open the sheet "${table.title ?? table.name}"`);
    return new DataSheetSink(this, table, sheetOptions?.outlineLevels ?? 0);
  }

  async writeLeadingSheet(name: string, content: LeadingSheet): Promise<void> {
    this.assertWritable(`write the sheet "${name}"`);
    takeLeading(this.leadingLeft, name);
    const sheet = this.sheetOrder.add(2 + this.leading.indexOf(name), name, {
      // Its table's header (row 4, under the heading and the sentence) repeats on every printed page.
      pageSetup: { ...printSetup(this.paper), printTitlesRow: '4:4' },
      headerFooter: this.footer,
    });
    await writeLeadingRows(sheet, content, { styles: this.styles, clock: this.clock, relieve: () => this.flow.relieve(noPendingXml) });
    sheet.commit();
  }

  writeChartSheet(name: string, content: ChartSheetContent): Promise<void> {
    this.assertWritable(`write the sheet "${name}"`);
    takeLeading(this.leadingLeft, name);
    const sheet = this.sheetOrder.add(2 + this.leading.indexOf(name), name, { pageSetup: printSetup(this.paper), headerFooter: this.footer });
    attachCharts(this.workbook, sheet, writeChartSheetRows(sheet, name, content, { styles: this.styles, clock: this.clock, paper: this.paper }));
    sheet.commit();
    return Promise.resolve();
  }

  async writeSummary(summary: ReportSummary): Promise<void> {
    this.assertWritable('write the Summary');
    if (this.leadingLeft.size > 0) throw new ExporterError(`Write the sheet "${[...this.leadingLeft][0]}" before the Summary`);
    this.summaryWritten = true;
    // The Summary prints portrait, on as many pages as it needs (see print-setup.ts).
    const sheet = this.sheetOrder.add(1, this.summarySheet, {
      pageSetup: summarySetup(this.paper),
      headerFooter: this.footer,
      views: [{ showGridLines: false }],
    });
    sheet.columns = SUMMARY_COLUMN_WIDTHS.map((width) => ({ width }));
    const deps = { styles: this.styles, clock: this.clock, paper: this.paper, relieve: () => this.flow.relieve(noPendingXml) };
    await writeSummaryRows(sheet, summary, deps);
    sheet.commit();
  }

  async close(): Promise<void> {
    if (this.closed) throw new ExporterError('The workbook is already closed');
    if (this.openSheetName !== undefined) {
      throw new ExporterError(`Cannot close the workbook: close the sheet "${this.openSheetName}" first`);
    }
    if (!this.summaryWritten) throw new ExporterError('Cannot close the workbook: write the Summary sheet first');
    this.closed = true;
    this.flow.throwIfFailed();
    try {
      await this.workbook.commit();
    } catch (error) {
      throw outputWriteError('the Excel workbook', error);
    }
  }

  uniqueSheetName(name: string): string {
    let base = name.replace(FORBIDDEN_SHEET_CHARS, '_').replace(/^'+|'+$/g, '').slice(0, 31) || 'Sheet';
    let candidate = base;
    for (let n = 2; this.usedNames.has(candidate.toLowerCase()); n++) {
      const suffix = ` (${n})`;
      base = base.slice(0, 31 - suffix.length);
      candidate = base + suffix;
    }
    this.usedNames.add(candidate.toLowerCase());
    return candidate;
  }

  sheetOpened(name: string | undefined): void {
    this.openSheetName = name;
  }

  relieve(pendingXml: () => number): Promise<void> {
    return this.flow.relieve(pendingXml);
  }

  private assertWritable(action: string): void {
    if (this.closed) throw new ExporterError(`Cannot ${action}: the workbook is closed`);
    if (this.summaryWritten) throw new ExporterError(`Cannot ${action}: the Summary sheet is written last`);
    if (this.openSheetName !== undefined) {
      throw new ExporterError(`Cannot ${action}: close the sheet "${this.openSheetName}" first`);
    }
  }
}

function noPendingXml(): number {
  return 0;
}

/**
 * Sheet XML that exceljs has produced and the zip has not compressed yet, above which the producer
 * waits. exceljs hands its XML to an unbounded buffer in front of the zip, so this is the only
 * place a slow destination (or a deflate thread starved of CPU) can be noticed before memory grows.
 * 1 MiB is ~25 ms of deflate: enough that deflate never waits for the producer, short enough that
 * the 64 KiB buffers in flight are few (they are recycled, see recycleSheetBuffers).
 */
const MAX_PENDING_XML_BYTES = 2 ** 20;

/**
 * Paces the producer. exceljs's internal buffers ignore backpressure, so after every few rows the
 * producer gives the zip pipeline a turn of the event loop, then waits while `out` reports a full
 * buffer (a slow destination such as an S3 upload) or while too much XML waits to be compressed.
 */
class OutputFlow {
  private failure: Error | undefined;

  constructor(private readonly out: Writable) {
    // Remembered, not thrown: the producer learns of it at its next row instead of waiting forever.
    out.on('error', (error: Error) => {
      this.failure ??= error;
    });
    out.on('close', () => {
      if (!out.writableFinished) this.failure ??= new Error('The output stream closed before the workbook was written');
    });
  }

  throwIfFailed(): void {
    if (this.failure) throw outputWriteError('the Excel workbook', this.failure);
  }

  async relieve(pendingXml: () => number): Promise<void> {
    await new Promise((resolve) => setImmediate(resolve));
    for (;;) {
      this.throwIfFailed();
      if (this.out.writableNeedDrain) await this.drained();
      // A short sleep, not setImmediate: it leaves the CPU to the deflate thread on a 2-core machine.
      else if (pendingXml() > MAX_PENDING_XML_BYTES) await new Promise((resolve) => setTimeout(resolve, 2));
      else return;
    }
  }

  private drained(): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        this.out.off('drain', done);
        this.out.off('error', done);
        this.out.off('close', done);
        resolve();
      };
      this.out.on('drain', done);
      this.out.on('error', done);
      this.out.on('close', done);
    });
  }
}

/** Marks a leading sheet written; a name not declared, or written twice, is the caller's mistake. */
function takeLeading(left: Set<string>, name: string): void {
  if (!left.has(name)) throw new ExporterError(`"${name}" is not a leading sheet of this workbook, or it was written already`);
  left.delete(name);
}
