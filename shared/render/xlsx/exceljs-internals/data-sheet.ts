/**
 * What a data sheet keeps until it closes: its hyperlink list (written in slices, then let go) and
 * its formulae (not kept at all). Reaches into WorksheetWriter._writeHyperlinks,
 * _sheetRelsWriter._hyperlinks and _formulae (see ./writer.ts for the version check).
 */
import { ExporterError } from '../../../core/errors';
import { recycleSheetBuffers } from './sheet-buffers';
import type { WriterSheet } from './writer';

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
