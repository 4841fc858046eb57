/**
 * How a risk's custom-field value is read, by its field's type: the `cf_<title>` columns of `risks`
 * and the typed columns of `risk-custom-fields` read it the same way.
 */
import type { CustomField } from '../../../planning-api/schemas';
import type { CellValue, ColumnType } from '../../../table/table';
import { epochToCalendarDate, parseApiDate } from '../../dataset/dates';
import { dateOrText, joinList } from '../columns';

/** Column type for a custom field type; unknown types are text, rendered readably. */
export function customColumnType(fieldType: string | null | undefined): ColumnType {
  switch ((fieldType ?? '').toLowerCase()) {
    case 'number':
    case 'numeric':
    case 'decimal':
    case 'integer':
      return 'number';
    case 'date':
    case 'datepicker':
      return 'date';
    case 'checkbox':
    case 'boolean':
      return 'boolean';
    default:
      return 'text';
  }
}

/**
 * Field types whose values are sentences a person typed (notes, a resolution), not a choice from a
 * list or a name: their columns are long text (Column.longText) and get a wider column.
 */
const FREE_TEXT_TYPES = new Set(['text', 'textarea', 'paragraph', 'richtext', 'multilinetext', 'longtext']);

export function isFreeTextField(fieldType: string | null | undefined): boolean {
  return FREE_TEXT_TYPES.has((fieldType ?? '').toLowerCase());
}

/** Readable text of any custom-field value: never `[object Object]`. */
export function customValueText(value: unknown): string | null {
  if (value === null || value === undefined || value === '') return null;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return joinList(value.map((v) => customValueText(v)));
  if (typeof value === 'object') {
    const record = value as Record<string, unknown>;
    for (const key of ['fullName', 'displayName', 'name', 'title', 'label', 'value', 'key', 'id']) {
      const candidate = record[key];
      if (typeof candidate === 'string' || typeof candidate === 'number') return String(candidate);
    }
    return JSON.stringify(value);
  }
  // JSON cannot carry anything else (functions, symbols); nothing readable to show.
  return null;
}

export function customValue(field: CustomField, type: ColumnType): CellValue {
  const value = field.value;
  if (type === 'number') {
    const n = typeof value === 'number' ? value : Number(customValueText(value));
    return Number.isFinite(n) && customValueText(value) !== null ? n : customValueText(value);
  }
  if (type === 'date') {
    // Date pickers that send epoch milliseconds mean a calendar day; read it in UTC, as the API's text dates are.
    if (typeof value === 'number') return epochToCalendarDate(value, 'UTC') ?? null;
    return dateOrText(customValueText(value), parseApiDate);
  }
  if (type === 'boolean') {
    if (typeof value === 'boolean') return value;
    const text = customValueText(value);
    return text === 'true' ? true : text === 'false' ? false : text;
  }
  return customValueText(value);
}
