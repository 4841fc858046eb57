import type { SummarySection } from '../table/table';

/**
 * Nothing dropped silently: what the server sent that no column holds, and values of another shape
 * than the contract's, counted per table. The manifest lists both (summary.unexportedFields,
 * summary.shapeWarnings), the CLI prints one line and the e-mail's small print says so, so a field a
 * real server adds is seen, not lost.
 *
 * A shape names each field a table reads: `true` for a field held by a column (or used to build
 * one), a nested shape for a field holding records (an object, or an array of objects) whose own
 * fields are checked the same way.
 */
export interface FieldShape {
  readonly [field: string]: true | FieldShape;
}

export interface UnexportedField {
  /** `customThing`, `children[].parentDescription`: `[]` marks the records of an array. */
  readonly path: string;
  /** How many records (nested records counted one by one) had a value there. */
  readonly records: number;
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

  /** Counts the fields of one record (and its nested records) that `shape` does not name. */
  check(table: string, record: object, shape: FieldShape): void {
    let counts = this.#unexported.get(table);
    if (!counts) {
      counts = new Map();
      this.#unexported.set(table, counts);
    }
    walk(record as Record<string, unknown>, shape, '', counts);
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
    const unexported = entries(this.#unexported, (counts) =>
      [...counts].map(([path, records]) => ({ path, records })).sort(byPath),
    );
    const warnings = entries(this.#warnings, (found) =>
      [...found].map(([key, w]) => ({ path: key.slice(0, key.indexOf('\u001f')), problem: w.problem, records: w.records })).sort(byPath),
    );
    return {
      ...(Object.keys(unexported).length > 0 && { unexportedFields: unexported }),
      ...(Object.keys(warnings).length > 0 && { shapeWarnings: warnings }),
    };
  }

  /** The Summary's small print (role "about"): the workbook shows it, the e-mail mentions it. */
  sections(): SummarySection[] {
    const { unexportedFields = {}, shapeWarnings = {} } = this.figures();
    const lines = [
      ...Object.entries(unexportedFields).map(([table, fields]) => ({
        label: `Not exported (${table})`,
        value: fields.map((f) => `${f.path} (${f.records.toLocaleString('en-US')})`).join(', '),
      })),
      ...Object.entries(shapeWarnings).map(([table, warnings]) => ({
        label: `Unexpected shape (${table})`,
        value: warnings.map((w) => `${w.path}: ${w.problem} (${w.records.toLocaleString('en-US')})`).join(', '),
      })),
    ];
    if (lines.length === 0) return [];
    return [{ heading: FIELD_AUDIT_HEADING, role: 'about', lines, smallPrint: FIELD_AUDIT_SMALL_PRINT }];
  }
}

export const FIELD_AUDIT_HEADING = 'Fields the server sent that the report does not hold';
/** The e-mail's sentence: the detail stays in the workbook and the manifest. */
export const FIELD_AUDIT_SMALL_PRINT =
  'The server sent fields this report does not hold, or values of an unexpected shape; the Summary sheet and the manifest list them.';

function walk(record: Record<string, unknown>, shape: FieldShape, prefix: string, counts: Map<string, number>): void {
  for (const key in record) {
    const value = record[key];
    if (value === null || value === undefined || value === '') continue;
    const known = shape[key];
    if (known === true) continue;
    if (known === undefined) {
      const path = prefix + key;
      counts.set(path, (counts.get(path) ?? 0) + 1);
    } else if (Array.isArray(value)) {
      const inner = `${prefix}${key}[].`;
      for (const item of value) if (item !== null && typeof item === 'object') walk(item as Record<string, unknown>, known, inner, counts);
    } else if (typeof value === 'object') {
      walk(value as Record<string, unknown>, known, `${prefix}${key}.`, counts);
    }
  }
}

function entries<V, T>(byTable: Map<string, V>, list: (v: V) => T[]): Record<string, T[]> {
  const out: Record<string, T[]> = {};
  for (const [table, value] of byTable) {
    const items = list(value);
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
