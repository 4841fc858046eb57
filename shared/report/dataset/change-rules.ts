import type { TrackedColumn } from '../../table/column-spec';

/**
 * What runs compare in one table: the stable key, what a change row shows (key, title, link), which
 * column says which selection unit (register, strategic theme, board) a row came from, and the
 * tracked fields. Only columns named here are kept in the snapshot; the rest of a row is not
 * compared (a changed description is not news in a weekly report; a changed status is). A table's
 * entry in the registry (tables/registry.ts) carries its rules; specs.ts binds them to the columns.
 */
export interface ChangeRules extends ChangeRulesOf<string> {
  /** Tracked fields with their labels on the Changes sheet, in the order they are listed. */
  readonly fields: readonly TrackedColumn[];
}

/** What the rules name; for a table's own rules, `N` has the compiler check its column names. */
interface ChangeRulesOf<N extends string> {
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
  /** Its rows are the items a steering meeting talks about (risks, objectives): one added or removed weighs most. */
  readonly items?: true;
  /** Selector settings that change this table's values without changing its rows (compared as a whole). */
  readonly settings?: readonly string[];
}

/** A table's change rules; the tracked fields and their labels come from its column specs. */
export function changeRules<N extends string>(tracked: readonly TrackedColumn<N>[], rules: ChangeRulesOf<NoInfer<N>>): ChangeRules {
  return { ...rules, fields: tracked };
}

/** Rows known by their key, or their id where they have no key, and shown that way with their title. */
export const BY_KEY_OR_ID = { key: [['key', 'id']], display: ['key', 'id'], title: 'title' } as const;
