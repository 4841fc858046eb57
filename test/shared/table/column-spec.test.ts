import { describe, expect, it } from 'vitest';
import { tableColumns, type ColumnName } from '../../../shared/table/column-spec';
import { changeSpecs } from '../../../shared/report/changes/specs';
import { BOARD_ITEM_COLUMNS } from '../../../shared/report/tables/board-items/board-items';
import { OKR_COLUMNS, STRATEGIC_THEME_COLUMNS } from '../../../shared/report/tables/okrs/okrs-columns';
import { PI_OBJECTIVE_COLUMNS, piObjectiveItemColumns } from '../../../shared/report/tables/pi-objectives/pi-objectives-columns';
import { RISK_COLUMNS } from '../../../shared/report/tables/risks/risks';

interface Person {
  readonly name: string;
  readonly age?: number;
}

const PEOPLE = tableColumns<Person>()([
  { name: 'name', type: 'text', label: 'Name', description: 'Name', read: (p) => p.name },
  { name: 'age', type: 'integer', label: 'Age', description: 'Age', change: { label: 'Age', order: 2 }, read: (p) => p.age ?? null },
  { name: 'person_id', type: 'text', label: 'Id', hidden: true, description: 'Id', change: { label: 'Id', order: 1 }, read: (p) => p.name.toLowerCase() },
]);

describe('column specs', () => {
  it('reads each value by its own column, in column order', () => {
    expect(PEOPLE.columns.map((c) => c.key)).toEqual(['name', 'age', 'person_id']);
    expect(PEOPLE.values({ name: 'Ann', age: 41 })).toEqual(['Ann', 41, 'ann']);
    expect(PEOPLE.values({ name: 'Bo' })).toEqual(['Bo', null, 'bo']);
  });

  it('carries label and presentation into the column', () => {
    expect(PEOPLE.columns[2]).toEqual({ key: 'person_id', type: 'text', description: 'Id', label: 'Id', hidden: true, nowrap: true });
  });

  it('lists tracked columns in comparison order, not column order', () => {
    expect(PEOPLE.tracked).toEqual([{ column: 'person_id', label: 'Id' }, { column: 'age', label: 'Age' }]);
    const name: ColumnName<typeof PEOPLE> = 'age';
    expect(PEOPLE.indexOf(name)).toBe(1);
  });

  it('refuses a name defined twice', () => {
    expect(() =>
      tableColumns<Person>()([
        { name: 'name', type: 'text', label: 'A', description: 'a', read: (p) => p.name },
        { name: 'name', type: 'text', label: 'B', description: 'b', read: (p) => p.name },
      ]),
    ).toThrow('column "name" is defined twice');
  });

  it('every change spec names columns its table has', () => {
    const tables: Record<string, readonly { key: string }[]> = {
      risks: RISK_COLUMNS,
      'strategic-themes': STRATEGIC_THEME_COLUMNS,
      okrs: OKR_COLUMNS,
      'pi-objectives': PI_OBJECTIVE_COLUMNS,
      'pi-objective-items': piObjectiveItemColumns(true),
      'board-items': BOARD_ITEM_COLUMNS,
    };
    for (const spec of changeSpecs()) {
      const keys = new Set(tables[spec.table]!.map((c) => c.key));
      const named = [...spec.key.flat(), ...spec.display, spec.title, spec.scope, ...(spec.link ? [spec.link] : []), ...spec.fields.map((f) => f.column)];
      expect(named.filter((n) => !keys.has(n)), spec.table).toEqual([]);
    }
  });
});
