/**
 * Nothing dropped silently: every leaf the server sent that no cell holds, and values of another
 * shape than the contract's, counted per table. The manifest lists both (summary.unexportedFields,
 * summary.shapeWarnings), the CLI prints one line and the e-mail's small print says so, so a field a
 * real server adds is seen, not lost.
 *
 * A shape names each field a table reads, down to the leaves:
 * - `true`: a value a column holds (a text, a number, a list of them). Should the server send a
 *   record there instead, its fields are walked and listed like any other: `true` never waves a
 *   record through, so an id inside a reference (`status.id`) cannot hide behind its title;
 * - a nested shape: a record, or a list of records, whose fields are checked the same way (a text
 *   sent in its place is held as it came: the column shows it, the dataset counts a shape warning);
 * - `ROWS`: records that have rows of their own, audited one by one where those rows are made.
 * Fields a table leaves out on purpose are declared once per table with the reason (`NotExported`,
 * in its registry entry and docs/tables.md); they are still listed, with that reason.
 */
export const ROWS = 'rows';

export type FieldRule = true | typeof ROWS | FieldShape;

export interface FieldShape {
  readonly [field: string]: FieldRule;
}

/** Leaf paths a table leaves out on purpose (`teamsAndSprints[].team.color`), each with why. */
export type NotExported = Readonly<Record<string, string>>;

export interface UnexportedField {
  /** `customThing`, `children[].parentDescription`: `[]` marks the records of an array. */
  readonly path: string;
  /** How many records (nested records counted one by one) had a value there. */
  readonly records: number;
  /** Why it is left out, when the table declares it (NotExported); absent for a field nobody expected. */
  readonly reason?: string;
}

export interface ShapeWarning {
  readonly path: string;
  readonly problem: string;
  readonly records: number;
}

/** The manifest's figures: table name → fields. Only tables with something to say appear. */
export interface FieldAuditFigures {
  readonly unexportedFields?: Record<string, UnexportedField[]>;
  readonly shapeWarnings?: Record<string, ShapeWarning[]>;
}

export class FieldAudit {
  readonly #unexported = new Map<string, Map<string, number>>();
  readonly #warnings = new Map<string, Map<string, { problem: string; records: number }>>();
  readonly #notExported: Readonly<Record<string, NotExported>>;

  /** `notExported`: per table, the fields it leaves out on purpose (their reasons go into the manifest). */
  constructor(notExported: Readonly<Record<string, NotExported>> = {}) {
    this.#notExported = notExported;
  }

  /**
   * Counts the leaves of one record (and its nested records) that `shape` does not read. `prefix`
   * names a record the table reads beside its rows' own (`register.`, `board.`).
   */
  check(table: string, record: object, shape: FieldShape, prefix = ''): void {
    let counts = this.#unexported.get(table);
    if (!counts) {
      counts = new Map();
      this.#unexported.set(table, counts);
    }
    walk(record as Record<string, unknown>, shape, prefix, counts);
  }

  /** Counts a value of another shape than the contract's, shown readably instead of failing. */
  warn(table: string, path: string, problem: string): void {
    let warnings = this.#warnings.get(table);
    if (!warnings) {
      warnings = new Map();
      this.#warnings.set(table, warnings);
    }
    const key = `${path}\u001f${problem}`;
    const seen = warnings.get(key);
    if (seen) seen.records++;
    else warnings.set(key, { problem, records: 1 });
  }

  figures(): FieldAuditFigures {
    const unexported = entries(this.#unexported, (counts, table) =>
      [...counts]
        .map(([path, records]) => {
          const reason = this.#notExported[table]?.[path];
          return reason === undefined ? { path, records } : { path, records, reason };
        })
        .sort(byPath),
    );
    const warnings = entries(this.#warnings, (found) =>
      [...found].map(([key, w]) => ({ path: key.slice(0, key.indexOf('\u001f')), problem: w.problem, records: w.records })).sort(byPath),
    );
    return {
      ...(Object.keys(unexported).length > 0 && { unexportedFields: unexported }),
      ...(Object.keys(warnings).length > 0 && { shapeWarnings: warnings }),
    };
  }

}

/**
 * What an operator should hear of (docs/tables.md): the served fields no column holds that no table
 * declares as left out on purpose, and the values of another shape, as `<table>: <path>` lines. Readers
 * never see these (they cannot act on them); the manifest lists them, the run list counts them, and
 * the report's owners are told once when the set changes (shared/messages/notices/field-notice.ts).
 */
export function operatorFindings(figures: FieldAuditFigures): string[] {
  const fields = Object.entries(figures.unexportedFields ?? {}).flatMap(([table, all]) =>
    all.filter((f) => f.reason === undefined).map((f) => `${table}: ${f.path}`),
  );
  const shapes = Object.entries(figures.shapeWarnings ?? {}).flatMap(([table, warnings]) => warnings.map((w) => `${table}: ${w.path} (${w.problem})`));
  return [...fields, ...shapes].sort();
}

/** Whether two runs' findings (operatorFindings) name the same fields: what decides that an operator hears of them again. */
export function sameFindings(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((f) => b.includes(f));
}

function walk(record: Record<string, unknown>, shape: FieldShape, prefix: string, counts: Map<string, number>): void {
  for (const key in record) {
    const rule = shape[key];
    if (rule !== ROWS) visit(record[key], rule, prefix + key, counts);
  }
}

/**
 * One value at `path`, which `rule` reads (or, undefined, nothing reads). A record is walked field
 * by field, against the rule's shape or against none when the rule is `true` or absent (so each of
 * its leaves is read by name or counted); a list item by item. A leaf, or a list of leaves, is held
 * when the rule reads it, even where a shape expected records: the column shows it as it came and
 * the dataset counts a shape warning.
 */
function visit(value: unknown, rule: Exclude<FieldRule, typeof ROWS> | undefined, path: string, counts: Map<string, number>): void {
  if (value === null || value === undefined || value === '') return;
  const shape = typeof rule === 'object' ? rule : {};
  let leaf = false;
  for (const item of Array.isArray(value) ? (value as unknown[]) : [value]) {
    if (item !== null && typeof item === 'object' && !Array.isArray(item)) walk(item as Record<string, unknown>, shape, Array.isArray(value) ? `${path}[].` : `${path}.`, counts);
    else if (item !== null && item !== undefined && item !== '') leaf = true;
  }
  // A leaf nothing reads counts once per record, a list of texts under the list's own name.
  if (leaf && rule === undefined) counts.set(path, (counts.get(path) ?? 0) + 1);
}

function entries<V, T>(byTable: Map<string, V>, list: (v: V, table: string) => T[]): Record<string, T[]> {
  const out: Record<string, T[]> = {};
  for (const [table, value] of byTable) {
    const items = list(value, table);
    if (items.length > 0) out[table] = items;
  }
  return out;
}

function byPath(a: { path: string }, b: { path: string }): number {
  return a.path < b.path ? -1 : a.path > b.path ? 1 : 0;
}

/**
 * The figures of every dataset in one object: the audit's per-table maps are merged (each dataset
 * reports its own tables), the repeated records' counts added up (two datasets both read the board
 * list), every other figure is kept as its dataset gave it.
 */
export function mergeFigures(figures: readonly Record<string, unknown>[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of figures) {
    for (const [key, value] of Object.entries(f)) {
      const merged = (key === 'unexportedFields' || key === 'shapeWarnings') && typeof out[key] === 'object';
      out[key] = merged ? { ...(out[key] as object), ...(value as object) } : key === 'duplicatesDropped' ? addCounts(out[key], value) : value;
    }
  }
  return out;
}

function addCounts(a: unknown, b: unknown): Record<string, number> {
  const out: Record<string, number> = { ...(a as Record<string, number> | undefined) };
  for (const [what, count] of Object.entries(b as Record<string, number>)) out[what] = (out[what] ?? 0) + count;
  return out;
}
