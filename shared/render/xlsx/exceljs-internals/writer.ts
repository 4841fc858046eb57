/**
 * exceljs's streaming writer as the renderer sees it, and the version check every patch hangs on.
 * Every reach into exceljs's and archiver's internals sits in this folder, one module per thing it
 * patches: exceljs 4's streaming writer has no public way to put a sheet written last first
 * (./sheet-order.ts), to bound its buffering or reuse its buffers (./sheet-buffers.ts), to write a
 * long hyperlink list without one giant string or to forget formulae (./data-sheet.ts), or to add
 * charts (./charts.ts); see docs/benchmarks.md, "Rendering". Each patch checks the shape it relies
 * on and throws an ExporterError naming the internal otherwise, and the installed exceljs version is
 * checked once (here) against the version these shapes were verified with.
 * test/shared/render/xlsx/exceljs-internals.test.ts is the canary that exercises each one against
 * the installed exceljs: run it after any exceljs upgrade, then raise TESTED_EXCELJS_VERSION.
 */
import type { Writable } from 'node:stream';
// The streaming writer alone: exceljs's main entry also loads its readers (unzipper, jszip, bluebird;
// ~200 kB of a bundle that never reads a workbook).
import WorkbookWriter from 'exceljs/lib/stream/xlsx/workbook-writer.js';
// Imported, not read from node_modules at run time: the Lambda bundle has no node_modules.
import exceljsPackage from 'exceljs/package.json' with { type: 'json' };
import { ExporterError } from '../../../core/errors';
import type { ExcelValue, StyleModel } from '../cells';

/** The exceljs version whose internals the patches of this folder were verified against. */
export const TESTED_EXCELJS_VERSION = '4.4.0';

/** The internals the patches of this folder rely on, for the version-check message. */
const RELIED_ON = [
  'WorkbookWriter._worksheets',
  'StreamBuf.pipes/bufSize/batch/buffers/_getWritableBuffer',
  "readable-stream 2's _readableState/_writableState",
  'WorksheetWriter._writeHyperlinks and _sheetRelsWriter._hyperlinks',
  'WorksheetWriter._formulae',
  'WorkbookWriter.zip/addContentTypes, WorksheetWriter._writeLegacyData and _sheetRelsWriter.addRelationship (charts)',
  'WorkbookWriter.addThemes and zip.append (entry dates)',
].join(', ');

let versionChecked = false;

/**
 * Throws unless `installed` is the tested exceljs version. An upgrade may keep every shape the
 * patches check and still change what they mean, so an untested version is refused outright.
 */
export function assertTestedExceljsVersion(installed: string = exceljsPackage.version): void {
  if (installed !== TESTED_EXCELJS_VERSION) {
    throw new ExporterError(
      `exceljs ${installed} is installed, but the Excel renderer patches exceljs internals (${RELIED_ON}) ` +
        `verified only with exceljs ${TESTED_EXCELJS_VERSION}. Run test/shared/render/xlsx/exceljs-internals.test.ts ` +
        'against the new version, adapt the modules in shared/render/xlsx/exceljs-internals/, then raise TESTED_EXCELJS_VERSION',
    );
  }
}

// -------------------------------------------------------------------------------------------------
// The slice of exceljs's streaming writer the renderer uses. Its typings describe the in-memory
// Workbook, so the writer is narrowed to what is actually called.

export interface WriterCell {
  value: ExcelValue;
  style: StyleModel;
}
export interface WriterRow {
  getCell(column: number): WriterCell;
  style: StyleModel;
  outlineLevel: number;
  /** Points; a set height is written as customHeight (nothing grows a streamed row on opening). */
  height?: number;
  /** A manual page break after this row (written when the sheet is committed). */
  addPageBreak(): void;
  commit(): void;
}
export interface WriterSheet {
  readonly id: number;
  properties: { outlineLevelRow: number };
  /** Per column from A; an entry without a width or `hidden` leaves the column as Excel's default. */
  columns: { width?: number; hidden?: boolean }[];
  /** Conditional formats (the Summary's data bars), written when the sheet is committed. */
  addConditionalFormatting(format: { ref: string; rules: readonly Record<string, unknown>[] }): void;
  autoFilter: string | null;
  addRow(values: undefined): WriterRow;
  /** Merges a rectangle (1-based rows and columns). */
  mergeCells(top: number, left: number, bottom: number, right: number): void;
  commit(): void;
}
export interface WriterWorkbook {
  creator: string;
  lastModifiedBy: string;
  title: string;
  addWorksheet(name: string, options: Record<string, unknown>): WriterSheet;
  commit(): Promise<unknown>;
}

/** exceljs's streaming WorkbookWriter on `out`, after the version check (done once per process). */
export function createWorkbookWriter(out: Writable, options: { zlibLevel: number; createdAt: Date }): WriterWorkbook {
  if (!versionChecked) {
    assertTestedExceljsVersion();
    versionChecked = true;
  }
  return new DatedWorkbookWriter({
    stream: out,
    // Without it the streaming writer writes no styles at all: no formats, no bold, no fills.
    useStyles: true,
    // Shared strings: 1 % smaller files for 26 % more time and gigabytes of memory at 300k rows.
    useSharedStrings: false,
    zip: { zlib: { level: options.zlibLevel } },
    // docProps/core.xml's created and modified times (exceljs's default is the wall clock).
    created: options.createdAt,
    modified: options.createdAt,
  }) as unknown as WriterWorkbook;
}

/** The part of archiver's zip the writer appends its entries to. */
interface ZipArchive {
  append(source: unknown, data: { name: string; date?: Date }): unknown;
}

/**
 * exceljs appends every part without a date, so archiver stamps each zip entry with the wall clock
 * and two writes of the same workbook differ in their headers. Every entry gets the workbook's
 * `created` date instead. Its constructor appends the first parts (addThemes, then addOfficeRels)
 * as soon as it has made the zip, so the zip's `append` is wrapped when the first of them runs.
 */
class DatedWorkbookWriter extends (WorkbookWriter as unknown as new (options: Record<string, unknown>) => { zip: ZipArchive; created: Date; addThemes(): Promise<void> }) {
  override addThemes(): Promise<void> {
    if (typeof this.zip.append !== 'function') throw new ExporterError('exceljs internals changed: WorkbookWriter.zip.append is not a function');
    const append = this.zip.append.bind(this.zip);
    const date = this.created;
    this.zip.append = (source, data) => append(source, { ...data, date });
    return super.addThemes();
  }
}
