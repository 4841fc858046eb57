import { formatBytes } from '../core/format-bytes';
import { isTextList, listText, type CellValue, type ColumnType, type LinkValue } from '../table/table';
import type { ReportEmailLink } from './email-content';

/** Value formatting shared by the HTML and text parts of the report e-mail. */

const NUMBER_FORMAT = new Intl.NumberFormat('en-US', { maximumFractionDigits: 2 });
const PERCENT_FORMAT = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

export function isLink(value: CellValue): value is LinkValue {
  return typeof value === 'object' && value !== null && !(value instanceof Date) && !isTextList(value);
}

export function formatValue(value: Exclude<CellValue, LinkValue>, type: ColumnType | undefined, timeZone: string): string {
  if (value === null || value === undefined || value === '') return '–';
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (typeof value === 'number') {
    // Percentages are read at a glance: whole numbers, as in the workbook's bars.
    return type === 'percent' ? `${PERCENT_FORMAT.format(value)} %` : NUMBER_FORMAT.format(value);
  }
  if (isTextList(value)) return value.length > 0 ? listText(value) : '–';
  if (value instanceof Date) {
    // Calendar dates are carried at 00:00 UTC (see table.ts): formatting them in the report's zone
    // would show the previous day west of Greenwich.
    return type === 'date' ? value.toISOString().slice(0, 10) : formatDateTime(value, timeZone);
  }
  return value;
}

/** Text of a cell; in the text part a link that leads out of the workbook carries its address. */
export function cellText(value: CellValue, type: ColumnType | undefined, timeZone: string, withUrl: boolean): string {
  if (!isLink(value)) return formatValue(value, type, timeZone);
  if (!withUrl || !isWebUrl(value.url)) return value.text;
  return value.text === value.url ? value.url : `${value.text} <${value.url}>`;
}

/** Only http(s) addresses are links in an e-mail; `#'Sheet'!A1` points into the workbook, anything else is unsafe. */
export function isWebUrl(url: string): boolean {
  return /^https?:\/\//i.test(url);
}

function parts(date: Date, timeZone: string, withTime: boolean): Record<string, string> {
  const format = new Intl.DateTimeFormat('en-US', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    ...(withTime && { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' as const }),
  });
  return Object.fromEntries(format.formatToParts(date).map((p) => [p.type, p.value]));
}

/** YYYY-MM-DD of the instant in the zone. */
export function formatDate(date: Date, timeZone: string): string {
  const p = parts(date, timeZone, false);
  return `${p.year}-${p.month}-${p.day}`;
}

export function formatDateTime(date: Date, timeZone: string): string {
  const p = parts(date, timeZone, true);
  return `${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute}`;
}

export function escapeHtml(value: string): string {
  return value
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

const FORMAT_NAMES: Record<ReportEmailLink['format'], string> = { xlsx: 'Excel', csv: 'CSV' };

export function fileDetail(link: ReportEmailLink): string {
  return `${FORMAT_NAMES[link.format]}, ${formatBytes(link.bytes)}`;
}
