/**
 * A leading sheet (the Changes sheet, docs/changes.md): a heading, one sentence, a blank row, then a
 * table with a header, fills and links like a data sheet's. Small, so it is written whole at the end.
 */
import type { LeadingSheet } from '../../table/table';
import { worksheetText } from '../cell-text';
import type { ZoneClock } from '../time-zone';
import { capLinks, columnLetters, Kind, producedKind, type StyleBook, type StyleModel, toExcel, widthOf, fitWrapped } from './cells';
import type { WriterSheet } from './exceljs-internals/writer';
import { rowHeightFor, wrappedLines } from './print-setup';

const ROWS_PER_YIELD = 32;

export async function writeLeadingRows(
  sheet: WriterSheet,
  content: LeadingSheet,
  deps: { readonly styles: StyleBook; readonly clock: ZoneClock; readonly relieve: () => Promise<void> },
): Promise<void> {
  const { styles, clock } = deps;
  const columns = content.columns;
  const types = columns.map((c) => c.type);
  sheet.columns = columns.map((c) => ({ width: widthOf(c.type, c.label ?? c.key, c.width) }));
  const line = (text: string, style: StyleModel) => {
    const row = sheet.addRow(undefined);
    row.style = styles.row;
    const cell = row.getCell(1);
    cell.value = worksheetText(text);
    cell.style = style;
    row.commit();
  };
  line(content.heading, styles.title);
  // The sentence spans the table's width (merged, wrapped, as tall as its lines): in column A alone it was cut.
  const widths = columns.map((c) => widthOf(c.type, c.label ?? c.key, c.width));
  const span = Math.max(1, columns.length);
  const sentence = sheet.addRow(undefined);
  sentence.style = styles.row;
  const cell = sentence.getCell(1);
  cell.value = worksheetText(content.sentence);
  cell.style = styles.of(Kind.Text);
  const height = rowHeightFor(wrappedLines(content.sentence, widths.reduce((a, b) => a + b, 0) || 40));
  if (height !== undefined) sentence.height = height;
  if (span > 1) sheet.mergeCells(2, 1, 2, span);
  sentence.commit();
  sheet.addRow(undefined).commit();
  const header = sheet.addRow(undefined);
  header.style = styles.row;
  columns.forEach((c, i) => {
    const cell = header.getCell(i + 1);
    cell.value = worksheetText(c.label ?? c.key);
    cell.style = styles.header;
  });
  header.commit();
  let written = 0;
  const linked = { links: 0 };
  for (const data of content.rows) {
    const row = sheet.addRow(undefined);
    row.style = styles.row;
    const fill = data.fill;
    // Text wraps in its column ("Where" names a register and its teams): the row gets a height for
    // its lines, or LibreOffice prints the second line over the next row.
    let lines = 1;
    for (let i = 0; i < columns.length; i++) {
      const own = data.types?.[i];
      const wrapped = fitWrapped(toExcel(data.values[i], own ?? types[i], clock), widths[i]!);
      lines = Math.max(lines, wrapped.lines);
      const value = capLinks(wrapped.value, linked);
      const style = fill && fill.column === i ? styles.withFill(producedKind, fill.color) : undefined;
      if ((value === null || value === '') && style === undefined) continue;
      const cell = row.getCell(i + 1);
      cell.value = value === '' ? null : value;
      // A cell typed apart from its column (a date among texts) keeps to the column's left edge.
      cell.style = style ?? (own ? styles.leftAligned(producedKind) : styles.of(producedKind));
    }
    const rowHeight = rowHeightFor(lines);
    if (rowHeight !== undefined) row.height = rowHeight;
    row.commit();
    if (++written % ROWS_PER_YIELD === 0) await deps.relieve();
  }
  if (columns.length > 0) sheet.autoFilter = `A4:${columnLetters(columns.length)}${content.rows.length + 4}`;
}
