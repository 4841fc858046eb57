/**
 * The machine schema of a table: what a downstream job (Athena, Glue, Spark, DuckDB, dbt) may rely
 * on. It is derived from the same column definitions as docs/tables.md, published next to the data
 * (`<report>/tables/<table>/_schema.json`) and in the manifest, and committed under schemas/ as the
 * contract: test/shared/report/manifest/table-schemas.test.ts fails when the code drifts from the committed
 * file without the version bump the change needs.
 *
 * Types are Hive/Athena type names, because those are what a Glue table declares and what every
 * engine above maps from; the Parquet writer maps each to its physical type.
 */
import type { Column, ColumnType } from './table';

export type SchemaType = 'string' | 'bigint' | 'double' | 'boolean' | 'date' | 'timestamp' | 'array<string>';

export interface SchemaColumn {
  readonly name: string;
  readonly type: SchemaType;
  readonly nullable: boolean;
  readonly description: string;
}

export interface TableSchema {
  readonly table: string;
  /** `MAJOR.MINOR`: an added column bumps MINOR; a removed or retyped column is breaking and bumps MAJOR. */
  readonly version: string;
  readonly columns: readonly SchemaColumn[];
}

/**
 * How each column type is stored for machines: raw values, no spreadsheet conventions. Percent
 * becomes a fraction (0.45) as in the workbook, not 0-100 as in the CSV; a link becomes its URL.
 */
export const SCHEMA_TYPES: Readonly<Record<ColumnType, SchemaType>> = {
  text: 'string',
  link: 'string',
  integer: 'bigint',
  number: 'double',
  percent: 'double',
  date: 'date',
  datetime: 'timestamp',
  boolean: 'boolean',
  list: 'array<string>',
};

/** Columns every machine table carries after its own: which run wrote the row, and when. */
export const RUN_COLUMNS: readonly SchemaColumn[] = [
  { name: 'run_id', type: 'string', nullable: false, description: 'Id of the export run that wrote the row (also the run= partition)' },
  { name: 'exported_at', type: 'timestamp', nullable: false, description: 'Start of that run (UTC)' },
];

export function schemaColumn(column: Column): SchemaColumn {
  // Every data column may be empty: the API omits fields freely (docs/simulator.md, "Omitted fields").
  return { name: column.key, type: SCHEMA_TYPES[column.type], nullable: true, description: column.description };
}

export function tableSchema(table: string, version: string, columns: readonly Column[]): TableSchema {
  return { table, version, columns: [...columns.map(schemaColumn), ...RUN_COLUMNS] };
}

const VERSION = /^(\d+)\.(\d+)$/;

export function parseSchemaVersion(version: string): { major: number; minor: number } | undefined {
  const match = VERSION.exec(version);
  return match ? { major: Number(match[1]), minor: Number(match[2]) } : undefined;
}

export type SchemaChange =
  | { readonly kind: 'none' }
  | { readonly kind: 'minor'; readonly added: readonly string[] }
  | { readonly kind: 'breaking'; readonly removed: readonly string[]; readonly retyped: readonly string[]; readonly added: readonly string[] };

/**
 * What a change from `before` to `after` is for a reader. Only added columns are compatible
 * (readers select by name); a removed column, a changed type or a column that stopped being
 * nullable breaks a query or a Glue table. A changed description or order is no change.
 */
export function classifySchemaChange(before: TableSchema, after: TableSchema): SchemaChange {
  const old = new Map(before.columns.map((c) => [c.name, c]));
  const now = new Map(after.columns.map((c) => [c.name, c]));
  const added = [...now.keys()].filter((n) => !old.has(n));
  const removed = [...old.keys()].filter((n) => !now.has(n));
  const retyped = [...now.values()]
    .filter((c) => {
      const previous = old.get(c.name);
      return previous !== undefined && (previous.type !== c.type || (previous.nullable && !c.nullable));
    })
    .map((c) => c.name);
  if (removed.length > 0 || retyped.length > 0) return { kind: 'breaking', removed, retyped, added };
  if (added.length > 0) return { kind: 'minor', added };
  return { kind: 'none' };
}

/**
 * The problem with publishing `after` as the successor of `before`, or undefined when its version
 * says what the change is: the same version for no change, a higher MINOR (same MAJOR) for added
 * columns, a higher MAJOR for a breaking change.
 */
export function versionProblem(before: TableSchema, after: TableSchema): string | undefined {
  const from = parseSchemaVersion(before.version);
  const to = parseSchemaVersion(after.version);
  if (!from || !to) return `schema versions must be MAJOR.MINOR, got "${before.version}" → "${after.version}"`;
  const change = classifySchemaChange(before, after);
  const name = `table "${after.table}"`;
  switch (change.kind) {
    case 'none':
      return from.major === to.major && from.minor === to.minor
        ? undefined
        : `${name}: the columns did not change, so the version must stay ${before.version} (got ${after.version})`;
    case 'minor':
      return to.major === from.major && to.minor > from.minor
        ? undefined
        : `${name}: added column(s) ${change.added.join(', ')} need a minor version bump: ${from.major}.${from.minor + 1} (got ${after.version})`;
    case 'breaking': {
      const what = [
        change.removed.length > 0 ? `removed ${change.removed.join(', ')}` : '',
        change.retyped.length > 0 ? `retyped ${change.retyped.join(', ')}` : '',
      ].filter(Boolean).join('; ');
      return to.major > from.major
        ? undefined
        : `${name}: a breaking change (${what}) needs a major version bump: ${from.major + 1}.0 (got ${after.version})`;
    }
  }
}
