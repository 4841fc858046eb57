import { describe, expect, it } from 'vitest';
import { labelled } from '../../../../shared/report/tables/labels';
import { OKR_COLUMNS } from '../../../../shared/report/tables/okrs/okrs-columns';
import { tablesOf } from '../../../../shared/report/tables/registry';
import { customColumns, RISK_COLUMNS } from '../../../../shared/report/tables/risks/risks';

const TABLES = tablesOf().map((t) => [t.name, t] as const);

describe('workbook labels', () => {
  it.each(TABLES)('every column of %s has a label, unique within the table, and its sheet its title', (name, entry) => {
    const table = labelled({ name, columns: entry.contract.columns });
    const labels = table.columns.map((c) => c.label);
    expect(labels.every((l) => typeof l === 'string' && l.length > 0 && !/_/.test(l))).toBe(true);
    expect(new Set(labels).size).toBe(labels.length);
    expect(table.title).toBe(entry.title);
  });

  it('keeps ids and keys on one line and indents the titles of a hierarchy', () => {
    const okrs = labelled({ name: 'okrs', columns: OKR_COLUMNS }).columns;
    expect(okrs.filter((c) => c.nowrap).map((c) => c.key)).toEqual(['strategic_theme_key', 'id', 'key', 'parent_id', 'status_id']);
    expect(okrs.filter((c) => c.indentByLevel).map((c) => c.key)).toEqual(['title']);
  });

  it('hides internal ids and colour codes, keeps what people read visible', () => {
    const risks = labelled({ name: 'risks', columns: RISK_COLUMNS }).columns;
    const hidden = risks.filter((c) => c.hidden).map((c) => c.key);
    expect(hidden).toEqual(['id', 'risk_level_color', 'register_id', 'status_id', 'responsible_id', 'watcher_ids', 'linked_item_ids', 'team_ids', 'sprint_ids', 'register_status']);
    expect(risks.find((c) => c.key === 'key')?.label).toBe('Risk');
    expect(risks.find((c) => c.key === 'responsible')?.label).toBe('Owner');
    expect(labelled({ name: 'okrs', columns: OKR_COLUMNS }).columns.find((c) => c.key === 'bv_plan')?.label).toBe('Planned BV');
  });

  it('sheet titles are valid Excel sheet names', () => {
    for (const { title } of tablesOf()) {
      expect(title.length).toBeLessThanOrEqual(31);
      expect(title).not.toMatch(/[[\]:*?/\\]/);
    }
  });

  it('a custom-field column is headed by the field title, its key stays snake_case', () => {
    const [column] = customColumns([
      { id: 'r1', customFields: [{ id: 'f1', title: 'Cost Impact (kEUR)', type: 'number', value: 5 }] },
    ] as never);
    const shown = labelled({ name: 'risks', columns: [column!.column] }).columns[0]!;
    expect(shown.key).toBe('cf_cost_impact_keur');
    expect(shown.label).toBe('Cost Impact (kEUR)');
  });
});
