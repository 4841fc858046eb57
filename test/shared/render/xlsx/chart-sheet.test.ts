import { execFileSync, spawnSync } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { writeChartWorkbook } from './chart-workbook';
import { readWorkbook } from '../../../support/read-output';
import { makeTempDir } from '../../../support/temp-dir';
import { readZipEntries } from '../zip-entries';

const temp = makeTempDir('xlsx-charts');
afterAll(() => temp.remove());

const attr = (xml: string, element: string, name: string): string[] =>
  [...xml.matchAll(new RegExp(`<${element}\\b[^>]*\\b${name}="([^"]*)"`, 'g'))].map((m) => m[1]!);
const texts = (xml: string, element: string): string[] => [...xml.matchAll(new RegExp(`<${element}>([^<]*)</${element}>`, 'g'))].map((m) => m[1]!);

describe('a chart sheet: tables with native Excel charts over their cells', () => {
  const file = temp.path('charts.xlsx');

  it('writes chart and drawing parts that point at the tables written, with their types and relationships', async () => {
    await writeChartWorkbook(file);
    const zip = await readZipEntries(file);
    const workbookXml = zip.get('xl/workbook.xml')!;
    expect(attr(workbookXml, 'sheet', 'name')).toEqual(['Summary', 'Trends', 'items']);
    const types = zip.get('[Content_Types].xml')!;
    expect(types).toContain('<Override PartName="/xl/charts/chart1.xml" ContentType="application/vnd.openxmlformats-officedocument.drawingml.chart+xml"/>');
    expect(types).toContain('<Override PartName="/xl/charts/chart2.xml"');
    expect(types).toContain('<Override PartName="/xl/drawings/drawing1.xml" ContentType="application/vnd.openxmlformats-officedocument.drawing+xml"/>');

    // The Trends sheet is sheet id 2: its drawing element, and its relationship to the drawing.
    const sheetXml = zip.get('xl/worksheets/sheet2.xml')!;
    const drawingId = attr(sheetXml, 'drawing', 'r:id');
    expect(drawingId).toHaveLength(1);
    expect(sheetXml.indexOf('<drawing ')).toBeGreaterThan(sheetXml.indexOf('</sheetData>'));
    const sheetRels = zip.get('xl/worksheets/_rels/sheet2.xml.rels')!;
    expect(sheetRels).toMatch(new RegExp(`Id="${drawingId[0]}" Type="[^"]+/relationships/drawing" Target="../drawings/drawing1.xml"`));
    expect(zip.get('xl/drawings/_rels/drawing1.xml.rels')).toContain('Target="../charts/chart2.xml"');
    const drawing = zip.get('xl/drawings/drawing1.xml')!;
    expect(attr(drawing, 'c:chart', 'r:id')).toEqual(['rId1', 'rId2']);
    // The data sheet's hyperlink keeps its own relationship.
    expect(zip.get('xl/worksheets/_rels/sheet3.xml.rels')).toContain('https://tracker.example.com/A-1');

    const risks = zip.get('xl/charts/chart1.xml')!;
    expect(risks).toContain('<c:lineChart>');
    expect(texts(risks, 'c:f')).toEqual([
      "'Trends'!$B$5", "'Trends'!$A$6:$A$8", "'Trends'!$B$6:$B$8",
      "'Trends'!$C$5", "'Trends'!$A$6:$A$8", "'Trends'!$C$6:$C$8",
    ]);
    const band = zip.get('xl/charts/chart2.xml')!;
    expect(band).toMatch(/<c:barChart>.*<\/c:barChart><c:lineChart>.*<a:prstDash val="dash"\/>.*<\/c:lineChart>/);
    expect(texts(band, 'c:f')).toContain("'Trends'!$B$23:$B$24");

    // Every range holds what the chart's cache says: read the cells back with a workbook reader.
    const sheet = (await readWorkbook(file)).getWorksheet('Trends')!;
    for (const chart of [risks, band]) {
      const refs = texts(chart, 'c:f');
      const caches = [...chart.matchAll(/<c:(?:str|num)Cache>(.*?)<\/c:(?:str|num)Cache>/g)].map((m) => m[1]!);
      refs.forEach((ref, i) => {
        const [, fromCol, fromRow, toRow] = /!\$([A-Z]+)\$(\d+)(?::\$[A-Z]+\$(\d+))?$/.exec(ref)!;
        const cached = new Map([...caches[i]!.matchAll(/<c:pt idx="(\d+)"><c:v>([^<]*)<\/c:v>/g)].map((m) => [Number(m[1]), m[2]!]));
        for (let row = Number(fromRow); row <= Number(toRow ?? fromRow); row++) {
          const value = sheet.getCell(`${fromCol}${row}`).value;
          const want = cached.get(row - Number(fromRow));
          expect(value === null ? undefined : String(value as string | number), `${ref} row ${row}`).toBe(want);
        }
      });
    }
    expect(sheet.getCell('B23').value).toBe(0.725);
    expect(sheet.getCell('B23').numFmt).toBe('0.0 %');
    // The band is no column of the table: the chart reads its edges from hidden columns past the chart, and plots them though hidden.
    expect(texts(band, 'c:f')).toEqual(expect.arrayContaining(["'Trends'!$M$22", "'Trends'!$M$23:$M$24", "'Trends'!$N$23:$N$24"]));
    expect(band).toContain('<c:plotVisOnly val="0"/>');
    expect(risks).toContain('<c:plotVisOnly val="1"/>');
    expect([sheet.getCell('A22').value, sheet.getCell('B22').value, sheet.getCell('C22').value]).toEqual(['Run', 'PI 1', null]);
    expect(sheet.getCell('C23').value).toBeNull();
    expect([sheet.getCell('M22').value, sheet.getCell('M23').value, sheet.getCell('N24').value]).toEqual(['80 %', 0.8, 1]);
    expect([sheet.getColumn('M').hidden, sheet.getColumn('N').hidden, sheet.getColumn('L').hidden]).toEqual([true, true, false]);
    expect(sheet.getCell('A25').value).toBe('Dashed lines: the 80–100 % band, the same for every run.');
  });

  it('aligns a figure\'s header right, over its numbers, and the run column\'s left', async () => {
    await writeChartWorkbook(file);
    const sheet = (await readWorkbook(file)).getWorksheet('Trends')!;
    for (const ref of ['B5', 'C5', 'B22']) expect(sheet.getCell(ref).alignment?.horizontal, ref).toBe('right');
    for (const ref of ['A5', 'A22']) expect(sheet.getCell(ref).alignment?.horizontal, ref).toBeUndefined();
  });

  const python = spawnSync('python3', ['-c', 'import openpyxl'], { encoding: 'utf8' }).status === 0;
  it.skipIf(!python)('opens in openpyxl, whose chart reader finds both charts and their series references', async () => {
    await writeChartWorkbook(file);
    const script = [
      'import sys, json, openpyxl',
      'from openpyxl.chart.reader import read_chart',
      'wb = openpyxl.load_workbook(sys.argv[1])',
      'ws = wb["Trends"]',
      'print(json.dumps({"charts": [[type(c).__name__, [s.val.numRef.f for s in c.series]] for c in ws._charts], "a6": ws["A6"].value, "b6": ws["B6"].value}))',
    ].join('\n');
    const result = JSON.parse(execFileSync('python3', ['-c', script, file], { encoding: 'utf8' })) as unknown;
    expect(result).toEqual({
      charts: [
        ['LineChart', ["'Trends'!$B$6:$B$8", "'Trends'!$C$6:$C$8"]],
        ['BarChart', ["'Trends'!$B$23:$B$24"]],
      ],
      a6: '2026-11-02',
      b6: 12,
    });
  });

});
