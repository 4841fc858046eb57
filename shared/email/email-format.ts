import type { ReaderFormat } from '../core/format';
import { isLink, isTextList, listText, webUrlOf, type CellValue, type ColumnType, type LinkValue } from '../table/table';
import type { ReportEmailLink } from './email-model';

/** Value formatting shared by the HTML and text parts of the report e-mail. */

/** A cell's value as the reader reads it: in the run's locale and zone (`format`, core/format.ts). */
export function formatValue(value: Exclude<CellValue, LinkValue>, type: ColumnType | undefined, format: ReaderFormat): string {
  if (value === null || value === undefined || value === '') return '–';
  if (typeof value === 'boolean') return format.t(value ? 'value.yes' : 'value.no');
  if (typeof value === 'number') {
    // One decimal, as in the workbook: the same figure reads the same on every surface.
    return type === 'percent' ? format.percent(value) : format.number(value);
  }
  if (isTextList(value)) return value.length > 0 ? listText(value) : '–';
  if (value instanceof Date) {
    // Calendar dates are carried at 00:00 UTC (see table.ts): formatting them in the report's zone
    // would show the previous day west of Greenwich.
    return type === 'date' ? format.calendarDate(value) : format.dateTime(value);
  }
  return value;
}

/** Text of a cell; in the text part a link that leads out of the workbook carries its address. */
export function cellText(value: CellValue, type: ColumnType | undefined, format: ReaderFormat, withUrl: boolean): string {
  if (!isLink(value)) return formatValue(value, type, format);
  const url = webUrlOf(value);
  if (!withUrl || url === undefined) return value.text;
  return value.text === url ? url : `${value.text} <${url}>`;
}

/** Where a value leads on the web (a link's tracker page, else its own web address); undefined for a workbook row or a non-link. */
export function webAddress(value: CellValue): string | undefined {
  return isLink(value) ? webUrlOf(value) : undefined;
}

export function escapeHtml(value: string): string {
  return value
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/** `Excel, 361,4 KiB`: a file's format and its size in the reader's locale. */
export function fileDetail(link: ReportEmailLink, format: ReaderFormat): string {
  return `${link.kind}, ${format.bytes(link.bytes)}`;
}
