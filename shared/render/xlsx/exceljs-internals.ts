/**
 * Every reach into exceljs's and archiver's internals, in one place. exceljs 4's streaming writer
 * has no public way to put a sheet written last first, to bound its buffering, to reuse its buffers
 * or to write a long hyperlink list without one giant string; the patches below do that
 * (docs/benchmarks.md, "Rendering"). Each checks the shape it relies on and throws an ExporterError
 * naming the internal otherwise, and the installed exceljs version is checked once against the
 * version these shapes were verified with. test/shared/render/xlsx/exceljs-internals.test.ts is the
 * canary that exercises each one against the installed exceljs: run it after any exceljs upgrade,
 * then raise TESTED_EXCELJS_VERSION.
 */
import type { Writable } from 'node:stream';
// The streaming writer alone: exceljs's main entry also loads its readers (unzipper, jszip, bluebird;
// ~200 kB of a bundle that never reads a workbook).
import WorkbookWriter from 'exceljs/lib/stream/xlsx/workbook-writer.js';
// Imported, not read from node_modules at run time: the Lambda bundle has no node_modules.
import exceljsPackage from 'exceljs/package.json' with { type: 'json' };
import { ExporterError } from '../../core/errors';
import type { ExcelValue, StyleModel } from './cells';
import {
  CHART_CONTENT_TYPE,
  chartXml,
  DRAWING_CONTENT_TYPE,
  DRAWING_REL_TYPE,
  drawingRelsXml,
  drawingXml,
  type ChartAnchor,
  type ChartPart,
} from './chart-parts';

/** The exceljs version whose internals the patches below were verified against. */
export const TESTED_EXCELJS_VERSION = '4.4.0';

/** The internals this module relies on, for the version-check message. */
const RELIED_ON = [
  'WorkbookWriter._worksheets',
  'StreamBuf.pipes/bufSize/batch/buffers/_getWritableBuffer',
  "readable-stream 2's _readableState/_writableState",
  'WorksheetWriter._writeHyperlinks and _sheetRelsWriter._hyperlinks',
  'WorksheetWriter._formulae',
  'WorkbookWriter.zip/addContentTypes, WorksheetWriter._writeLegacyData and _sheetRelsWriter.addRelationship (charts)',
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
        'against the new version, adapt shared/render/xlsx/exceljs-internals.ts, then raise TESTED_EXCELJS_VERSION',
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
  columns: { width: number; hidden?: boolean }[];
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
export function createWorkbookWriter(out: Writable, options: { zlibLevel: number }): WriterWorkbook {
  if (!versionChecked) {
    assertTestedExceljsVersion();
    versionChecked = true;
  }
  return new WorkbookWriter({
    stream: out,
    // Without it the streaming writer writes no styles at all: no formats, no bold, no fills.
    useStyles: true,
    // Shared strings: 1 % smaller files for 26 % more time and gigabytes of memory at 300k rows.
    useSharedStrings: false,
    zip: { zlib: { level: options.zlibLevel } },
  }) as WriterWorkbook;
}

// -------------------------------------------------------------------------------------------------
// Patches

/**
 * Summary must be the first sheet but is written last (it reports row counts). The sheet order
 * of the file is the order of exceljs's `_worksheets` array, indexed by sheet id, and a sheet's zip
 * entry opens the moment it is added. Adding Summary first would therefore hold every data sheet in
 * memory behind Summary's open entry (the zip is written one entry at a time). Instead, id 1 is held
 * by a placeholder so data sheets get ids 2, 3, …; Summary is added last, takes the freed id 1 and
 * is listed first, while its zip entry is simply the last one.
 */
export function reserveFirstSheet(workbook: WriterWorkbook): {
  addFirst(name: string, options?: Record<string, unknown>): WriterSheet;
} {
  const reserved = reserveLeadingSheets(workbook, 1);
  return { addFirst: (name, options) => reserved.add(1, name, options) };
}

/**
 * The same for the first `count` sheets (the Summary, then the Changes sheet): ids 1..count are held
 * by placeholders and taken back by `add(id, name)`. A sheet takes the lowest free id, so they are
 * added from the highest id down (Changes before Summary), each while the lower ones are still held.
 * Every reserved id must be added before the workbook is committed.
 */
export function reserveLeadingSheets(
  workbook: WriterWorkbook,
  count: number,
): { add(id: number, name: string, options?: Record<string, unknown>): WriterSheet } {
  const internals = workbook as unknown as { _worksheets?: unknown };
  const sheets = internals._worksheets;
  if (!Array.isArray(sheets) || sheets.length !== 0) {
    throw new ExporterError('exceljs internals changed: WorkbookWriter._worksheets is not an empty array');
  }
  const placeholders = new Map<number, object>();
  for (let id = 1; id <= count; id++) {
    const placeholder = { placeholder: id };
    placeholders.set(id, placeholder);
    sheets[id] = placeholder;
  }
  return {
    add(id: number, name: string, options: Record<string, unknown> = {}): WriterSheet {
      const placeholder = placeholders.get(id);
      if (!placeholder) throw new ExporterError(`sheet id ${id} is not reserved`);
      if (sheets[id] !== placeholder) throw new ExporterError(`exceljs internals changed: sheet id ${id} was taken`);
      for (let lower = 1; lower < id; lower++) {
        if (placeholders.has(lower) && sheets[lower] !== placeholders.get(lower)) {
          throw new ExporterError(`add sheet ${id} before sheet ${lower}: a sheet takes the lowest free id`);
        }
      }
      sheets[id] = undefined;
      placeholders.delete(id);
      const sheet = workbook.addWorksheet(name, options);
      if (sheet.id !== id) throw new ExporterError(`exceljs internals changed: "${name}" got sheet id ${sheet.id}, not ${id}`);
      return sheet;
    },
  };
}


/** Where a stream keeps what it holds: a public getter (Node, readable-stream 3) or its state (readable-stream 2). */
type BufferedStream = {
  writableLength?: unknown;
  readableLength?: unknown;
  _writableState?: { length?: unknown };
  _readableState?: { length?: unknown };
};

function bufferedBytes(stream: BufferedStream, side: 'writable' | 'readable'): number | undefined {
  const length = side === 'writable' ? stream.writableLength : stream.readableLength;
  if (typeof length === 'number') return length;
  const state = side === 'writable' ? stream._writableState : stream._readableState;
  return typeof state?.length === 'number' ? state.length : undefined;
}

/**
 * How many bytes of this sheet's XML wait in front of the zip. exceljs writes the XML into its own
 * StreamBuf, which passes every 64 KiB to a PassThrough (its `pipes`) that archiver reads when the
 * deflate stream asks for more. StreamBuf ignores the PassThrough's backpressure, so whatever the
 * producer writes faster than deflate compresses piles up in that PassThrough's write buffer —
 * without pacing, ~100 MB at 300,000 rows, released only when the entry ends. archiver 5 builds that
 * PassThrough from readable-stream 2, which has no `writableLength`/`readableLength` getters, so the
 * lengths are read from its stream states. Neither StreamBuf's `pipes` nor those states are public:
 * an unexpected shape is an error here, not a silent 0 that would let memory grow with the sheet.
 */
export function pendingXmlBytes(sheet: WriterSheet): () => number {
  const stream = (sheet as unknown as { stream?: { pipes?: unknown } }).stream;
  const pipes = stream?.pipes;
  const measurable = (pipe: BufferedStream | null): boolean =>
    typeof pipe === 'object' &&
    pipe !== null &&
    bufferedBytes(pipe, 'writable') !== undefined &&
    bufferedBytes(pipe, 'readable') !== undefined;
  if (!Array.isArray(pipes) || pipes.length === 0 || !(pipes as (BufferedStream | null)[]).every(measurable)) {
    throw new ExporterError(
      'exceljs internals changed: the worksheet stream has no measurable pipes (StreamBuf.pipes), so its buffering cannot be bounded',
    );
  }
  const targets = pipes as BufferedStream[];
  return () => {
    let bytes = 0;
    for (const pipe of targets) bytes += (bufferedBytes(pipe, 'writable') ?? 0) + (bufferedBytes(pipe, 'readable') ?? 0);
    return bytes;
  };
}

/** Hyperlink elements rendered into one string at a time when the sheet closes. */
const HYPERLINKS_PER_WRITE = 4096;

/**
 * exceljs writes the sheet's `<hyperlinks>` list (one element per link, ~45 bytes each) when the
 * sheet closes, rendered through its XmlStream into a single string: at 300,000 links a 13 MB
 * string plus the 1.2 million pieces it was joined from, and a Buffer copy of it, all at once on
 * top of everything the links already hold — the peak of a linked sheet. This writes the same
 * bytes in slices. exceljs's streaming sheet records each link as `{ rId, address }`; any other
 * shape (tooltips, internal locations) is left to exceljs's own renderer.
 *
 * Written, the list is let go: nothing reads it after the sheet closes, but the workbook keeps every
 * closed sheet until it closes itself, and with it the list (~0.35 KB a link, 23 MB for a sheet's
 * 65,530). A table past Excel's row limit goes on in another sheet, which would hold a second list.
 */
export function writeHyperlinksInSlices(sheet: WriterSheet): void {
  const internals = sheet as unknown as {
    _writeHyperlinks?: unknown;
    _sheetRelsWriter?: { _hyperlinks?: unknown };
    stream: { write(text: string): unknown };
  };
  const original = internals._writeHyperlinks;
  if (typeof original !== 'function' || !Array.isArray(internals._sheetRelsWriter?._hyperlinks)) {
    throw new ExporterError('exceljs internals changed: WorksheetWriter._writeHyperlinks or its hyperlink list is missing');
  }
  const plain = (link: unknown): link is { rId: string; address: string } =>
    typeof link === 'object' &&
    link !== null &&
    Object.keys(link).length === 2 &&
    typeof (link as { rId?: unknown }).rId === 'string' &&
    /^rId\d+$/.test((link as { rId: string }).rId) &&
    typeof (link as { address?: unknown }).address === 'string' &&
    /^[A-Z]+\d+$/.test((link as { address: string }).address);
  internals._writeHyperlinks = function writeHyperlinks(this: typeof internals): void {
    const links = this._sheetRelsWriter?._hyperlinks as unknown[];
    this._sheetRelsWriter!._hyperlinks = [];
    if (links.length === 0 || !links.every(plain)) {
      this._sheetRelsWriter!._hyperlinks = links;
      (original as () => void).call(this);
      this._sheetRelsWriter!._hyperlinks = [];
      return;
    }
    this.stream.write('<hyperlinks>');
    for (let start = 0; start < links.length; start += HYPERLINKS_PER_WRITE) {
      let xml = '';
      const end = Math.min(links.length, start + HYPERLINKS_PER_WRITE);
      for (let i = start; i < end; i++) {
        const link = links[i] as { rId: string; address: string };
        xml += `<hyperlink ref="${link.address}" r:id="${link.rId}"/>`;
      }
      this.stream.write(xml);
    }
    this.stream.write('</hyperlinks>');
  };
}

/**
 * exceljs's streaming sheet records every formula cell's model by address in `_formulae`, for shared
 * formulas (a clone names its master's address), and keeps them until the sheet closes: ~0.2 KB a
 * formula, 2 million HYPERLINK cells = ~400 MB. The renderer writes no shared formulas, so the
 * record is replaced by one that keeps nothing.
 */
export function forgetFormulae(sheet: WriterSheet): void {
  const internals = sheet as unknown as { _formulae?: unknown };
  const formulae = internals._formulae;
  if (typeof formulae !== 'object' || formulae === null || Object.keys(formulae).length > 0) {
    throw new ExporterError('exceljs internals changed: WorksheetWriter._formulae is missing or not empty at the start');
  }
  internals._formulae = new Proxy(
    {},
    {
      set: () => true,
      defineProperty: () => true,
    },
  );
}

/** The patches a streaming data sheet takes before its first row: buffers, hyperlinks, formulae. */
export function tuneDataSheet(sheet: WriterSheet): void {
  recycleSheetBuffers(sheet);
  writeHyperlinksInSlices(sheet);
  forgetFormulae(sheet);
}

/** Free 64 KiB sheet buffers kept for reuse: enough for what is in flight under the renderer's pending-XML bound (workbook.ts). */
const MAX_RECYCLED_BUFFERS = 32;

interface ReadWriteBufShape {
  size: number;
  buffer: Buffer;
  iRead: number;
  iWrite: number;
  readonly full: boolean;
}
interface SheetStreamShape {
  bufSize: unknown;
  batch: unknown;
  buffers: unknown;
  pipes: unknown;
  _getWritableBuffer: unknown;
}
interface PipedStreamShape {
  pipe: (destination: unknown, options?: unknown) => unknown;
  _readableState?: { pipes?: unknown; pipesCount?: unknown };
}
type TransformFn = (chunk: unknown, encoding: unknown, callback: (...args: unknown[]) => void) => void;

/**
 * Reuses the sheet stream's 64 KiB buffers instead of allocating one per 64 KiB of XML. exceljs's
 * StreamBuf fills a fresh `Buffer.alloc(65536)` at a time and hands it on to the zip; the bytes are
 * gone as soon as deflate has read them, but the buffer usually outlives two scavenges on its way
 * (filling, waiting in front of deflate), so V8 moves it to the old generation, where it is freed
 * only by a full GC — which V8 starts for external memory only after ~64 MB of it has piled up.
 * That garbage (up to ~1.1 KB a row, 60+ MB, measured with a FinalizationRegistry on the
 * allocations) was the difference between a 140 MB and a 195 MB peak. Here a buffer goes back to a
 * small pool the moment deflate's `_transform` has finished with it (Node's zlib drops its
 * reference before the callback; deflate keeps its own window), and StreamBuf takes its next buffer
 * from that pool. Any difference in the internals it relies on is an error, not a silent fallback.
 */
export function recycleSheetBuffers(sheet: WriterSheet): void {
  const changed = (what: string) => new ExporterError(`exceljs internals changed: ${what}; cannot recycle sheet buffers`);
  const stream = (sheet as unknown as { stream?: SheetStreamShape }).stream;
  if (!stream || typeof stream._getWritableBuffer !== 'function' || stream.batch !== true) {
    throw changed('the worksheet stream is not a batching StreamBuf');
  }
  const size = stream.bufSize;
  const buffers = stream.buffers;
  if (typeof size !== 'number' || !Array.isArray(buffers) || buffers.length === 0) {
    throw changed('StreamBuf has no bufSize or current buffer');
  }
  const sample = buffers[buffers.length - 1] as Partial<ReadWriteBufShape>;
  const fields = Object.keys(sample).sort().join(',');
  if (fields !== 'buffer,iRead,iWrite,size' || !Buffer.isBuffer(sample.buffer) || !('full' in sample)) {
    throw changed(`a StreamBuf ReadWriteBuf has the fields ${fields}`);
  }
  const ReadWriteBuf = (sample as object).constructor as { prototype: ReadWriteBufShape };
  const pipes = stream.pipes;
  if (!Array.isArray(pipes) || pipes.length !== 1 || typeof (pipes[0] as PipedStreamShape).pipe !== 'function') {
    throw changed('the worksheet stream does not feed one PassThrough');
  }

  const free: Buffer[] = [];
  const owned = new WeakSet<Buffer>();
  stream._getWritableBuffer = function getWritableBuffer(this: { buffers: ReadWriteBufShape[] }): ReadWriteBufShape {
    const last = this.buffers[this.buffers.length - 1];
    if (last && !last.full) return last;
    let buffer = free.pop();
    if (!buffer) {
      buffer = Buffer.allocUnsafeSlow(size);
      owned.add(buffer);
    }
    // Every byte is written before the buffer is read: StreamBuf hands on only full buffers
    // (batch mode) and copies the filled part of the last one when the sheet ends.
    const next = Object.create(ReadWriteBuf.prototype) as ReadWriteBufShape;
    next.size = size;
    next.buffer = buffer;
    next.iRead = 0;
    next.iWrite = 0;
    this.buffers.push(next);
    return next;
  };

  const hookDeflate = (destination: unknown) => {
    const target = destination as { _transform?: unknown } | null;
    if (!target || typeof target._transform !== 'function') throw changed('the zip entry stream has no _transform');
    const transform = target._transform as TransformFn;
    target._transform = function recyclingTransform(this: unknown, chunk, encoding, callback) {
      transform.call(this, chunk, encoding, (...args: unknown[]) => {
        callback(...args);
        if (Buffer.isBuffer(chunk) && owned.has(chunk) && free.length < MAX_RECYCLED_BUFFERS) free.push(chunk);
      });
    } satisfies TransformFn;
  };
  const passThrough = pipes[0] as PipedStreamShape;
  const state = passThrough._readableState;
  if (typeof state?.pipesCount !== 'number') throw changed('the PassThrough in front of the zip has no pipesCount');
  if (state.pipesCount === 0) {
    // archiver starts the entry (pipes it into deflate) once the entries before it are written.
    const pipe = passThrough.pipe;
    passThrough.pipe = function hookedPipe(this: unknown, destination, options) {
      hookDeflate(destination);
      passThrough.pipe = pipe;
      return pipe.call(this, destination, options);
    };
  } else if (state.pipesCount === 1) {
    hookDeflate(state.pipes);
  } else {
    throw changed('the PassThrough in front of the zip feeds several streams');
  }
}

// -------------------------------------------------------------------------------------------------
// Charts

interface DrawingState {
  drawings: number;
  charts: number;
  readonly overrides: string[];
}
const drawingStates = new WeakMap<object, DrawingState>();

type ZipShape = { append: (source: unknown, data: { name: string }) => unknown };

/**
 * Puts charts on a sheet. exceljs writes no charts, so the parts are added to its zip directly:
 * `xl/charts/chartN.xml` per chart, one `xl/drawings/drawingN.xml` (+ its rels) per sheet, the
 * sheet's relationship to its drawing (through the sheet's own rels writer, so the ids do not
 * clash with its hyperlinks), a `<drawing r:id>` element written just before exceljs's
 * `<legacyDrawing>` (the schema's order), and the parts' content types added to the
 * `[Content_Types].xml` exceljs writes when the workbook is committed. Call after adding the sheet
 * and before committing it.
 */
export function attachCharts(workbook: WriterWorkbook, sheet: WriterSheet, charts: readonly { anchor: ChartAnchor; part: ChartPart }[]): void {
  if (charts.length === 0) return;
  const changed = (what: string) => new ExporterError(`exceljs internals changed: ${what}; cannot add charts`);
  const wb = workbook as unknown as { zip?: Partial<ZipShape>; addContentTypes?: unknown };
  const zip = wb.zip;
  if (!zip || typeof zip.append !== 'function') throw changed('WorkbookWriter.zip has no append');
  if (typeof wb.addContentTypes !== 'function') throw changed('WorkbookWriter.addContentTypes is missing');
  const sh = sheet as unknown as {
    _writeLegacyData?: unknown;
    _sheetRelsWriter?: { addRelationship?: unknown };
    committed?: unknown;
    stream: { write(text: string): unknown };
  };
  if (typeof sh._writeLegacyData !== 'function') throw changed('WorksheetWriter._writeLegacyData is missing');
  if (typeof sh._sheetRelsWriter?.addRelationship !== 'function') throw changed('WorksheetWriter._sheetRelsWriter.addRelationship is missing');
  if (sh.committed === true) throw new ExporterError('Add the charts before the sheet is committed');

  let state = drawingStates.get(workbook);
  if (!state) {
    state = { drawings: 0, charts: 0, overrides: [] };
    drawingStates.set(workbook, state);
    addContentTypeOverrides(wb as { zip: ZipShape; addContentTypes: () => unknown }, state.overrides);
  }
  const drawing = ++state.drawings;
  const numbers = charts.map(() => ++(state).charts);
  const append = (xml: string, name: string) => (zip as ZipShape).append(xml, { name });
  charts.forEach((c, i) => {
    append(chartXml(c.part), `xl/charts/chart${numbers[i]}.xml`);
    state.overrides.push(`<Override PartName="/xl/charts/chart${numbers[i]}.xml" ContentType="${CHART_CONTENT_TYPE}"/>`);
  });
  append(drawingXml(charts.map((c) => c.anchor), charts.map((c) => c.part.title)), `xl/drawings/drawing${drawing}.xml`);
  append(drawingRelsXml(numbers), `xl/drawings/_rels/drawing${drawing}.xml.rels`);
  state.overrides.push(`<Override PartName="/xl/drawings/drawing${drawing}.xml" ContentType="${DRAWING_CONTENT_TYPE}"/>`);

  const rId = (sh._sheetRelsWriter.addRelationship as (rel: object) => unknown).call(sh._sheetRelsWriter, {
    Target: `../drawings/drawing${drawing}.xml`,
    Type: DRAWING_REL_TYPE,
  });
  if (typeof rId !== 'string' || !/^rId\d+$/.test(rId)) throw changed('SheetRelsWriter.addRelationship returned no rId');
  const writeLegacyData = sh._writeLegacyData as () => void;
  sh._writeLegacyData = function writeDrawingThenLegacy(this: typeof sh): void {
    this.stream.write(`<drawing r:id="${rId}"/>`);
    writeLegacyData.call(this);
  };
}

/** Wraps addContentTypes so the `[Content_Types].xml` it appends also lists the chart parts. */
function addContentTypeOverrides(wb: { zip: ZipShape; addContentTypes: () => unknown }, overrides: readonly string[]): void {
  const addContentTypes = wb.addContentTypes;
  wb.addContentTypes = function addContentTypesWithCharts(this: typeof wb): unknown {
    const zip = this.zip;
    const append = zip.append;
    let added = false;
    zip.append = function appendWithOverrides(this: unknown, source, data) {
      if (data.name === '[Content_Types].xml' && typeof source === 'string' && source.includes('</Types>')) {
        added = true;
        return append.call(this, source.replace('</Types>', `${overrides.join('')}</Types>`), data);
      }
      return append.call(this, source, data);
    };
    try {
      const result = addContentTypes.call(this);
      if (!added) throw new ExporterError('exceljs internals changed: addContentTypes did not append [Content_Types].xml as text; cannot add charts');
      return result;
    } finally {
      zip.append = append;
    }
  };
}
