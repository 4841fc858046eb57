// @tier slow
import { execFile } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openXlsxWorkbook } from '../../../../shared/render/xlsx/workbook';
import type { TableDefinition, TableRow } from '../../../../shared/table/table';
import { makeTempDir } from '../../../support/temp-dir';
import { readZipEntries } from '../zip-entries';

/** The workbook's created time: fixed, so a file's bytes depend on nothing but its content. */
const CREATED_AT = new Date('2026-11-23T06:00:00Z');

const run = promisify(execFile);
const temp = makeTempDir('xlsx-links');
afterAll(() => temp.remove());

const ITEMS: TableDefinition = {
  name: 'items',
  columns: [
    { key: 'n', type: 'integer', description: '' },
    { key: 'link', type: 'link', description: '' },
  ],
};
const LONG_URL = `https://planning.example.com/items/4?q=${'x'.repeat(300)}`;
const LONG_TEXT = `${'Long title '.repeat(30)}end`;
const LINKS = [
  { text: 'ITEM-1', url: 'https://planning.example.com/items/1' },
  { text: 'ITEM-2', url: 'https://planning.example.com/items/2' },
  { text: 'Say "hi" & go', url: 'https://planning.example.com/items/3?a=1&b="x"' },
  { text: 'ITEM-4', url: LONG_URL },
  { text: LONG_TEXT, url: 'https://planning.example.com/items/5' },
  { text: 'ITEM-6', url: 'https://planning.example.com/items/6' },
];
const rows: TableRow[] = LINKS.map((link, i) => ({ values: [i + 1, link] }));

/**
 * A sheet keeps two hyperlinks proper here (MAX_SHEET_HYPERLINKS, 65,530, in a real workbook) and
 * five rows before the table goes on in "items (2)", whose count starts again.
 */
describe('links past a sheet\'s hyperlink limit', () => {
  const path = temp.path('links.xlsx');
  let book: ExcelJS.Workbook;

  beforeAll(async () => {
    const workbook = openXlsxWorkbook(createWriteStream(path), { createdAt: CREATED_AT, timeZone: 'UTC', locale: 'en-GB', maxHyperlinksPerSheet: 2, maxRowsPerSheet: 5 });
    const sheet = workbook.openSheet(ITEMS);
    for (const row of rows) await sheet.writeRow(row);
    await sheet.close();
    await workbook.writeSummary({ title: 'Links', sections: [] });
    await workbook.close();
    book = new ExcelJS.Workbook();
    await book.xlsx.readFile(path);
  });

  it('keeps the first links of a sheet as hyperlinks and makes the rest HYPERLINK formulas showing the same text', () => {
    const items = book.getWorksheet('items')!;
    expect(items.getCell('B2').value).toEqual({ text: 'ITEM-1', hyperlink: LINKS[0]!.url });
    expect(items.getCell('B3').value).toEqual({ text: 'ITEM-2', hyperlink: LINKS[1]!.url });
    expect(items.getCell('B4').value).toEqual({
      formula: 'HYPERLINK("https://planning.example.com/items/3?a=1&b=""x""","Say ""hi"" & go")',
      result: 'Say "hi" & go',
    });
    expect(items.getCell('B4').font).toMatchObject({ underline: true });
  });

  it('cuts a long text into the 255-character strings a formula takes, and leaves an address too long for HYPERLINK as its text', () => {
    const items = book.getWorksheet('items')!;
    expect(items.getCell('B5').value).toBe('ITEM-4');
    const long = items.getCell('B6').value as { formula: string; result: string };
    expect(long.result).toBe(LONG_TEXT);
    const pieces = [...long.formula.matchAll(/"((?:[^"]|"")*)"/g)].map((m) => m[1]!);
    expect(pieces[0]).toBe('https://planning.example.com/items/5');
    expect(pieces.slice(1).join('')).toBe(LONG_TEXT);
    expect(Math.max(...pieces.map((p) => p.length))).toBeLessThanOrEqual(255);
  });

  it('starts the count again on the next sheet of the same table', async () => {
    expect(book.getWorksheet('items (2)')!.getCell('B2').value).toEqual({ text: 'ITEM-6', hyperlink: LINKS[5]!.url });
    const entries = await readZipEntries(path);
    const rels = [...entries.entries()].filter(([name]) => /_rels\/sheet\d+\.xml\.rels$/.test(name)).map(([, xml]) => xml);
    const hyperlinkRels = rels.map((xml) => xml.split('relationships/hyperlink"').length - 1);
    expect(hyperlinkRels.sort()).toEqual([1, 2]);
  });

  it('opens every link as a link in LibreOffice, hyperlinks and formulas alike', async () => {
    await run('soffice', ['--headless', `-env:UserInstallation=file://${temp.path('lo-profile')}`, '--convert-to', 'html', '--outdir', temp.root, path], {
      timeout: 240_000,
    });
    const html = await readFile(temp.path('links.html'), 'utf8');
    const anchors = [...html.matchAll(/<a href="([^"]*)"[^>]*>([^<]*)<\/a>/g)].map((m) => ({ url: unescape(m[1]!), text: unescape(m[2]!) }));
    for (const link of [LINKS[0]!, LINKS[1]!, LINKS[2]!, LINKS[4]!, LINKS[5]!]) expect(anchors).toContainEqual({ url: link.url, text: link.text });
    expect(anchors.map((a) => a.text)).not.toContain('ITEM-4');
  }, 300_000);
});

function unescape(html: string): string {
  return html.replaceAll('&quot;', '"').replaceAll('&lt;', '<').replaceAll('&gt;', '>').replaceAll('&amp;', '&');
}
