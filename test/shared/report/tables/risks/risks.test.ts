import { describe, expect, it } from 'vitest';
import type { Risk } from '../../../../../shared/planning-api/schemas';
import { customColumns, riskRow, RISK_COLUMNS } from '../../../../../shared/report/tables/risks/risks';
import { customValue, customValueText } from '../../../../../shared/report/tables/risks/risk-custom-values';

const risk = (fields: Risk['customFields']): Risk => ({ id: 'r1', customFields: fields });

describe('custom field rendering', () => {
  it('renders userpicker values as the full name and lists readably, never [object Object]', () => {
    expect(customValueText({ id: 'u1', fullName: 'Zoë Müller' })).toBe('Zoë Müller');
    expect(customValueText([{ title: 'A' }, 'B', 3])).toBe('A; B; 3');
    expect(customValueText({ unexpected: { nested: true } })).toBe('{"unexpected":{"nested":true}}');
    expect(customValueText(null)).toBeNull();
  });

  it('types number, date and checkbox fields', () => {
    expect(customValue({ id: 'f', value: '12.5' }, 'number')).toBe(12.5);
    expect(customValue({ id: 'f', value: 'n/a' }, 'number')).toBe('n/a');
    expect((customValue({ id: 'f', value: '05-Mar-2026' }, 'date') as Date).toISOString()).toBe('2026-03-05T00:00:00.000Z');
    expect(customValue({ id: 'f', value: true }, 'boolean')).toBe(true);
  });

  it('derives one column per title, sorted, with unique snake_case keys', () => {
    const columns = customColumns([
      risk([{ id: '1', title: 'Cost Centre', type: 'singleselect', value: 'X' }]),
      risk([
        { id: '2', title: 'Owner', type: 'userpicker', value: { id: 'u', fullName: 'A' } },
        { id: '3', title: 'cost-centre', type: 'number', value: 1 },
      ]),
    ]);
    expect(columns.map((c) => [c.title, c.column.key, c.column.type])).toEqual([
      ['Cost Centre', 'cf_cost_centre', 'text'],
      ['Owner', 'cf_owner', 'text'],
      ['cost-centre', 'cf_cost_centre_2', 'number'],
    ]);
  });

  it('places custom values under their columns and fills the risk level cell', () => {
    const r: Risk = {
      id: 'r9',
      key: 'RR-9',
      riskLevel: { title: 'High', color: '#ff0000' },
      customFields: [{ id: '2', title: 'Owner', type: 'userpicker', value: { id: 'u', fullName: 'Ann Lee' } }],
    };
    const columns = customColumns([r]);
    const row = riskRow({ id: 'reg', key: 'RR', title: 'Register' }, r, columns, new Date('2026-11-23T00:00:00Z'));
    expect(row.values.length).toBe(RISK_COLUMNS.length + 1);
    expect(row.values[RISK_COLUMNS.length]).toBe('Ann Lee');
    expect(row.fill).toEqual({ column: RISK_COLUMNS.findIndex((c) => c.key === 'risk_level'), color: '#ff0000' });
  });
});
