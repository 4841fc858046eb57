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
import type {
  ReportSummary,
  LeadingSheet,
  TableDefinition,
  TableRow,
  TableSink,
  CellValue,
} from '../../table/table';
import { worksheetText } from '../cell-text';
import { excelDateFormats } from '../../core/format';
import { paperFor, type Paper } from '../paper';
import { createZoneClock } from '../time-zone';
import { capLinks, columnLetters, Kind, producedKind, StyleBook, type StyleModel, toExcel, widthOf, fitWrapped } from './cells';
import { writeChartSheetRows, type ChartSheetContent } from './chart-sheet';
import { attachCharts } from './exceljs-internals/charts';
import { tuneDataSheet } from './exceljs-internals/data-sheet';
import { pendingXmlBytes } from './exceljs-internals/sheet-buffers';
import { reserveLeadingSheets } from './exceljs-internals/sheet-order';
import { createWorkbookWriter, type WriterSheet } from './exceljs-internals/writer';
import { writeLeadingRows } from './leading-sheet';
import { MARGINS, dataSheetSetup, rowHeightFor, summarySetup } from './print-setup';
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

/** Rows between yields to the event loop; ~10-50 keeps exceljs's buffers small at no time cost. */
const ROWS_PER_YIELD = 32;
/**
 * Sheet XML that exceljs has produced and the zip has not compressed yet, above which the producer
 * waits. exceljs hands its XML to an unbounded buffer in front of the zip, so this is the only
 * place a slow destination (or a deflate thread starved of CPU) can be noticed before memory grows.
 * 1 MiB is ~25 ms of deflate: enough that deflate never waits for the producer, short enough that
 * the 64 KiB buffers in flight are few (they are recycled, see recycleSheetBuffers).
 */
const MAX_PENDING_XML_BYTES = 2 ** 20;
/** Excel's 1,048,576 rows a sheet, less the header. */
const EXCEL_MAX_DATA_ROWS = 1_048_575;
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
/** Excel's outline depth limit. */
const MAX_OUTLINE_LEVEL = 7;

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
  const clock = createZoneClock(options.timeZone);
  // exceljs defaults to zlib level 1; 6 makes files ~18 % smaller at no measurable time cost.
  const workbook = createWorkbookWriter(out, { zlibLevel: 6, createdAt: options.createdAt });
  workbook.creator = options.creator ?? 'planning-report-exporter';
  workbook.lastModifiedBy = workbook.creator;
  if (options.title) workbook.title = options.title;

  const leading = options.leadingSheets ?? [];
  const sheetOrder = reserveLeadingSheets(workbook, 1 + leading.length);
  const leadingLeft = new Set(leading);
  const flow = new OutputFlow(out);
  const styles = new StyleBook(excelDateFormats(options.locale)); // once: every date cell shares one style
  const paper = paperFor(options.locale);
  const { summarySheet, footer } = sheetWords(options);
  const usedNames = new Set<string>([summarySheet.toLowerCase(), ...leading.map((n) => n.toLowerCase())]);
  let openSheetName: string | undefined;
  const textStyle = (variant: number, level: number | undefined): StyleModel =>
    variant === 1 ? styles.oneLine : variant === 2 ? styles.indented(level ?? 0) : styles.of(Kind.Text);
  let summaryWritten = false;
  let closed = false;

  const assertWritable = (action: string) => {
    if (closed) throw new ExporterError(`Cannot ${action}: the workbook is closed`);
    if (summaryWritten) throw new ExporterError(`Cannot ${action}: the Summary sheet is written last`);
    if (openSheetName !== undefined) {
      throw new ExporterError(`Cannot ${action}: close the sheet "${openSheetName}" first`);
    }
  };

  const uniqueSheetName = (name: string): string => {
    let base = name.replace(FORBIDDEN_SHEET_CHARS, '_').replace(/^'+|'+$/g, '').slice(0, 31) || 'Sheet';
    let candidate = base;
    for (let n = 2; usedNames.has(candidate.toLowerCase()); n++) {
      const suffix = ` (${n})`;
      base = base.slice(0, 31 - suffix.length);
      candidate = base + suffix;
    }
    usedNames.add(candidate.toLowerCase());
    return candidate;
  };

  return {
    openSheet(table: TableDefinition, sheetOptions?: XlsxSheetOptions): TableSink {
      const title = table.title ?? table.name;
      assertWritable(`open the sheet "${title}"`);
      const columns = table.columns;
      const types = columns.map((c) => c.type);
      const columnCount = columns.length;
      /** Per column: 0 as the kind says, 1 text on one line (ids), 2 text indented by the row's level. */
      const variants = columns.map((c) => (c.indentByLevel ? 2 : c.nowrap ? 1 : 0));
      const hasVariants = variants.some((v) => v !== 0);
      const outlineLevels = clampOutline(sheetOptions?.outlineLevels ?? 0);
      const maxRows = Math.max(1, options.maxRowsPerSheet ?? EXCEL_MAX_DATA_ROWS);
      const widths = columns.map((c) => widthOf(c.type, c.label ?? c.key, c.width));
      /** Per column: whether its text wraps (and so may need a taller row). */
      const wraps = columns.map((c, i) => !c.nowrap && !c.hidden && variants[i] !== 1), inWords = columns.map((c) => c.inWords);

      /** One sheet of the table: the first, or a continuation past Excel's row limit. */
      const startSheet = (name: string): { sheet: WriterSheet; pendingXml: () => number; links: number } => {
        openSheetName = name;
        const sheet = workbook.addWorksheet(name, {
          views: [{ state: 'frozen', xSplit: 0, ySplit: 1, topLeftCell: 'A2', activeCell: 'A2' }],
          properties: {
            outlineLevelRow: outlineLevels,
            // Group headers (summary rows) sit above their details, as in a hierarchy.
            outlineProperties: { summaryBelow: false, summaryRight: false },
          },
          pageSetup: dataSheetSetup(widths.filter((_, i) => !columns[i]!.hidden), keyColumnOf(columns), '1:1', paper),
          headerFooter: footer,
        });
        // exceljs flags a row `collapsed` when its level >= this property, which it reads live but has
        // already written to the sheet header above: raised past any level, no visible row is marked
        // collapsed (Excel would show its group as closed while the rows are open).
        sheet.properties.outlineLevelRow = MAX_OUTLINE_LEVEL + 1;
        // Hidden, not dropped: internal ids and colour codes stay for whoever unhides them.
        sheet.columns = columns.map((c, i) => ({
          width: widths[i]!,
          ...(c.hidden && { hidden: true }),
        }));
        const header = sheet.addRow(undefined);
        header.style = styles.row;
        for (let i = 0; i < columnCount; i++) {
          const cell = header.getCell(i + 1);
          cell.value = worksheetText(columns[i]!.label ?? columns[i]!.key);
          cell.style = styles.header;
        }
        header.commit();
        const pendingXml = pendingXmlBytes(sheet);
        tuneDataSheet(sheet);
        return { sheet, pendingXml, links: 0 };
      };
      const finishSheet = (sheet: WriterSheet, rows: number) => {
        if (columnCount > 0) sheet.autoFilter = `A1:${columnLetters(columnCount)}${rows + 1}`;
        sheet.commit();
      };

      let current = startSheet(uniqueSheetName(title));
      let part = 1;
      let rowsInSheet = 0;
      let rows = 0;
      let sinceYield = 0;
      let sheetClosed = false;

      return {
        writeRow(row: TableRow): Promise<void> | void {
          if (sheetClosed) throw new ExporterError(`The sheet "${title}" is closed`);
          if (rowsInSheet >= maxRows) {
            // Past Excel's limit the table goes on in "Board items (2)", … rather than failing the export.
            finishSheet(current.sheet, rowsInSheet);
            current = startSheet(uniqueSheetName(`${title} (${++part})`));
            rowsInSheet = 0;
          }
          const values = row.values;
          const fill = row.fill;
          const fillColumn =
            fill && Number.isInteger(fill.column) && fill.column >= 0 && fill.column < columnCount ? fill.column : -1;
          const level = row.outlineLevel;
          const target = current.sheet.addRow(undefined);
          target.style = styles.row;
          let lines = 1;
          for (let i = 0; i < columnCount; i++) {
            const wrapped = fitWrapped(toExcel(inWordsOf(values[i], inWords[i]), types[i], clock), wraps[i] ? widths[i]! : 0);
            lines = Math.max(lines, wrapped.lines);
            const value = capLinks(wrapped.value, current, options.maxHyperlinksPerSheet);
            const style = i === fillColumn ? styles.withFill(producedKind, fill!.color) : undefined;
            // Empty text is an empty cell, as in the CSV (and Excel's ISBLANK agrees).
            const empty = value === null || value === '';
            if (empty && style === undefined) continue;
            const cell = target.getCell(i + 1);
            cell.value = empty ? null : value;
            cell.style = style ?? (hasVariants && producedKind === Kind.Text ? textStyle(variants[i]!, level) : styles.of(producedKind));
          }
          const height = rowHeightFor(lines);
          if (height !== undefined) target.height = height;
          if (level) target.outlineLevel = clampOutline(level);
          target.commit();
          rows += 1;
          rowsInSheet += 1;
          if (++sinceYield >= ROWS_PER_YIELD) {
            sinceYield = 0;
            return flow.relieve(current.pendingXml);
          }
        },
        close(): Promise<number> {
          if (sheetClosed) return Promise.reject(new ExporterError(`The sheet "${title}" is closed`));
          sheetClosed = true;
          finishSheet(current.sheet, rowsInSheet);
          openSheetName = undefined;
          return Promise.resolve(rows);
        },
      };
    },

    async writeLeadingSheet(name: string, content: LeadingSheet): Promise<void> {
      assertWritable(`write the sheet "${name}"`);
      takeLeading(leadingLeft, name);
      const sheet = sheetOrder.add(2 + leading.indexOf(name), name, {
        // Its table's header (row 4, under the heading and the sentence) repeats on every printed page.
        pageSetup: { ...printSetup(paper), printTitlesRow: '4:4' },
        headerFooter: footer,
      });
      await writeLeadingRows(sheet, content, { styles, clock, relieve: () => flow.relieve(noPendingXml) });
      sheet.commit();
    },

    writeChartSheet(name: string, content: ChartSheetContent): Promise<void> {
      assertWritable(`write the sheet "${name}"`);
      takeLeading(leadingLeft, name);
      const sheet = sheetOrder.add(2 + leading.indexOf(name), name, { pageSetup: printSetup(paper), headerFooter: footer });
      attachCharts(workbook, sheet, writeChartSheetRows(sheet, name, content, { styles, clock, paper }));
      sheet.commit();
      return Promise.resolve();
    },

    async writeSummary(summary: ReportSummary): Promise<void> {
      assertWritable('write the Summary');
      if (leadingLeft.size > 0) throw new ExporterError(`Write the sheet "${[...leadingLeft][0]}" before the Summary`);
      summaryWritten = true;
      // The Summary prints portrait, on as many pages as it needs (see print-setup.ts).
      const sheet = sheetOrder.add(1, summarySheet, {
        pageSetup: summarySetup(paper),
        headerFooter: footer,
        views: [{ showGridLines: false }],
      });
      sheet.columns = SUMMARY_COLUMN_WIDTHS.map((width) => ({ width }));
      await writeSummaryRows(sheet, summary, { styles, clock, paper, relieve: () => flow.relieve(noPendingXml) });
      sheet.commit();
    },

    async close(): Promise<void> {
      if (closed) throw new ExporterError('The workbook is already closed');
      if (openSheetName !== undefined) {
        throw new ExporterError(`Cannot close the workbook: close the sheet "${openSheetName}" first`);
      }
      if (!summaryWritten) throw new ExporterError('Cannot close the workbook: write the Summary sheet first');
      closed = true;
      flow.throwIfFailed();
      try {
        await workbook.commit();
      } catch (error) {
        throw outputWriteError('the Excel workbook', error);
      }
    },
  };
}

/** The letter of the column that names a row (the first visible one): repeated when a table prints across pages. */
function keyColumnOf(columns: TableDefinition['columns']): string {
  return columnLetters(Math.max(1, columns.findIndex((c) => !c.hidden) + 1));
}

function clampOutline(level: number): number {
  return Number.isFinite(level) ? Math.min(MAX_OUTLINE_LEVEL, Math.max(0, Math.trunc(level))) : 0;
}

function noPendingXml(): number {
  return 0;
}

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

/** A coded text value as people read it (Column.inWords); any other value as it is. */
function inWordsOf(value: CellValue, words: ((text: string) => string) | undefined): CellValue {
  return words && typeof value === 'string' ? words(value) : value;
}
