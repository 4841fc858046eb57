/**
 * Canary for the exceljs/archiver internals the Excel renderer patches (shared/render/xlsx/exceljs-internals/,
 * one module per patch). Each test drives the real installed exceljs and names the internal in its failure
 * message, so an exceljs upgrade that changes what a patch relies on fails here, loudly and by name, rather
 * than as a silent memory regression or a wrong sheet order.
 */
import { writeFile } from 'node:fs/promises';
import { Writable } from 'node:stream';
import exceljsPackage from 'exceljs/package.json' with { type: 'json' };
import { afterAll, describe, expect, it } from 'vitest';
import { ExporterError } from '../../../../shared/core/errors';
import { attachCharts } from '../../../../shared/render/xlsx/exceljs-internals/charts';
import { forgetFormulae, writeHyperlinksInSlices } from '../../../../shared/render/xlsx/exceljs-internals/data-sheet';
import { pendingXmlBytes, recycleSheetBuffers } from '../../../../shared/render/xlsx/exceljs-internals/sheet-buffers';
import { reserveFirstSheet } from '../../../../shared/render/xlsx/exceljs-internals/sheet-order';
import {
  assertTestedExceljsVersion,
  createWorkbookWriter,
  TESTED_EXCELJS_VERSION,
  type WriterSheet,
  type WriterWorkbook,
} from '../../../../shared/render/xlsx/exceljs-internals/writer';
import { makeTempDir } from '../../../support/temp-dir';
import { readZipEntries } from '../zip-entries';

const temp = makeTempDir('exceljs-internals');
afterAll(() => temp.remove());

/** A workbook writer on an in-memory sink; `entries()` finishes it and returns its zip entries. */
function openWriter(createdAt = new Date('2026-11-23T06:00:00Z')): {
  workbook: WriterWorkbook;
  entries: () => Promise<Map<string, string>>;
  bytes: () => Buffer;
} {
  const chunks: Buffer[] = [];
  const out = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      chunks.push(chunk);
      callback();
    },
  });
  const workbook = createWorkbookWriter(out, { zlibLevel: 6, createdAt });
  return {
    workbook,
    bytes: () => Buffer.concat(chunks),
    entries: async () => {
      await workbook.commit();
      const path = temp.path(`${Math.random().toString(36).slice(2)}.xlsx`);
      await writeFile(path, Buffer.concat(chunks));
      return readZipEntries(path);
    },
  };
}

function writeRows(sheet: WriterSheet, from: number, count: number, text: string): void {
  for (let i = from; i < from + count; i++) {
    const row = sheet.addRow(undefined);
    row.getCell(1).value = `${text} ${i}`;
    row.getCell(2).value = { text: `link ${i}`, hyperlink: `https://example.com/${i}` };
    row.commit();
  }
}

/** Yields to the event loop until `done()` holds: deflate's callbacks arrive there. */
async function untilSettled(done: () => boolean): Promise<void> {
  while (!done()) await new Promise((resolve) => setImmediate(resolve));
}

const sheetStream = (sheet: WriterSheet) => (sheet as unknown as { stream: Record<string, unknown> }).stream;

describe('exceljs internals the Excel renderer relies on (canary: run it after every exceljs upgrade)', () => {
  it('the installed exceljs is the version the internals were verified with', () => {
    expect(
      exceljsPackage.version,
      `exceljs ${exceljsPackage.version} is installed; the internals were verified with ${TESTED_EXCELJS_VERSION}. ` +
        'If every other test in this file passes, raise TESTED_EXCELJS_VERSION in shared/render/xlsx/exceljs-internals/writer.ts',
    ).toBe(TESTED_EXCELJS_VERSION);
    expect(() => assertTestedExceljsVersion()).not.toThrow();
    expect(() => assertTestedExceljsVersion('4.5.0')).toThrow(ExporterError);
    expect(() => assertTestedExceljsVersion('4.5.0')).toThrow(
      /exceljs 4\.5\.0 is installed.*WorkbookWriter\._worksheets.*verified only with exceljs 4\.4\.0/,
    );
  });

  it('WorkbookWriter.zip.append (createWorkbookWriter): the same workbook at the same time is the same bytes, dated by its run, not the wall clock', async () => {
    const write = async (createdAt: Date) => {
      const writer = openWriter(createdAt);
      writeRows(writer.workbook.addWorksheet('Data', {}), 1, 3, 'row');
      const entries = await writer.entries();
      return { bytes: writer.bytes(), core: entries.get('docProps/core.xml') ?? '' };
    };
    const first = await write(new Date('2026-11-02T06:00:00Z'));
    const again = await write(new Date('2026-11-02T06:00:00Z'));
    expect(again.bytes.equals(first.bytes), 'two writes of one workbook at one time differ: an archiver entry is dated by the wall clock').toBe(true);
    expect(first.core).toContain('<dcterms:created xsi:type="dcterms:W3CDTF">2026-11-02T06:00:00Z</dcterms:created>');
    expect(first.core).toContain('<dcterms:modified xsi:type="dcterms:W3CDTF">2026-11-02T06:00:00Z</dcterms:modified>');
    // The zip entries' DOS date of the local headers: 2026-11-02 (years since 1980, month, day).
    const dosDate = first.bytes.readUInt16LE(12);
    expect([1980 + (dosDate >> 9), (dosDate >> 5) & 0xf, dosDate & 0x1f]).toEqual([2026, 11, 2]);
  });

  it('WorkbookWriter._worksheets: an empty array indexed by sheet id, whose order is the sheet order (reserveFirstSheet)', async () => {
    const { workbook, entries } = openWriter();
    const worksheets = (workbook as unknown as { _worksheets?: unknown })._worksheets;
    expect(worksheets, 'exceljs internal WorkbookWriter._worksheets is no longer an empty array on a fresh writer').toEqual([]);

    const order = reserveFirstSheet(workbook);
    const data = workbook.addWorksheet('Data', {});
    expect(data.id, 'exceljs internal WorkbookWriter._worksheets: a data sheet did not skip the reserved id 1').toBe(2);
    writeRows(data, 0, 3, 'data');
    data.commit();
    const summary = order.addFirst('Summary');
    expect(summary.id, 'exceljs internal WorkbookWriter._worksheets: Summary did not get the freed id 1').toBe(1);
    summary.addRow(undefined).commit();
    summary.commit();

    const files = await entries();
    const sheetNames = [...(files.get('xl/workbook.xml') ?? '').matchAll(/<sheet [^>]*name="([^"]+)"/g)].map((m) => m[1]);
    expect(sheetNames, 'exceljs internal WorkbookWriter._worksheets no longer decides the sheet order').toEqual(['Summary', 'Data']);
    expect(
      files.get('xl/worksheets/sheet2.xml')?.includes('data 2'),
      'exceljs internal WorkbookWriter._worksheets: sheet ids and parts disagree',
    ).toBe(true);
  });

  it('StreamBuf.pipes and the readable-stream 2 states of the PassThrough in front of the zip (pendingXmlBytes)', async () => {
    const { workbook, entries } = openWriter();
    const sheet = workbook.addWorksheet('Data', {});
    const stream = sheetStream(sheet);
    const pipes = stream.pipes as unknown[];
    expect(Array.isArray(pipes) && pipes.length, 'exceljs internal StreamBuf.pipes is not one PassThrough').toBe(1);
    const pipe = pipes[0] as { _readableState?: { length?: unknown }; _writableState?: { length?: unknown } };
    expect(typeof pipe._readableState?.length, 'archiver internal PassThrough _readableState.length is not a number').toBe('number');
    expect(typeof pipe._writableState?.length, 'archiver internal PassThrough _writableState.length is not a number').toBe('number');

    const pending = pendingXmlBytes(sheet);
    // Written without a turn of the event loop, the XML can only pile up in front of the zip.
    writeRows(sheet, 0, 5000, 'x'.repeat(200));
    expect(pending(), 'exceljs internal StreamBuf.pipes: written XML no longer waits in the measured PassThrough').toBeGreaterThan(
      5 * 64 * 1024,
    );
    await untilSettled(() => pending() === 0);
    sheet.commit();
    expect((await entries()).get('xl/worksheets/sheet1.xml')?.includes(`${'x'.repeat(200)} 4999</v>`)).toBe(true);
  });

  it('StreamBuf._getWritableBuffer, bufSize, batch and ReadWriteBuf, and the zip entry _transform (recycleSheetBuffers)', async () => {
    const { workbook, entries } = openWriter();
    const sheet = workbook.addWorksheet('Data', {});
    const stream = sheetStream(sheet);
    expect(typeof stream._getWritableBuffer, 'exceljs internal StreamBuf._getWritableBuffer is not a function').toBe('function');
    expect(stream.bufSize, 'exceljs internal StreamBuf.bufSize is not 64 KiB').toBe(65536);
    expect(stream.batch, 'exceljs internal StreamBuf.batch is not set for worksheet streams').toBe(true);
    const buffers = stream.buffers as object[];
    expect(Array.isArray(buffers) && buffers.length > 0, 'exceljs internal StreamBuf.buffers holds no current ReadWriteBuf').toBe(true);
    const sample = buffers[buffers.length - 1]!;
    expect(Object.keys(sample).sort(), 'exceljs internal ReadWriteBuf has other fields').toEqual(['buffer', 'iRead', 'iWrite', 'size']);
    expect('full' in sample, 'exceljs internal ReadWriteBuf.full is missing').toBe(true);
    const passThrough = (stream.pipes as { _readableState?: { pipesCount?: unknown } }[])[0];
    expect(typeof passThrough?._readableState?.pipesCount, 'archiver internal PassThrough _readableState.pipesCount is not a number').toBe(
      'number',
    );

    recycleSheetBuffers(sheet);
    const patched = stream._getWritableBuffer as () => { buffer: Buffer };
    const handedOut: Buffer[] = [];
    stream._getWritableBuffer = function recording(this: unknown) {
      const next = patched.call(this);
      if (handedOut.at(-1) !== next.buffer) handedOut.push(next.buffer);
      return next;
    };
    const pending = pendingXmlBytes(sheet);
    for (let batch = 0; batch < 40; batch++) {
      writeRows(sheet, batch * 500, 500, 'y'.repeat(200));
      await untilSettled(() => pending() === 0);
    }
    sheet.commit();
    const files = await entries();
    const xml = files.get('xl/worksheets/sheet1.xml') ?? '';
    expect(xml.match(/<row /g)?.length, 'recycled buffers lost rows of the sheet XML').toBe(20_000);
    expect(xml.includes(`<v>${'y'.repeat(200)} 19999</v>`), 'recycled buffers corrupted the sheet XML').toBe(true);
    expect(
      new Set(handedOut).size,
      'archiver/zlib internal: the zip entry _transform hook never returned a 64 KiB buffer for reuse',
    ).toBeLessThan(handedOut.length / 2);
  });

  it('WorksheetWriter._writeHyperlinks and _sheetRelsWriter._hyperlinks (writeHyperlinksInSlices): the same bytes as exceljs, the list let go once written', async () => {
    const sheetXml = async (patch: boolean): Promise<string> => {
      const { workbook, entries } = openWriter();
      const sheet = workbook.addWorksheet('Data', {});
      const internals = sheet as unknown as { _writeHyperlinks?: unknown; _sheetRelsWriter?: { _hyperlinks?: unknown } };
      expect(typeof internals._writeHyperlinks, 'exceljs internal WorksheetWriter._writeHyperlinks is not a function').toBe('function');
      expect(internals._sheetRelsWriter?._hyperlinks, 'exceljs internal WorksheetWriter._sheetRelsWriter._hyperlinks is not an array').toEqual(
        [],
      );
      if (patch) writeHyperlinksInSlices(sheet);
      writeRows(sheet, 0, 10_000, 'row');
      expect(
        (internals._sheetRelsWriter?._hyperlinks as unknown[])[0],
        'exceljs internal _sheetRelsWriter._hyperlinks no longer records a link as { rId, address }',
      ).toEqual({ rId: 'rId1', address: 'B1' });
      sheet.commit();
      // A closed sheet stays in the workbook until it closes: patched, it no longer holds its links.
      expect((internals._sheetRelsWriter?._hyperlinks as unknown[]).length).toBe(patch ? 0 : 10_000);
      const files = await entries();
      // The relationships went out whole all the same (they are written as the links come).
      expect(files.get('xl/worksheets/_rels/sheet1.xml.rels')?.match(/TargetMode="External"/g)).toHaveLength(10_000);
      return files.get('xl/worksheets/sheet1.xml') ?? '';
    };
    const patched = await sheetXml(true);
    expect(patched.includes('<hyperlink ref="B10000" r:id="rId10000"/></hyperlinks>')).toBe(true);
    expect(patched === (await sheetXml(false)), 'WorksheetWriter._writeHyperlinks: the sliced hyperlink list differs from exceljs\'s').toBe(true);
  });
  it('WorksheetWriter._formulae (forgetFormulae): formula cells are written the same and none is kept', async () => {
    const sheetXml = async (patch: boolean): Promise<{ xml: string; kept: number }> => {
      const { workbook, entries } = openWriter();
      const sheet = workbook.addWorksheet('Data', {});
      const internals = sheet as unknown as { _formulae?: Record<string, unknown> };
      expect(internals._formulae, 'exceljs internal WorksheetWriter._formulae is not an empty object').toEqual({});
      if (patch) forgetFormulae(sheet);
      for (let i = 1; i <= 1_000; i++) {
        const row = sheet.addRow(undefined);
        row.getCell(1).value = { formula: `HYPERLINK("https://example.com/${i}","item ${i}")`, result: `item ${i}` };
        row.commit();
      }
      const kept = Object.keys(internals._formulae ?? {}).length;
      sheet.commit();
      return { xml: (await entries()).get('xl/worksheets/sheet1.xml') ?? '', kept };
    };
    const plain = await sheetXml(false);
    expect(plain.kept, 'exceljs no longer records formula cells in WorksheetWriter._formulae: forgetFormulae may be dropped').toBe(1_000);
    const patched = await sheetXml(true);
    expect(patched.kept).toBe(0);
    expect(patched.xml).toContain('<f>HYPERLINK(&quot;https://example.com/1000&quot;,&quot;item 1000&quot;)</f><v>item 1000</v>');
    expect(patched.xml === plain.xml, 'forgetFormulae changed the sheet XML').toBe(true);
  });
  it('WorkbookWriter.zip/addContentTypes, WorksheetWriter._writeLegacyData and _sheetRelsWriter.addRelationship (attachCharts)', async () => {
    const { workbook, entries } = openWriter();
    const sheet = workbook.addWorksheet('Charted', {});
    writeRows(sheet, 1, 3, 'row');
    const part = {
      title: 'T', kind: 'line' as const, categoriesRef: "'Charted'!$A$1:$A$3", categories: ['a', 'b', 'c'], valueFormat: '0',
      series: [{ name: 'S', nameRef: "'Charted'!$B$1", valuesRef: "'Charted'!$B$1:$B$3", values: [1, 2, 3], color: '000000' }],
    };
    attachCharts(workbook, sheet, [{ anchor: { fromCol: 3, fromRow: 0, toCol: 9, toRow: 12 }, part }]);
    sheet.commit();
    const files = await entries();
    const drawing = /<drawing r:id="(rId\d+)"\/><\/worksheet>$/.exec(files.get('xl/worksheets/sheet1.xml') ?? '');
    expect(drawing, 'WorksheetWriter._writeLegacyData: no <drawing> just before </worksheet>').not.toBeNull();
    expect(files.get('xl/worksheets/_rels/sheet1.xml.rels'), 'SheetRelsWriter.addRelationship').toContain(
      `Id="${drawing![1]}" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/drawing" Target="../drawings/drawing1.xml"`,
    );
    expect(files.get('[Content_Types].xml'), 'WorkbookWriter.addContentTypes: no chart override').toContain('PartName="/xl/charts/chart1.xml"');
    expect(files.has('xl/charts/chart1.xml') && files.has('xl/drawings/drawing1.xml') && files.has('xl/drawings/_rels/drawing1.xml.rels'), 'WorkbookWriter.zip.append').toBe(true);
    const committed = workbook.addWorksheet('Late', {});
    committed.commit();
    expect(() => attachCharts(workbook, committed, [{ anchor: { fromCol: 0, fromRow: 0, toCol: 1, toRow: 1 }, part }])).toThrow(ExporterError);
  });
});
