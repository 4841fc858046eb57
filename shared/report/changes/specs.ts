import { cyrbLanes } from './cyrb';
import type { TrackedColumn } from '../../table/column-spec';
import { BOARD_ITEM_TABLE } from '../tables/board-items';
import { OKR_TABLE, STRATEGIC_THEME_TABLE } from '../tables/okrs';
import { PI_ITEM_TRACKED, PI_OBJECTIVE_TABLE, type PiItemColumnName } from '../tables/pi-objectives';
import { RISK_TABLE } from '../tables/risks';
import { isTextList, listText, type CellValue, type Column, type ColumnType, type TableDefinition, type TableRow } from '../../table/table';

/**
 * What is compared per table: the stable key, what a change row shows (key, title, link), which
 * column says which selection unit (register, strategic theme, board) a row came from, and the
 * tracked fields. Only columns named here are kept in the snapshot; the rest of a row is not
 * compared (a changed description is not news in a weekly report; a changed status is).
 */
export interface ChangeSpec extends ChangeSpecOf<string> {
  readonly table: string;
  /** Tracked fields with their labels on the Changes sheet, in the order they are listed. */
  readonly fields: readonly { readonly column: string; readonly label: string }[];
}

/** What a change spec names; for a table's own spec, `N` has the compiler check its column names. */
interface ChangeSpecOf<N extends string> {
  /** How the table is named on the Changes sheet and in the e-mail. */
  readonly label: string;
  /** Key parts, each a list of columns of which the first non-empty one is used. */
  readonly key: readonly (readonly N[])[];
  /** Shown as the key: the first non-empty of these columns. */
  readonly display: readonly N[];
  readonly title: N;
  /** A link column (tracker URL) for the key's hyperlink, when the table has one. */
  readonly link?: N;
  /** The column holding the id of the selection unit the row belongs to (see scope.ts). */
  readonly scope: N;
  /** The row's teams, shown on the Changes sheet beside its board, register or theme. */
  readonly teams?: N;
  /** Selector settings that change this table's values without changing its rows (compared as a whole). */
  readonly settings?: readonly string[];
}

/** A table's change spec; the tracked fields and their labels come from its column specs. */
function changeSpec<N extends string>(
  table: string,
  tracked: readonly TrackedColumn<N>[],
  spec: ChangeSpecOf<NoInfer<N>>,
): ChangeSpec {
  return { table, ...spec, fields: tracked };
}

/** Rows known by their key, or their id where they have no key, and shown that way with their title. */
const BY_KEY_OR_ID = { key: [['key', 'id']], display: ['key', 'id'], title: 'title' } as const;

export const CHANGE_SPECS: readonly ChangeSpec[] = [
  changeSpec('risks', RISK_TABLE.tracked, { label: 'Risks', ...BY_KEY_OR_ID, scope: 'register_key', teams: 'teams' }),
  changeSpec('strategic-themes', STRATEGIC_THEME_TABLE.tracked, { label: 'Strategic themes', ...BY_KEY_OR_ID, scope: 'key' }),
  changeSpec('okrs', OKR_TABLE.tracked, {
    label: 'OKRs',
    // Groups have no key; a level keeps a group id from meeting an objective id.
    key: [['level'], ['key', 'id']],
    display: ['key', 'id'],
    title: 'title',
    scope: 'strategic_theme_key',
  }),
  changeSpec('pi-objectives', PI_OBJECTIVE_TABLE.tracked, {
    label: 'PI objectives',
    key: [['board_id'], ['id']],
    display: ['id'],
    title: 'title',
    scope: 'board_id',
    settings: ['completionType'],
  }),
  changeSpec<PiItemColumnName>('pi-objective-items', PI_ITEM_TRACKED, {
    label: 'PI objective items',
    key: [['objective_id'], ['kind'], ['item_id']],
    display: ['tracker_key', 'tracker_id', 'item_id'],
    title: 'title',
    link: 'tracker_link',
    scope: 'board_id',
    teams: 'teams',
  }),
  changeSpec('board-items', BOARD_ITEM_TABLE.tracked, {
    label: 'Board items',
    key: [['board_id'], ['id']],
    display: ['external_key', 'id'],
    title: 'summary',
    link: 'external_link',
    scope: 'board_id',
    teams: 'teams',
  }),
];

export function changeSpecOf(table: string): ChangeSpec | undefined {
  return CHANGE_SPECS.find((s) => s.table === table);
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

/** How a value is shown in the "from" and "to" columns. */
export function displayValue(value: SnapshotValue, type: ColumnType): string {
  if (value === null) return '';
  if (type === 'percent' && typeof value === 'number') return `${Math.round(value * 100) / 100} %`;
  return String(value);
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
