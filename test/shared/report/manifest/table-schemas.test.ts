import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { schemaFileText, TABLE_SCHEMAS } from '../../../../shared/report/manifest/table-schemas';
import { classifySchemaChange, versionProblem, type TableSchema } from '../../../../shared/table/schema';

const SCHEMAS_DIR = new URL('../../../../schemas/', import.meta.url);
const committed = (table: string): TableSchema => <TableSchema>JSON.parse(readFileSync(new URL(`${table}.json`, SCHEMAS_DIR), 'utf8'));

describe('the schema contract (schemas/<table>.json)', () => {
  it('has one committed file per table, and no file for a table that is gone', () => {
    const files = readdirSync(SCHEMAS_DIR).filter((f) => f.endsWith('.json')).sort();
    expect(files).toEqual(TABLE_SCHEMAS.map((s) => `${s.table}.json`).sort());
  });

  it.each(TABLE_SCHEMAS.map((s) => [s.table, s] as const))(
    '%s: the code changes the columns only with the version bump the change needs',
    (table, schema) => {
      // Fails first when the columns change and the version in shared/report/manifest/table-schemas.ts does not.
      expect(versionProblem(committed(table), schema)).toBeUndefined();
    },
  );

  it.each(TABLE_SCHEMAS.map((s) => [s.table, s] as const))(
    '%s: the committed file is what the code generates (regenerate with npx tsx scripts/table-docs.ts)',
    (table, schema) => {
      expect(readFileSync(new URL(`${table}.json`, SCHEMAS_DIR), 'utf8')).toBe(schemaFileText(schema));
    },
  );
});

describe('schema versioning rules', () => {
  const base: TableSchema = {
    table: 't',
    version: '1.2',
    columns: [
      { name: 'id', type: 'string', nullable: true, description: 'id' },
      { name: 'n', type: 'double', nullable: true, description: 'n' },
    ],
  };
  const withColumns = (version: string, columns: TableSchema['columns']): TableSchema => ({ ...base, version, columns });
  const added = [...base.columns, { name: 'extra', type: 'boolean' as const, nullable: true, description: 'x' }];
  const removed = base.columns.slice(0, 1);
  const retyped = [base.columns[0]!, { ...base.columns[1]!, type: 'bigint' as const }];

  it('an added column is a minor change and needs the next minor version', () => {
    expect(classifySchemaChange(base, withColumns('1.2', added))).toEqual({ kind: 'minor', added: ['extra'] });
    expect(versionProblem(base, withColumns('1.2', added))).toMatch(/added column\(s\) extra need a minor version bump: 1\.3/);
    expect(versionProblem(base, withColumns('1.3', added))).toBeUndefined();
    expect(versionProblem(base, withColumns('2.0', added))).toMatch(/minor version bump/);
  });

  it('a removed or retyped column is breaking and needs the next major version', () => {
    expect(classifySchemaChange(base, withColumns('1.2', removed))).toMatchObject({ kind: 'breaking', removed: ['n'] });
    expect(classifySchemaChange(base, withColumns('1.2', retyped))).toMatchObject({ kind: 'breaking', retyped: ['n'] });
    expect(versionProblem(base, withColumns('1.3', removed))).toMatch(/breaking change \(removed n\) needs a major version bump: 2\.0/);
    expect(versionProblem(base, withColumns('1.2', retyped))).toMatch(/retyped n/);
    expect(versionProblem(base, withColumns('2.0', retyped))).toBeUndefined();
  });

  it('a column that stops being nullable is breaking; a new description is no change', () => {
    const required = [{ ...base.columns[0]!, nullable: false }, base.columns[1]!];
    expect(classifySchemaChange(base, withColumns('1.2', required)).kind).toBe('breaking');
    const described = [{ ...base.columns[0]!, description: 'the id' }, base.columns[1]!];
    expect(versionProblem(base, withColumns('1.2', described))).toBeUndefined();
    expect(versionProblem(base, withColumns('1.3', described))).toMatch(/must stay 1\.2/);
  });
});
