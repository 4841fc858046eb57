/**
 * Charts on a sheet: exceljs writes none, so their parts go into its zip directly. Reaches into
 * WorkbookWriter.zip/addContentTypes, WorksheetWriter._writeLegacyData and
 * _sheetRelsWriter.addRelationship (see ./writer.ts for the version check).
 */
import { ExporterError } from '../../../core/errors';
import {
  CHART_CONTENT_TYPE,
  chartXml,
  DRAWING_CONTENT_TYPE,
  DRAWING_REL_TYPE,
  drawingRelsXml,
  drawingXml,
  type ChartAnchor,
  type ChartPart,
} from '../chart-parts';
import type { WriterSheet, WriterWorkbook } from './writer';

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
