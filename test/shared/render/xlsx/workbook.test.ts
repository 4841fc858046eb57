import { createWriteStream } from 'node:fs';
import { PassThrough, Writable } from 'node:stream';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StorageError } from '../../../../shared/core/errors';
import { parseFillColor, readableFontColor } from '../../../../shared/render/xlsx/cells';
import { openXlsxWorkbook } from '../../../../shared/render/xlsx/workbook';
import type { ReportSummary, TableDefinition, TableRow } from '../../../../shared/table/table';
import { allTypesRow, allTypesTable } from '../../../support/all-types';
import { makeTempDir } from '../../../support/temp-dir';
import { readZipEntries } from '../zip-entries';

/** The workbook's created time: fixed, so a file's bytes depend on nothing but its content. */
const CREATED_AT = new Date('2026-11-23T06:00:00Z');

const temp = makeTempDir('xlsx-render');
afterAll(() => temp.remove());

const RISKS = allTypesTable('risks');
const OKRS: TableDefinition = {
  name: 'okrs',
  columns: [
    { key: 'objective', type: 'text', description: '', width: 200 },
    { key: 'level', type: 'integer', description: '' },
  ],
};
const EMPTY: TableDefinition = { name: 'pi-objectives', columns: [{ key: 'name', type: 'text', description: '' }] };

const FORMULA_LIKE = ['=1+1', "=cmd|' /C calc'!A0", '+SUM(A1)', '-2+3', '@SUM(A1:A2)', '\t=tab', '\r=cr'];
const LONG = 'L'.repeat(40_000);

const RISK_ROWS: TableRow[] = [
  { ...allTypesRow({ text: 'Open in tool', url: 'https://planning.example.com/items/1?a=1&b=2' }), fill: { column: 0, color: '#1f3864' } },
  {
    values: [
      'line one\r\nline two\nline three',
      2.5,
      -7,
      12.5,
      new Date(Date.UTC(2026, 6, 1)),
      new Date('2026-07-01T10:15:30Z'),
      { text: 'mail', url: 'mailto:team@example.com' },
      false,
    ],
    fill: { column: 1, color: 'ffeb9c' },
    outlineLevel: 1,
  },
  {
    values: [
      'bad\u0000chars\u0007here\uFFFF\uD800!',
      null,
      undefined,
      null,
      null,
      null,
      { text: 'click me', url: 'javascript:alert(1)' },
    ],
    fill: { column: 2, color: '#f00' },
    outlineLevel: 2,
  },
  { values: [LONG, ''], fill: { column: 0, color: 'not-a-colour' }, outlineLevel: 1 },
  ...FORMULA_LIKE.map((text) => ({ values: [text] })),
];

const SUMMARY: ReportSummary = {
  title: 'Planning report — ART Phoenix',
  sections: [
    {
      heading: 'Run',
      lines: [
        { label: 'Generated at', value: new Date('2026-11-21T07:00:00Z'), type: 'datetime' },
        { label: 'Report date', value: new Date(Date.UTC(2026, 10, 21)), type: 'date' },
        { label: 'Time zone', value: 'Europe/Berlin' },
      ],
    },
    {
      heading: 'Rows',
      lines: [
        { label: 'risks', value: RISK_ROWS.length, type: 'integer' },
        { label: 'okrs', value: 3, type: 'integer' },
        { label: 'Completion', value: 87.5, type: 'percent' },
        { label: 'Source', value: { text: 'Planning tool', url: 'https://planning.example.com' }, type: 'link' },
      ],
    },
  ],
};

let path: string;
let book: ExcelJS.Workbook;
let risks: ExcelJS.Worksheet;
let entries: Map<string, string>;
const rowCounts: number[] = [];

beforeAll(async () => {
  path = temp.path('report.xlsx');
  const workbook = openXlsxWorkbook(createWriteStream(path), { createdAt: CREATED_AT, timeZone: 'Europe/Berlin', locale: 'de-DE', title: 'Planning report' });
  const riskSheet = workbook.openSheet(RISKS, { outlineLevels: 2 });
  for (const row of RISK_ROWS) await riskSheet.writeRow(row);
  rowCounts.push(await riskSheet.close());
  const okrSheet = workbook.openSheet(OKRS);
  for (let i = 0; i < 3; i++) await okrSheet.writeRow({ values: [`Objective ${i}`, i] });
  rowCounts.push(await okrSheet.close());
  rowCounts.push(await workbook.openSheet(EMPTY).close());
  await workbook.writeSummary(SUMMARY);
  await workbook.close();

  book = new ExcelJS.Workbook();
  await book.xlsx.readFile(path);
  risks = book.getWorksheet('risks')!;
  entries = await readZipEntries(path);
});

function sheetXml(name: string): string {
  const workbookXml = entries.get('xl/workbook.xml')!;
  const rId = new RegExp(`<sheet [^>]*name="${name}"[^>]*r:id="(rId\\d+)"`).exec(workbookXml)![1];
  const rels = entries.get('xl/_rels/workbook.xml.rels')!;
  const target = new RegExp(`Id="${rId}"[^>]*Target="([^"]+)"`).exec(rels)![1];
  return entries.get(`xl/${target}`)!;
}

describe('openXlsxWorkbook: workbook structure', () => {
  it('makes Summary the first sheet, followed by the data sheets in the order they were opened', () => {
    expect(book.worksheets.map((s) => s.name)).toEqual(['Summary', 'risks', 'okrs', 'pi-objectives']);
    const order = [...entries.get('xl/workbook.xml')!.matchAll(/<sheet [^>]*name="([^"]+)"/g)].map((m) => m[1]);
    expect(order).toEqual(['Summary', 'risks', 'okrs', 'pi-objectives']);
  });

  it('stores Summary as sheet1.xml, so tools that open the first sheet part find it too', () => {
    expect(sheetXml('Summary')).toBe(entries.get('xl/worksheets/sheet1.xml'));
    expect(entries.get('xl/worksheets/sheet1.xml')).toContain('Planning report — ART Phoenix');
  });

  it('resolves each sheet close() with its data-row count', () => {
    expect(rowCounts).toEqual([RISK_ROWS.length, 3, 0]);
    expect(risks.actualRowCount).toBe(RISK_ROWS.length + 1);
  });

  it('writes no shared strings part and the document title and creator', () => {
    expect([...entries.keys()].some((name) => name.includes('sharedStrings'))).toBe(false);
    expect(book.title).toBe('Planning report');
    expect(book.creator).toBe('planning-report-exporter');
  });

  it('writes an empty table as a sheet with its header row only', () => {
    const sheet = book.getWorksheet('pi-objectives')!;
    expect(sheet.actualRowCount).toBe(1);
    expect(sheet.getCell('A1').value).toBe('name');
  });
});

describe('openXlsxWorkbook: header and layout', () => {
  it('writes the column keys as a bold header row', () => {
    const header = risks.getRow(1);
    expect(RISKS.columns.map((_, i) => header.getCell(i + 1).value)).toEqual(RISKS.columns.map((c) => c.key));
    for (let i = 1; i <= RISKS.columns.length; i++) expect(header.getCell(i).font?.bold).toBe(true);
  });

  it('freezes the header row', () => {
    expect(risks.views[0]).toMatchObject({ state: 'frozen', ySplit: 1, topLeftCell: 'A2' });
  });

  it('puts an autofilter over the header and all data rows', () => {
    expect(risks.autoFilter).toBe(`A1:H${RISK_ROWS.length + 1}`);
    expect(book.getWorksheet('okrs')!.autoFilter).toBe('A1:B4');
  });

  it('sizes columns by type, honours Column.width and caps text columns at 60', () => {
    const widths = RISKS.columns.map((_, i) => risks.getColumn(i + 1).width);
    // By type, but never narrower than the header plus the autofilter button ('progress', 'blocked').
    expect(widths).toEqual([40, 10, 14, 12, 12, 21, 40, 11]);
    expect(book.getWorksheet('okrs')!.getColumn(1).width).toBe(60);
  });

  it('wraps text so multi-line values show all their lines', () => {
    expect(risks.getCell('A3').alignment).toMatchObject({ wrapText: true });
  });
});

describe('openXlsxWorkbook: cell types and formats', () => {
  it('writes dates as date cells of that calendar day in the locale\'s format (de-DE: dd.mm.yyyy)', () => {
    const cell = risks.getCell('E2');
    expect(cell.type).toBe(ExcelJS.ValueType.Date);
    expect(cell.value).toEqual(new Date(Date.UTC(2026, 10, 21)));
    expect(cell.numFmt).toBe('dd.mm.yyyy');
  });

  it('writes datetimes as the wall-clock time in the report zone, in winter and summer time', () => {
    const winter = risks.getCell('F2');
    expect(winter.type).toBe(ExcelJS.ValueType.Date);
    expect(winter.numFmt).toBe('dd.mm.yyyy", "hh:mm');
    // Excel cells have no zone: 07:00 UTC is shown as 08:00 in Berlin in November…
    expect(winter.value).toEqual(new Date('2026-11-21T08:00:00Z'));
    // …and 10:15:30 UTC as 12:15:30 in July.
    expect(risks.getCell('F3').value).toEqual(new Date('2026-07-01T12:15:30Z'));
  });

  it('writes percentages as fractions with a one-decimal percent format', () => {
    expect(risks.getCell('D2').value).toBe(0.45);
    expect(risks.getCell('D2').numFmt).toBe('0.0 %');
    expect(risks.getCell('D3').value).toBe(0.125);
    expect(risks.getCell('D3').numFmt).toBe('0.0 %');
  });

  it('writes integers with thousands separators, other numbers in General, and a fractional "integer" unrounded', () => {
    expect(risks.getCell('B2').value).toBe(42);
    expect(risks.getCell('B2').numFmt).toBe('#,##0');
    expect(risks.getCell('B3').value).toBe(2.5);
    expect(risks.getCell('B3').numFmt).toBeUndefined();
    expect(risks.getCell('C2').value).toBe(0.1 + 0.2);
    expect(risks.getCell('C2').type).toBe(ExcelJS.ValueType.Number);
    expect(risks.getCell('C3').value).toBe(-7);
  });

  it('writes http(s) and mailto links as hyperlink cells', () => {
    expect(risks.getCell('G2').type).toBe(ExcelJS.ValueType.Hyperlink);
    expect(risks.getCell('G2').value).toEqual({
      text: 'Open in tool',
      hyperlink: 'https://planning.example.com/items/1?a=1&b=2',
    });
    expect(risks.getCell('G3').value).toEqual({ text: 'mail', hyperlink: 'mailto:team@example.com' });
    expect(risks.getCell('G2').font).toMatchObject({ underline: true });
  });

  it('writes a javascript: link as plain text, never as a hyperlink', () => {
    const cell = risks.getCell('G4');
    expect(cell.type).toBe(ExcelJS.ValueType.String);
    expect(cell.value).toBe('click me');
    const rels = [...entries.entries()].filter(([name]) => name.includes('_rels/sheet')).map(([, xml]) => xml);
    expect(rels.join('')).not.toContain('javascript:');
  });

  it('writes booleans as boolean cells', () => {
    expect(risks.getCell('H2').value).toBe(true);
    expect(risks.getCell('H2').type).toBe(ExcelJS.ValueType.Boolean);
    expect(risks.getCell('H3').value).toBe(false);
  });

  it('leaves null, undefined and empty-text values as empty cells', () => {
    expect(risks.getCell('B4').value).toBeNull();
    expect(risks.getCell('D4').value).toBeNull();
    expect(risks.getCell('B5').value).toBeNull();
    expect(sheetXml('risks')).not.toContain('<c r="B5"');
  });
});

describe('openXlsxWorkbook: text safety', () => {
  it('keeps text that looks like a formula as a plain string cell, unchanged', () => {
    FORMULA_LIKE.forEach((text, i) => {
      const cell = risks.getCell(`A${6 + i}`);
      expect(cell.type).toBe(ExcelJS.ValueType.String);
      // CR is an XML line break; it reads back as LF (see docs/formats.md).
      expect(cell.value).toBe(text.replace('\r', '\n'));
    });
  });

  it('writes no formula element in the sheets but the HYPERLINK of a link that wraps (text that looks like a formula stays text)', () => {
    for (const [name, xml] of entries) {
      if (!name.startsWith('xl/worksheets/sheet')) continue;
      const formulas = [...xml.matchAll(/<f[ >][^<]*<\/f>/g)].map((m) => m[0]);
      expect(formulas.filter((f) => !/^<f>HYPERLINK\(&quot;[^<&]*&quot;,&quot;[^<&]*&quot;\)<\/f>$/.test(f)), name).toEqual([]);
    }
  });

  it('removes characters XML 1.0 forbids and keeps the rest of the text', () => {
    expect(risks.getCell('A4').value).toBe('badcharshere!');
  });

  it('writes line breaks as LF', () => {
    expect(risks.getCell('A3').value).toBe('line one\nline two\nline three');
  });

  it('cuts text longer than 32,767 characters, with a marker pointing to the CSV', () => {
    const value = risks.getCell('A5').value as string;
    expect(value.length).toBeLessThanOrEqual(32_767);
    expect(value).toMatch(/^L{32000,}… \[truncated: 40,000 characters in full, see the CSV\]$/);
  });
});

describe('openXlsxWorkbook: outline and fills', () => {
  it('writes row outline levels, with summary rows above their details', () => {
    expect([2, 3, 4, 5, 6].map((r) => risks.getRow(r).outlineLevel)).toEqual([0, 1, 2, 1, 0]);
    expect(risks.properties.outlineProperties).toEqual({ summaryBelow: false, summaryRight: false });
    expect(risks.properties.outlineLevelRow).toBe(2);
  });

  it('marks no row collapsed, since every row is visible', () => {
    expect(sheetXml('risks')).not.toContain('collapsed=');
  });

  it('fills the given cell with the colour, in white text on a dark fill', () => {
    const cell = risks.getCell('A2');
    expect(cell.fill).toMatchObject({ type: 'pattern', pattern: 'solid', fgColor: { argb: 'FF1F3864' } });
    expect(cell.font?.color).toEqual({ argb: 'FFFFFFFF' });
    // The other cells of the row keep no fill.
    expect(risks.getCell('B2').fill).toMatchObject({ pattern: 'none' });
  });

  it('accepts rrggbb without # and keeps the cell format, in black text on a light fill', () => {
    const cell = risks.getCell('B3');
    expect(cell.fill).toMatchObject({ pattern: 'solid', fgColor: { argb: 'FFFFEB9C' } });
    expect(cell.font?.color).toEqual({ argb: 'FF000000' });
    expect(cell.value).toBe(2.5);
  });

  it('accepts #rgb, and fills an empty cell too', () => {
    const cell = risks.getCell('C4');
    expect(cell.value).toBeNull();
    expect(cell.fill).toMatchObject({ pattern: 'solid', fgColor: { argb: 'FFFF0000' } });
  });

  it('ignores an invalid colour', () => {
    expect(risks.getCell('A5').fill).toMatchObject({ pattern: 'none' });
  });

  it('shares styles: the style table stays small however many rows are written', () => {
    const cellXfs = /<cellXfs count="(\d+)"/.exec(entries.get('xl/styles.xml')!)![1];
    expect(Number(cellXfs)).toBeLessThan(25);
  });
});

describe('openXlsxWorkbook: Summary sheet', () => {
  it('starts with the title in bold, then each section heading in bold', () => {
    const summary = book.getWorksheet('Summary')!;
    expect(summary.getCell('A1').value).toBe('Planning report — ART Phoenix');
    expect(summary.getCell('A1').font?.bold).toBe(true);
    expect(summary.getCell('A3').value).toBe('Run');
    expect(summary.getCell('A3').font?.bold).toBe(true);
    expect(summary.getCell('A8').value).toBe('Rows');
    expect(summary.getCell('A8').font?.bold).toBe(true);
  });

  // Values stand in column C: labels run over A and B (see summary-sheet.ts).
  it('writes label/value lines typed by their type', () => {
    const summary = book.getWorksheet('Summary')!;
    expect(summary.getCell('A4').value).toBe('Generated at');
    expect(summary.getCell('C4').value).toEqual(new Date('2026-11-21T08:00:00Z'));
    expect(summary.getCell('C4').numFmt).toBe('dd.mm.yyyy", "hh:mm');
    expect(summary.getCell('C5').value).toEqual(new Date(Date.UTC(2026, 10, 21)));
    expect(summary.getCell('C5').numFmt).toBe('dd.mm.yyyy');
    expect(summary.getCell('C6').value).toBe('Europe/Berlin');
    expect(summary.getCell('C9').value).toBe(RISK_ROWS.length);
    expect(summary.getCell('C9').numFmt).toBe('#,##0');
    expect(summary.getCell('C11').value).toBe(0.875);
    expect(summary.getCell('C11').numFmt).toBe('0.0 %');
    // A link that wraps in its narrow column is a HYPERLINK formula: LibreOffice wraps no hyperlink proper.
    expect(summary.getCell('C12').value).toEqual({ formula: 'HYPERLINK("https://planning.example.com","Planning tool")', result: 'Planning tool' });
  });
});

describe('openXlsxWorkbook: values Excel cannot show as dates or links', () => {
  // Before: a long linked text in a wrapped column became HYPERLINK("url","text") of 33,234 characters
  // (the text cut into 255-character pieces joined by &); Excel calls such a workbook damaged and drops it.
  it('writes no formula over Excel\'s 8,192 characters: a long linked text stays a hyperlink proper, past the cap plain text', async () => {
    const path = temp.path('long-link-text.xlsx');
    const workbook = openXlsxWorkbook(createWriteStream(path), { createdAt: CREATED_AT, timeZone: 'UTC', locale: 'en-GB', maxHyperlinksPerSheet: 1 });
    const sheet = workbook.openSheet({ name: 'links', columns: [{ key: 'url', type: 'link', description: '', width: 30 }] });
    const long = 'A long linked title. '.repeat(1_500);
    const url = 'https://planning.example.com/items/1';
    for (const text of [long, 'short and wrapping over two lines of this column', long, 'a short one past the cap']) {
      await sheet.writeRow({ values: [{ text, url }] });
    }
    await sheet.close();
    await workbook.writeSummary(SUMMARY);
    await workbook.close();
    const read = new ExcelJS.Workbook();
    await read.xlsx.readFile(path);
    const links = read.getWorksheet('links')!;
    const cells = [2, 3, 4, 5].map((row) => links.getCell(`A${row}`).value);
    for (const cell of cells) {
      const formula = typeof cell === 'object' && cell !== null && 'formula' in cell ? String(cell.formula) : '';
      expect(formula.length + (formula ? 1 : 0)).toBeLessThanOrEqual(8_192);
    }
    const asText = (cell: unknown): string => (typeof cell === 'string' ? cell : String((cell as { text?: unknown }).text));
    expect(cells[0]).toMatchObject({ hyperlink: url });
    expect(asText(cells[0]).trimEnd()).toBe(long.trimEnd());
    expect(cells[1]).toEqual({ formula: `HYPERLINK("${url}","short and wrapping over two lines of this column")`, result: 'short and wrapping over two lines of this column' });
    expect(typeof cells[2]).toBe('string');
    expect(asText(cells[2]).trimEnd()).toBe(long.trimEnd());
    expect(cells[3]).toEqual({ formula: `HYPERLINK("${url}","a short one past the cap")`, result: 'a short one past the cap' });
  });

  it('writes dates before 1900-03-01 as ISO text instead of dates shifted by the 1900 leap-year bug', async () => {
    const path = temp.path('old-dates.xlsx');
    const workbook = openXlsxWorkbook(createWriteStream(path), { createdAt: CREATED_AT, timeZone: 'UTC', locale: 'en-GB' });
    const sheet = workbook.openSheet({
      name: 'dates',
      columns: [
        { key: 'd', type: 'date', description: '' },
        { key: 'dt', type: 'datetime', description: '' },
      ],
    });
    await sheet.writeRow({ values: [new Date(Date.UTC(1899, 11, 31)), new Date(Date.UTC(1850, 0, 1))] });
    await sheet.writeRow({ values: [new Date(Date.UTC(1900, 2, 1)), new Date(Date.UTC(1900, 2, 1, 6))] });
    await sheet.close();
    await workbook.writeSummary(SUMMARY);
    await workbook.close();
    const read = new ExcelJS.Workbook();
    await read.xlsx.readFile(path);
    const dates = read.getWorksheet('dates')!;
    expect(dates.getCell('A2').value).toBe('1899-12-31');
    expect(dates.getCell('B2').value).toBe('1850-01-01T00:00:00+00:00');
    expect(dates.getCell('A3').value).toEqual(new Date(Date.UTC(1900, 2, 1)));
    expect(dates.getCell('B3').value).toEqual(new Date(Date.UTC(1900, 2, 1, 6)));
  });

  it('writes over-long URLs as text, and a link without text shows its URL', async () => {
    const path = temp.path('links.xlsx');
    const workbook = openXlsxWorkbook(createWriteStream(path), { createdAt: CREATED_AT, timeZone: 'UTC', locale: 'en-GB' });
    const sheet = workbook.openSheet({ name: 'links', columns: [{ key: 'l', type: 'link', description: '' }] });
    const longUrl = `https://example.com/${'a'.repeat(2100)}`;
    await sheet.writeRow({ values: [{ text: 'long', url: longUrl }] });
    await sheet.writeRow({ values: [{ text: '', url: 'https://example.com/x' }] });
    await sheet.writeRow({ values: [{ text: 'data', url: 'data:text/html,<script>alert(1)</script>' }] });
    await sheet.close();
    await workbook.writeSummary(SUMMARY);
    await workbook.close();
    const read = new ExcelJS.Workbook();
    await read.xlsx.readFile(path);
    const links = read.getWorksheet('links')!;
    expect(links.getCell('A2').value).toBe('long');
    expect(links.getCell('A3').value).toEqual({ text: 'https://example.com/x', hyperlink: 'https://example.com/x' });
    expect(links.getCell('A4').value).toBe('data');
  });
});

describe('openXlsxWorkbook: usage errors', () => {
  function newWorkbook(name: string) {
    return openXlsxWorkbook(createWriteStream(temp.path(name)), { createdAt: CREATED_AT, timeZone: 'UTC', locale: 'en-GB' });
  }

  it('refuses to open a sheet while another one is open', async () => {
    const workbook = newWorkbook('two-open.xlsx');
    const first = workbook.openSheet(OKRS);
    expect(() => workbook.openSheet(RISKS)).toThrow(/close the sheet "okrs" first/);
    await first.close();
    await workbook.writeSummary(SUMMARY);
    await workbook.close();
  });

  it('refuses to close without a Summary, and to add sheets after it', async () => {
    const workbook = newWorkbook('no-summary.xlsx');
    await expect(workbook.close()).rejects.toThrow(/write the Summary sheet first/);
    await workbook.writeSummary(SUMMARY);
    expect(() => workbook.openSheet(OKRS)).toThrow(/Summary sheet is written last/);
    await workbook.close();
  });

  it('reports a failing destination as a StorageError from writeRow or close, without hanging', async () => {
    const out = new Writable({
      write(_chunk, _encoding, callback) {
        callback(new Error('upload aborted'));
      },
    });
    const workbook = openXlsxWorkbook(out, { createdAt: CREATED_AT, timeZone: 'UTC', locale: 'en-GB' });
    const sheet = workbook.openSheet(OKRS);
    const run = async () => {
      for (let i = 0; i < 50_000; i++) await sheet.writeRow({ values: [`objective ${i} ${'x'.repeat(200)}`, i] });
      await sheet.close();
      await workbook.writeSummary(SUMMARY);
      await workbook.close();
    };
    await expect(run()).rejects.toThrow(StorageError);
  });

  it('makes sheet names valid and unique for Excel', async () => {
    const path = temp.path('names.xlsx');
    const workbook = openXlsxWorkbook(createWriteStream(path), { createdAt: CREATED_AT, timeZone: 'UTC', locale: 'en-GB' });
    const names = ['a/b:c?', 'summary', 'x'.repeat(40), 'x'.repeat(40)];
    for (const name of names) await workbook.openSheet({ name, columns: OKRS.columns }).close();
    await workbook.writeSummary(SUMMARY);
    await workbook.close();
    const read = new ExcelJS.Workbook();
    await read.xlsx.readFile(path);
    expect(read.worksheets.map((s) => s.name)).toEqual([
      'Summary',
      'a_b_c_',
      'summary (2)',
      'x'.repeat(31),
      `${'x'.repeat(27)} (2)`,
    ]);
  });

  it('rejects an unknown time zone before writing anything', () => {
    const out = new PassThrough();
    expect(() => openXlsxWorkbook(out, { createdAt: CREATED_AT, timeZone: 'Nowhere/Else', locale: 'en-GB' })).toThrow(/Unknown time zone/);
    expect(out.writableLength + out.readableLength).toBe(0);
  });
});

describe('parseFillColor and readableFontColor', () => {
  it('accepts #rrggbb, rrggbb and #rgb in any case and rejects anything else', () => {
    expect(parseFillColor('#1f3864')).toBe('FF1F3864');
    expect(parseFillColor('FFEB9C')).toBe('FFFFEB9C');
    expect(parseFillColor('#f0a')).toBe('FFFF00AA');
    for (const bad of ['', '#', 'red', '#12345', '#1234567', 'url(x)', '#ggg']) expect(parseFillColor(bad)).toBeUndefined();
  });

  it('picks white text on dark colours and black on light ones', () => {
    expect(readableFontColor('FF000000')).toBe('FFFFFFFF');
    expect(readableFontColor('FF1F3864')).toBe('FFFFFFFF');
    expect(readableFontColor('FFC00000')).toBe('FFFFFFFF');
    expect(readableFontColor('FFFFFFFF')).toBe('FF000000');
    expect(readableFontColor('FFFFEB9C')).toBe('FF000000');
    expect(readableFontColor('FF00B050')).toBe('FF000000');
  });
});
