/**
 * The sheet order of a streaming workbook: the sheets written last (Summary, Changes) are listed
 * first, without holding the data sheets in memory behind them. Reaches into
 * WorkbookWriter._worksheets (see ./writer.ts for the version check).
 */
import { ExporterError } from '../../../core/errors';
import type { WriterSheet, WriterWorkbook } from './writer';

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

