import { createWriteStream } from 'node:fs';
import { finished } from 'node:stream/promises';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChartSheetContent } from '../../../../shared/render/xlsx/chart-sheet';
import { openXlsxWorkbook } from '../../../../shared/render/xlsx/workbook';
import type { LeadingSheet, TableDefinition } from '../../../../shared/table/table';
import { readWorkbook } from '../../../support/read-output';
import { makeTempDir } from '../../../support/temp-dir';
import { readZipEntries } from '../zip-entries';

/** The workbook's created time: fixed, so a file's bytes depend on nothing but its content. */
const CREATED_AT = new Date('2026-11-23T06:00:00Z');

const temp = makeTempDir('xlsx-locale');
afterAll(() => temp.remove());

const ITEMS: TableDefinition = {
  name: 'items',
  columns: [
    { key: 'key', type: 'text', description: 'key' },
    { key: 'due', type: 'date', description: 'a calendar day' },
    { key: 'updated', type: 'datetime', description: 'an instant' },
  ],
};
const CHANGES: LeadingSheet = {
  heading: 'Changes',
  sentence: 'Nothing changed.',
  columns: [{ key: 'what', type: 'text', description: 'what' }],
  rows: [],
};
/** Four runs, the last two on one day: those carry their time, as their labels do. */
const RUNS = ['2026-11-02T06:00:00Z', '2026-11-09T06:00:00Z', '2026-11-16T06:00:00Z', '2026-11-16T15:30:00Z'].map((t) => new Date(t));
const TRENDS: ChartSheetContent = {
  heading: 'Trends',
  sentence: 'Trends over the last 4 runs.',
  blocks: [{
    title: 'Risks',
    categoryLabel: 'Run',
    columns: [{ label: 'Open risks', format: 'integer' }],
    rows: RUNS.map((at, i) => ({ category: `run ${i + 1}`, at, timed: i >= 2, values: [10 + i] })),
    chart: { kind: 'line', series: [0] },
  }],
};

/** A workbook with each kind of sheet, in one locale and zone. */
async function writeWorkbook(file: string, locale: string, timeZone: string): Promise<void> {
  const out = createWriteStream(file);
  const workbook = openXlsxWorkbook(out, { createdAt: CREATED_AT, timeZone, locale, leadingSheets: ['Trends', 'Changes'] });
  const sink = workbook.openSheet(ITEMS);
  await sink.writeRow({ values: ['A-1', new Date(Date.UTC(2027, 0, 4)), new Date('2026-11-21T07:00:00Z')] });
  await sink.close();
  await workbook.writeChartSheet('Trends', TRENDS);
  await workbook.writeLeadingSheet('Changes', CHANGES);
  await workbook.writeSummary({ title: 'Report', sections: [{ heading: 'Run', lines: [{ label: 'Generated at', value: CREATED_AT, type: 'datetime' }] }] });
  await workbook.close();
  await finished(out);
}

/** The Trends sheet's run cells: column A under the block's header (heading, sentence, blank, title, header). */
const runCells = (book: ExcelJS.Workbook) => RUNS.map((_, i) => book.getWorksheet('Trends')!.getCell(`A${6 + i}`));

describe('the workbook in the report\'s locale: date cells and paper', () => {
  const files = { de: temp.path('de.xlsx'), us: temp.path('us.xlsx') };
  let de: ExcelJS.Workbook;
  let us: ExcelJS.Workbook;
  beforeAll(async () => {
    await writeWorkbook(files.de, 'de-DE', 'Europe/Berlin');
    await writeWorkbook(files.us, 'en-US', 'America/New_York');
    [de, us] = await Promise.all([readWorkbook(files.de), readWorkbook(files.us)]);
  });

  it('writes date columns as date cells in the locale\'s day order: dd.mm.yyyy for de-DE, mm/dd/yyyy for en-US', () => {
    for (const [book, format] of [[de, 'dd.mm.yyyy'], [us, 'mm/dd/yyyy']] as const) {
      const due = book.getWorksheet('items')!.getCell('B2');
      expect(due.type).toBe(ExcelJS.ValueType.Date);
      // A calendar day is that day in any zone.
      expect(due.value).toEqual(new Date(Date.UTC(2027, 0, 4)));
      expect(due.numFmt).toBe(format);
    }
  });

  it('writes timestamps as date-time cells of the zone\'s wall clock, in the locale\'s date and clock (24 h or AM/PM)', () => {
    const berlin = de.getWorksheet('items')!.getCell('C2');
    expect(berlin.type).toBe(ExcelJS.ValueType.Date);
    expect(berlin.value).toEqual(new Date('2026-11-21T08:00:00Z'));
    expect(berlin.numFmt).toBe('dd.mm.yyyy", "hh:mm');
    const newYork = us.getWorksheet('items')!.getCell('C2');
    expect(newYork.value).toEqual(new Date('2026-11-21T02:00:00Z'));
    expect(newYork.numFmt).toBe('mm/dd/yyyy", "hh:mm AM/PM');
    // The Summary's lines take the same formats.
    expect(de.getWorksheet('Summary')!.getCell('C4').numFmt).toBe('dd.mm.yyyy", "hh:mm');
    expect(us.getWorksheet('Summary')!.getCell('C4').numFmt).toBe('mm/dd/yyyy", "hh:mm AM/PM');
  });

  it('writes the Trends sheet\'s runs as date cells of the zone\'s day, with the time where two runs share a day', () => {
    const cells = runCells(de);
    expect(cells.map((c) => c.type)).toEqual(RUNS.map(() => ExcelJS.ValueType.Date));
    // Berlin is UTC+1 in November.
    expect(cells.map((c) => c.value)).toEqual(RUNS.map((at) => new Date(at.getTime() + 3_600_000)));
    expect(cells.map((c) => c.numFmt)).toEqual(['dd.mm.yyyy', 'dd.mm.yyyy', 'dd.mm.yyyy", "hh:mm', 'dd.mm.yyyy", "hh:mm']);
    expect(runCells(us).map((c) => c.numFmt)).toEqual(['mm/dd/yyyy', 'mm/dd/yyyy', 'mm/dd/yyyy", "hh:mm AM/PM', 'mm/dd/yyyy", "hh:mm AM/PM']);
    // They name their rows: left-aligned under the "Run" header, as a text label is.
    expect(cells.map((c) => c.alignment?.horizontal)).toEqual(RUNS.map(() => 'left'));
  });

  it('gives the Trends chart those dates as its categories, labelled in the cells\' formats, one label per run', async () => {
    const chart = (await readZipEntries(files.de)).get('xl/charts/chart1.xml')!;
    const cat = /<c:cat>(.*?)<\/c:cat>/.exec(chart)![1]!;
    expect(cat).toMatch(/^<c:numRef><c:f>'Trends'!\$A\$6:\$A\$9<\/c:f><c:numCache><c:formatCode>dd\.mm\.yyyy<\/c:formatCode>/);
    // The cache holds the cells' serials: a reader that does not recalculate draws what the cells say.
    const serials = [...cat.matchAll(/<c:v>([^<]*)<\/c:v>/g)].map((m) => Number(m[1]));
    const cells = runCells(de).map((c) => (c.value as Date).getTime() / 86_400_000 + 25_569);
    serials.forEach((serial, i) => expect(serial).toBeCloseTo(cells[i]!, 9));
    expect([...cat.matchAll(/<c:pt idx="(\d)" formatCode="([^"]*)">/g)].map((m) => [m[1], m[2]])).toEqual([
      ['2', 'dd.mm.yyyy&quot;, &quot;hh:mm'], ['3', 'dd.mm.yyyy&quot;, &quot;hh:mm'],
    ]);
    expect(chart).toContain('<c:numFmt formatCode="dd.mm.yyyy" sourceLinked="1"/>');
    expect(chart).toMatch(/<c:catAx>.*<c:auto val="0"\/>.*<\/c:catAx>/);
  });

  it('prints every sheet on the locale\'s paper: Letter (1) for en-US, A4 (9) for de-DE', () => {
    for (const [book, size] of [[us, 1], [de, 9]] as const) {
      expect(book.worksheets.map((s) => [s.name, s.pageSetup.paperSize])).toEqual(
        ['Summary', 'Trends', 'Changes', 'items'].map((name) => [name, size]),
      );
    }
  });
});
