import type { CellValue, Column, ColumnType } from './table';

/**
 * One column of a table, described once: its machine name, type and meaning (the contract), its
 * header for people, whether runs compare it, and how its value is read from the row's source. A
 * table is a list of these, so a name, its label, its change tracking and its value can no longer
 * drift apart by position; the names form a string-literal union that change specs are checked
 * against by the compiler.
 */
export interface ColumnSpec<S, N extends string = string> {
  /** Stable machine name (snake_case): CSV header, Parquet column, snapshot field. */
  readonly name: N;
  readonly type: ColumnType;
  /** One line for docs/tables.md and the machine schema. */
  readonly description: string;
  /** Header for people (the workbook). */
  readonly label: string;
  /** Preferred width in characters for the worksheet. */
  readonly width?: number;
  /** Kept for the contract but hidden in the workbook (internal ids, colour codes). */
  readonly hidden?: boolean;
  /** Workbook: indented by the row's outline level (titles of a hierarchy). */
  readonly indent?: boolean;
  /** Workbook: free text of sentences or paragraphs, placed after the short columns (see Column.longText). */
  readonly longText?: true;
  /** Workbook: the coded text value in words (see Column.inWords). */
  readonly inWords?: (text: string) => string;
  /**
   * Compared between runs: the label on the Changes sheet, and the field's place in the comparison
   * (snapshots store fields in this order, so it stays fixed when columns are added or moved);
   * `severity` where the field's values rank from most to least severe (a risk's level), so a change
   * towards the top weighs as a raise for a reader.
   */
  readonly change?: { readonly label: string; readonly order: number; readonly severity?: true };
  /** The cell value of this column for one row's source. */
  readonly read: (source: S) => CellValue;
}

export interface TrackedColumn<N extends string = string> {
  readonly column: N;
  readonly label: string;
  /** Its values rank by severity (see ColumnSpec.change). */
  readonly severity?: true;
}

/** A table's column specs bound together: the `Column` list for renderers and a row builder. */
export interface TableColumns<S, N extends string> {
  readonly specs: readonly ColumnSpec<S, N>[];
  /** The columns as renderers and schemas see them, labels and presentation flags included. */
  readonly columns: readonly Column[];
  /** Columns compared between runs, in comparison order. */
  readonly tracked: readonly TrackedColumn<N>[];
  /** Position of a column in `columns` (-1 when absent, which the name type rules out). */
  indexOf(name: N): number;
  /** The row's values, aligned with `columns`: rows stay positional arrays (see table.ts). */
  values(source: S): CellValue[];
}

/** Ids, keys and codes: one line, never wrapped mid-number. */
export function isIdentifier(key: string): boolean {
  return /(^|_)(id|key|keys)$/.test(key) || key === 'kind' || key === 'level';
}

export function toColumn(spec: ColumnSpec<never>): Column {
  return {
    key: spec.name,
    type: spec.type,
    description: spec.description,
    label: spec.label,
    ...(spec.width !== undefined && { width: spec.width }),
    ...(spec.hidden === true && { hidden: true }),
    ...(spec.type === 'text' && isIdentifier(spec.name) && { nowrap: true }),
    ...(spec.indent === true && { indentByLevel: true }),
    ...(spec.longText === true && { longText: true }),
    ...(spec.inWords !== undefined && { inWords: spec.inWords }),
  };
}

/**
 * Binds column specs of rows read from `S`. Curried so that `S` is given and the names are
 * inferred: `tableColumns<Risk>()([{ name: 'key', ... }, ...])` has names `'key' | ...`.
 */
export function tableColumns<S>() {
  return <const N extends string>(specs: readonly ColumnSpec<S, N>[]): TableColumns<S, N> => {
    const seen = new Set<string>();
    for (const s of specs) {
      if (seen.has(s.name)) throw new Error(`column "${s.name}" is defined twice`);
      seen.add(s.name);
    }
    const reads = specs.map((s) => s.read);
    const index = new Map<string, number>(specs.map((s, i) => [s.name, i]));
    const tracked = specs
      .filter((s): s is ColumnSpec<S, N> & { change: NonNullable<ColumnSpec<S, N>['change']> } => s.change !== undefined)
      .sort((a, b) => a.change.order - b.change.order)
      .map((s) => ({ column: s.name, label: s.change.label, ...(s.change.severity && { severity: s.change.severity }) }));
    return {
      specs,
      columns: specs.map((s) => toColumn(s as ColumnSpec<never>)),
      tracked,
      indexOf: (name) => index.get(name) ?? -1,
      values: unrolled(reads),
    };
  };
}

/**
 * One function that builds a row as an array literal, each accessor called from its own call site.
 * A loop over the accessors calls them all from one site, which the engine then cannot inline (it
 * sees two dozen different functions there): that made building a row about 1.8 times slower than
 * the hand-written array literals this replaces. The generated code contains only `r0(s)`, `r1(s)`...;
 * no text from data or configuration reaches it.
 */
function unrolled<S>(reads: readonly ((source: S) => CellValue)[]): (source: S) => CellValue[] {
  const names = reads.map((_, i) => `r${i}`);
  // eslint-disable-next-line @typescript-eslint/no-implied-eval -- see above: fixed code, the accessors are passed as arguments
  const make = new Function(...names, `return function values(s) { return [${names.map((n) => `${n}(s)`).join(', ')}]; };`) as (
    ...fns: readonly ((source: S) => CellValue)[]
  ) => (source: S) => CellValue[];
  return make(...reads);
}

/** The names of a table's columns, for change specs and lookups typed by the compiler. */
export type ColumnName<T> = T extends { readonly specs: readonly { readonly name: infer N }[] } ? N : never;
