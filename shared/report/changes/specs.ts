import { percentDecimals } from '../../core/format';
import { cyrbLanes } from './keys/cyrb';
import type { ChangeRules } from '../dataset/change-rules';
import type { DatasetEntry } from '../dataset/dataset';
import { DATASETS, tablesOf } from '../tables/registry';
import { isTextList, listText, type CellValue, type Column, type ColumnType, type TableDefinition, type TableRow } from '../../table/table';

/** A table's change rules (change-rules.ts) with the table they belong to and how it is named. */
export interface ChangeSpec extends ChangeRules {
  readonly table: string;
  /** How the table is named on the Changes sheet and in the e-mail: its title. */
  readonly label: string;
}

/** The change specs of every table of the registry that runs compare. */
export function changeSpecs(datasets: readonly DatasetEntry[] = DATASETS): ChangeSpec[] {
  return tablesOf(datasets).flatMap((t) => (t.changes ? [{ table: t.name, label: t.title, ...t.changes }] : []));
}

/** A snapshot value: what JSON carries exactly (dates as YYYY-MM-DD or ISO text, links as their URL). */
export type SnapshotValue = string | number | null;

export interface TrackedField {
  readonly column: string;
  readonly label: string;
  readonly type: ColumnType;
}

/** A spec bound to the columns of one table: indexes instead of names, for 300,000 rows. */
export interface BoundSpec {
  readonly spec: ChangeSpec;
  /** Tracked fields that the table has, in spec order: the comparison's "columns". */
  readonly fields: readonly TrackedField[];
  keyOf(row: TableRow): string;
  displayOf(row: TableRow): string;
  titleOf(row: TableRow): string | null;
  linkOf(row: TableRow): string | null;
  scopeOf(row: TableRow): string | null;
  teamsOf(row: TableRow): string | null;
  valuesOf(row: TableRow): SnapshotValue[];
}

export function bindSpec(spec: ChangeSpec, table: TableDefinition): BoundSpec {
  const index = new Map(table.columns.map((c, i) => [c.key, i] as const));
  const at = (name: string | undefined): number => (name === undefined ? -1 : (index.get(name) ?? -1));
  const fields = spec.fields
    .map((field) => ({ ...field, i: at(field.column) }))
    .filter((field) => field.i >= 0)
    .map((field) => ({ ...field, type: (table.columns[field.i] as Column).type }));
  const keyParts = spec.key.map((names) => names.map(at).filter((i) => i >= 0));
  const display = spec.display.map(at).filter((i) => i >= 0);
  const title = at(spec.title);
  const link = at(spec.link);
  const scope = at(spec.scope);
  const teams = at(spec.teams);
  const first = (row: TableRow, columns: readonly number[]): string => {
    for (const i of columns) {
      const text = snapshotValue(row.values[i], 'text');
      if (text !== null && text !== '') return String(text);
    }
    return '';
  };
  return {
    spec,
    fields: fields.map(({ column, label, type }) => ({ column, label, type })),
    // The unit separator cannot occur in ids typed by people, so parts never run together.
    keyOf: (row) => (keyParts.length === 1 ? first(row, keyParts[0]!) : keyParts.map((p) => first(row, p)).join('\u001f')),
    displayOf: (row) => first(row, display),
    titleOf: (row) => (title < 0 ? null : asText(snapshotValue(row.values[title], 'text'))),
    linkOf: (row) => (link < 0 ? null : asText(snapshotValue(row.values[link], 'link'))),
    scopeOf: (row) => (scope < 0 ? null : asText(snapshotValue(row.values[scope], 'text'))),
    teamsOf: (row) => (teams < 0 ? null : asText(snapshotValue(row.values[teams], 'list'))),
    valuesOf: (row) => fields.map((field) => snapshotValue(row.values[field.i], field.type)),
  };
}

function asText(value: SnapshotValue): string | null {
  return value === null ? null : String(value);
}

/** The comparable form of a cell: the same in the snapshot and in the running export. */
export function snapshotValue(value: CellValue, type: ColumnType): SnapshotValue {
  if (value === null || value === undefined || value === '') return null;
  if (typeof value === 'string') return value;
  // A list (teams, sprints): compared and shown as the cell shows it.
  if (isTextList(value)) return value.length > 0 ? listText(value) : null;
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) return null;
    const iso = value.toISOString();
    return type === 'date' ? iso.slice(0, iso.indexOf('T')) : iso;
  }
  return value.url;
}

/**
 * A compared date or date-time value (snapshotValue's ISO form) as the instant it stands for; null for
 * any other value or type. A calendar date is carried at 00:00 UTC.
 */
export function comparedInstant(value: SnapshotValue, type: ColumnType): Date | null {
  if (typeof value !== 'string') return null;
  const instant = type === 'date' && /^\d{4}-\d{2}-\d{2}$/.test(value) ? new Date(`${value}T00:00:00Z`) : type === 'datetime' ? new Date(value) : null;
  return instant === null || Number.isNaN(instant.getTime()) ? null : instant;
}

/** How a value is shown in the "from" and "to" columns; `decimals` of a percentage (one unless told). */
export function displayValue(value: SnapshotValue, type: ColumnType, decimals = 1): string {
  if (value === null) return '';
  if (type === 'percent' && typeof value === 'number') return `${value.toFixed(decimals)} %`;
  return String(value);
}

/**
 * A changed field's two values as the "from" and "to" columns show them: percentages with one
 * decimal, or as many as it takes for the two to differ (core/format.ts, percentDecimals).
 */
export function displayPair(from: SnapshotValue, to: SnapshotValue, type: ColumnType): [string, string] {
  const decimals = typeof from === 'number' && typeof to === 'number' ? percentDecimals(from, to) : 1;
  return [displayValue(from, type, decimals), displayValue(to, type, decimals)];
}

/**
 * A 53-bit hash of a string (cyrb53): the fingerprint of a row's tracked values. A collision would
 * hide one change among 2^53 pairs, far below anything a weekly report can show.
 */
export function fingerprint(text: string): number {
  cyrbLanes(text, 0xdeadbeef, 0x41c6ce57, LANES);
  return 4294967296 * (2097151 & LANES[1]!) + LANES[0]!;
}
const LANES = new Uint32Array(2);
