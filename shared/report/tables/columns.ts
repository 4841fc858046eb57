import { listText, type CellValue, type Column, type ColumnType } from '../../table/table';

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
