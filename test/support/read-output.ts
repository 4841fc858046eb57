import { readFile } from 'node:fs/promises';
import { parse } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import { tableEntry } from '../../shared/report/tables/registry';

/** A CSV file as header + rows of strings, read by an independent RFC 4180 parser. */
export async function readCsv(path: string): Promise<{ header: string[]; rows: string[][]; raw: Buffer }> {
  const raw = await readFile(path);
  const records: string[][] = parse(raw, { bom: true, relax_column_count: false });
  const [header, ...rows] = records;
  return { header: header ?? [], rows, raw };
}

/** Rows of a CSV as objects keyed by header. */
export function csvObjects(csv: { header: string[]; rows: string[][] }): Record<string, string>[] {
  return csv.rows.map((row) => Object.fromEntries(csv.header.map((h, i) => [h, row[i] ?? ''])));
}

/** Reads a workbook with exceljs's (non-streaming) reader. */
export async function readWorkbook(path: string): Promise<ExcelJS.Workbook> {
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.readFile(path);
  return workbook;
}

/** The demo tenant's free-text custom fields (simulator/risks.ts: "Notes"): long text in the workbook. */
const FREE_TEXT_CUSTOM_KEYS: ReadonlySet<string> = new Set(['cf_notes']);

/**
 * A table's machine names (its CSV header) in the order its sheet shows the columns: the long-text
 * columns (Column.longText: the contract's descriptions, free-text custom fields) after the others.
 */
export function sheetKeys(table: string, csvKeys: readonly string[]): string[] {
  const contract = tableEntry(table)?.contract.columns ?? [];
  const long = (key: string) => FREE_TEXT_CUSTOM_KEYS.has(key) || contract.some((c) => c.key === key && c.longText === true && !c.hidden);
  return [...csvKeys.filter((k) => !long(k)), ...csvKeys.filter(long)];
}

/** The header row of a worksheet as strings. */
export function sheetHeader(sheet: ExcelJS.Worksheet): string[] {
  const header: string[] = [];
  sheet.getRow(1).eachCell({ includeEmpty: true }, (cell, col) => {
    header[col - 1] = cell.text;
  });
  return header;
}

/**
 * Data rows of a worksheet (header excluded) with cells addressed by column name: the header's text
 * (the workbook's labels), or the machine names in `keys` (in the sheet's order: sheetKeys) when given.
 */
export function sheetRows(
  sheet: ExcelJS.Worksheet,
  keys?: readonly string[],
): { row: ExcelJS.Row; cell: (column: string) => ExcelJS.Cell }[] {
  const header = keys ? [...keys] : sheetHeader(sheet);
  const out: { row: ExcelJS.Row; cell: (column: string) => ExcelJS.Cell }[] = [];
  for (let r = 2; r <= sheet.rowCount; r++) {
    const row = sheet.getRow(r);
    out.push({
      row,
      cell: (column: string) => {
        const index = header.indexOf(column);
        if (index < 0) throw new Error(`no column ${column} in sheet ${sheet.name}`);
        return row.getCell(index + 1);
      },
    });
  }
  return out;
}
