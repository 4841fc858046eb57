/**
 * `risk-custom-fields`: the risks' custom fields as rows, one per field a risk carries, keyed by the
 * field's id. The `cf_<title>` columns of `risks` follow the tenant's titles (a renamed field is a
 * new column, and no Glue table can declare them); this long table has the same values under fixed,
 * typed columns, so a downstream query selects a field by id or title, whatever titles come and go.
 */
import type { CustomField, Risk, RiskRegister } from '../../../planning-api/schemas';
import type { CellValue, Column, ColumnType, TableRow } from '../../../table/table';
import { tableColumns } from '../../../table/column-spec';
import type { TableEntry } from '../../dataset/dataset';
import { customColumnType, customValue, customValueText } from './risk-custom-values';

/** What a `risk-custom-fields` row is read from: one custom field of one risk. */
export interface RiskFieldSource {
  readonly register: RiskRegister;
  readonly risk: Risk;
  readonly field: CustomField;
  /** The kind of the field's value (customColumnType of its type): which typed column holds it. */
  readonly kind: ColumnType;
}

/** The typed value of a field of `kind`, or null when it is of another kind or does not read as one. */
function typed(source: RiskFieldSource, kind: ColumnType, is: (value: CellValue) => boolean): CellValue {
  if (source.kind !== kind) return null;
  const value = customValue(source.field, kind);
  return is(value) ? value : null;
}

export const RISK_CUSTOM_FIELD_TABLE = tableColumns<RiskFieldSource>()([
  { name: 'risk_key', type: 'text', label: 'Risk', width: 12, description: 'Key of the risk (as `risks.key`)', read: (s) => s.risk.key ?? null },
  { name: 'risk_id', type: 'text', label: 'Risk id', width: 12, hidden: true, description: 'Internal id of the risk (as `risks.id`)', read: (s) => s.risk.id },
  { name: 'register_key', type: 'text', label: 'Register', width: 12, description: 'Key of the risk register', read: (s) => s.register.key ?? null },
  { name: 'register_id', type: 'text', label: 'Register id', width: 12, hidden: true, description: 'Id of the risk register', read: (s) => s.register.id },
  { name: 'field_id', type: 'text', label: 'Field id', width: 12, description: 'Id of the custom field: stable when its title changes', read: (s) => s.field.id ?? null },
  { name: 'field_title', type: 'text', label: 'Field', width: 24, description: 'Title of the custom field at the time of the run', read: (s) => s.field.title ?? null },
  { name: 'field_type', type: 'text', label: 'Field type', width: 14, description: 'Type of the custom field as the API names it (`number`, `date`, `singleselect`, `userpicker`, …)', read: (s) => s.field.type ?? null },
  {
    name: 'value_text', type: 'text', label: 'Value', width: 30,
    description: 'The value as readable text, whatever its type (a user by full name, lists joined with `; `); null when the field is empty',
    read: (s) => customValueText(s.field.value),
  },
  {
    name: 'value_number', type: 'number', label: 'Number', width: 12, description: 'The value of a number field, as a number (null for other types)',
    read: (s) => typed(s, 'number', (v) => typeof v === 'number'),
  },
  {
    name: 'value_date', type: 'date', label: 'Date', width: 12, description: 'The value of a date field, as a date (null for other types)',
    read: (s) => typed(s, 'date', (v) => v instanceof Date),
  },
  {
    name: 'value_boolean', type: 'boolean', label: 'Yes/no', width: 8, description: 'The value of a checkbox field, as a boolean (null for other types)',
    read: (s) => typed(s, 'boolean', (v) => typeof v === 'boolean'),
  },
  {
    name: 'value_user_id', type: 'text', label: 'User id', width: 12, hidden: true, description: 'User id of a user-picker value (its full name is `value_text`)',
    read: (s) => userId(s.field.value),
  },
]);

export const RISK_CUSTOM_FIELD_COLUMNS: readonly Column[] = RISK_CUSTOM_FIELD_TABLE.columns;

function userId(value: unknown): string | null {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return null;
  const id = (value as { id?: unknown }).id;
  return typeof id === 'string' ? id : null;
}

/** The rows of one risk's custom fields, in the order the API sends them. */
export function riskFieldRows(register: RiskRegister, risk: Risk): TableRow[] {
  return (risk.customFields ?? []).map((field) => ({ values: RISK_CUSTOM_FIELD_TABLE.values({ register, risk, field, kind: customColumnType(field.type) }) }));
}

/** The table's entry among the tables of the `risks` dataset (tables/risks.ts). */
export const RISK_CUSTOM_FIELDS_ENTRY: TableEntry = {
  name: 'risk-custom-fields',
  title: 'Risk custom fields',
  contract: { version: '1.0', columns: RISK_CUSTOM_FIELD_COLUMNS },
  docs: {
    intro: 'One row per custom field of each exported risk (the same risks as `risks`), keyed by `risk_key` and `field_id`: the ' +
      '`cf_<title>` columns of `risks` as rows, so a field can be selected by its id whatever its title, and the Glue table declares every column.',
    outro: 'The value is in `value_text` for every type; a number, date or checkbox field also has it typed in `value_number`, `value_date` or ' +
      '`value_boolean` (null in the others), the same reading as its `cf_` column. A risk without custom fields has no rows.',
  },
};
