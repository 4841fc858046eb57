/**
 * Render measurement (one process per run): `rows` board-item rows through one writer into a file.
 *
 *   xlsx            the project's renderer (shared/render/xlsx/), as runExport drives it
 *   csv             the project's renderer (shared/render/csv.ts)
 *   deflate         reference: the same rows as worksheet XML through zlib deflate level 6 into a file
 *   exceljs-memory  reference: exceljs's in-memory Workbook with the same rows, written at the end
 *   generate        reference: producing the rows only (the share of every figure above that is input)
 *   parquet         the project's Parquet renderer (shared/render/parquet/), as runExport drives it
 */
import { createWriteStream, statSync } from 'node:fs';
import { once } from 'node:events';
import { finished } from 'node:stream/promises';
import { createDeflateRaw } from 'node:zlib';
import ExcelJS from 'exceljs';
import { reportResult, workerInput } from '../lib/worker';
import { boardItemRow, COLUMNS, sheetXmlChunks } from '../lib/board-item-rows';
import { openCsvSink } from '../../shared/render/csv';
import { openParquetSink } from '../../shared/render/parquet/parquet-sink';
import { openXlsxWorkbook } from '../../shared/render/xlsx/workbook';
import type { TableDefinition } from '../../shared/table/table';
import { labelled } from '../../shared/report/tables/labels';

/** The workbook's created time: fixed, so a file's bytes depend on nothing but its content. */
const CREATED_AT = new Date('2026-11-23T06:00:00Z');

export type RenderKind = 'xlsx' | 'csv' | 'deflate' | 'exceljs-memory' | 'generate' | 'parquet';

/** What this worker reports on stdout when it is done: the one shape the render and Parquet sections read. */
export interface RenderResult {
  wallMs: number;
  cpuMs: number;
  bytes: number;
  rssStartMb: number;
}

interface Input {
  kind: RenderKind;
  rows: number;
  links: boolean;
  /** Output file (deleted by the parent). */
  file: string;
}

const input = workerInput<Input>();
// Labelled as runExport labels it: the sheet title, header labels, hidden ids and one-line keys.
const table: TableDefinition = labelled({ name: 'board-items', columns: COLUMNS });
const TIME_ZONE = 'Europe/Berlin';

async function xlsx(): Promise<void> {
  const workbook = openXlsxWorkbook(createWriteStream(input.file), { createdAt: CREATED_AT, timeZone: TIME_ZONE, locale: 'en-GB', title: 'bench' });
  const sheet = workbook.openSheet(table, { outlineLevels: 1 });
  for (let i = 0; i < input.rows; i++) {
    const pending = sheet.writeRow(boardItemRow(i, input.links));
    if (pending) await pending;
  }
  const written = await sheet.close();
  await workbook.writeSummary({
    title: 'bench',
    sections: [{ heading: 'Rows', lines: [{ label: 'board-items', value: written, type: 'integer' }] }],
  });
  await workbook.close();
}

async function csv(): Promise<void> {
  const sink = openCsvSink(table, createWriteStream(input.file), { bom: true, timeZone: TIME_ZONE });
  for (let i = 0; i < input.rows; i++) {
    const pending = sink.writeRow(boardItemRow(i, input.links));
    if (pending) await pending;
  }
  await sink.close();
}

/** Both zip entries (sheet XML, then its relationships) deflated into one file, with backpressure. */
async function deflate(): Promise<void> {
  const out = createWriteStream(input.file);
  let zip = createDeflateRaw({ level: 6 });
  zip.pipe(out, { end: false });
  let part: 'sheet' | 'rels' = 'sheet';
  for (const chunk of sheetXmlChunks(input.rows, input.links)) {
    if (chunk.part !== part) {
      zip.end();
      await finished(zip);
      part = chunk.part;
      zip = createDeflateRaw({ level: 6 });
      zip.pipe(out, { end: false });
    }
    if (!zip.write(chunk.xml)) await once(zip, 'drain');
  }
  zip.end();
  await finished(zip);
  out.end();
  await finished(out);
}

async function exceljsMemory(): Promise<void> {
  const workbook = new ExcelJS.Workbook();
  const sheet = workbook.addWorksheet('board-items', { views: [{ state: 'frozen', ySplit: 1 }] });
  sheet.columns = COLUMNS.map((c) => ({
    header: c.key,
    key: c.key,
    width: c.width ?? 12,
    style: c.type === 'date' ? { numFmt: 'yyyy-mm-dd' } : c.type === 'percent' ? { numFmt: '0%' } : {},
  }));
  for (let i = 0; i < input.rows; i++) {
    const row = boardItemRow(i, input.links);
    const values = row.values.map((v, c) => {
      if (Array.isArray(v)) return v.join('; ');
      if (v !== null && typeof v === 'object' && !(v instanceof Date) && 'url' in v) return { text: v.text, hyperlink: v.url };
      if (typeof v === 'number' && COLUMNS[c]!.type === 'percent') return v / 100;
      return v ?? null;
    });
    const added = sheet.addRow(values);
    if (row.outlineLevel) added.outlineLevel = row.outlineLevel;
  }
  await workbook.xlsx.writeFile(input.file);
}

async function parquet(): Promise<void> {
  const sink = openParquetSink(table, createWriteStream(input.file), {
    runId: 'bench', exportedAt: new Date('2026-11-23T06:00:00Z'), schemaVersion: '1.0',
  });
  for (let i = 0; i < input.rows; i++) {
    const pending = sink.writeRow(boardItemRow(i, input.links));
    if (pending) await pending;
  }
  await sink.close();
}

async function generate(): Promise<void> {
  let cells = 0;
  for (let i = 0; i < input.rows; i++) cells += boardItemRow(i, input.links).values.length;
  if (cells < 0) throw new Error('unreachable');
}

const rssStartMb = process.memoryUsage.rss() / 2 ** 20;
const cpuStart = process.cpuUsage();
const started = performance.now();
switch (input.kind) {
  case 'xlsx':
    await xlsx();
    break;
  case 'csv':
    await csv();
    break;
  case 'deflate':
    await deflate();
    break;
  case 'exceljs-memory':
    await exceljsMemory();
    break;
  case 'generate':
    await generate();
    break;
  case 'parquet':
    await parquet();
    break;
}
const wallMs = performance.now() - started;
const cpu = process.cpuUsage(cpuStart);
let bytes = 0;
try {
  bytes = statSync(input.file).size;
} catch {
  // 'generate' writes no file
}
reportResult({ wallMs, cpuMs: (cpu.user + cpu.system) / 1000, bytes, rssStartMb } satisfies RenderResult);
