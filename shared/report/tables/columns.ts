import { listText, type CellValue, type Column, type ColumnType } from '../../table/table';
import { epochToCalendarDate, parseApiDate } from '../dataset/dates';

/** Shorthand for column definitions, which are the documented contract (docs/tables.md). */
export function col(key: string, type: ColumnType, description: string, width?: number): Column {
  return width === undefined ? { key, type, description } : { key, type, description, width };
}

/** A value for a `list` column: the non-empty texts, or null when there are none. */
export function listOf(values: readonly (string | null | undefined)[] | null | undefined): readonly string[] | null {
  if (!values) return null;
  const kept = values.filter((v): v is string => typeof v === 'string' && v !== '');
  return kept.length > 0 ? kept : null;
}

/** Joins list values into one text (for values that stay text, such as a multi-select custom field). */
export function joinList(values: readonly (string | null | undefined)[] | null | undefined): string | null {
  const kept = listOf(values);
  return kept ? listText(kept) : null;
}

/** A value for a `date` column: the parsed date, or the original text when it cannot be parsed. */
export function dateOrText(text: string | null | undefined, parse: (t: string) => Date | undefined): CellValue {
  if (text === null || text === undefined || text === '') return null;
  return parse(text) ?? text;
}

/** snake_case of a free-text title for a column key; keeps letters of any script. */
export function columnSlug(title: string): string {
  const slug = title
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '_')
    .replace(/^_+|_+$/g, '');
  return slug === '' ? 'field' : slug;
}

/** A link cell, or null when there is no URL. */
export function link(text: string | null | undefined, url: string | null | undefined): CellValue {
  if (!url) return null;
  return { text: text || url, url };
}

/**
 * A value for a `date` column from any of the API's date forms: `DD-Mon-YYYY`, `DD Mon, YY`, ISO 8601
 * or epoch milliseconds (a number, or digits as text). An instant becomes its calendar date in the
 * report's time zone; text that is none of these stays as it came, readable.
 */
export function apiDate(value: string | number | null | undefined, timeZone: string): CellValue {
  if (typeof value === 'number') return epochToCalendarDate(value, timeZone) ?? null;
  if (typeof value === 'string' && /^\d{11,}$/.test(value)) return epochToCalendarDate(Number(value), timeZone) ?? value;
  return dateOrText(value, parseApiDate);
}

/** The title of a record sent as `{ id, title }`, or the text sent in its place (an id where the docs leave the shape open). */
export function titleOrText(value: string | { readonly title?: string | null | undefined; readonly id?: string | null | undefined } | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string') return value === '' ? null : value;
  return value.title ?? value.id ?? null;
}

/** The id of a record sent as `{ id, title }`, or the text sent in its place (an id, where the docs leave the shape open). */
export function idOrText(value: string | { readonly id?: string | null | undefined } | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string') return value === '' ? null : value;
  return value.id ?? null;
}
