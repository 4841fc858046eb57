import { describe, expect, it } from 'vitest';
import { FieldAudit, mergeFigures, operatorFindings, ROWS, type FieldShape } from '../../../../shared/report/dataset/field-audit';
import { KEY_RESULT_SHAPE, OKR_OBJECTIVE_SHAPE, OKR_TABLE, STRATEGIC_THEME_TABLE, THEME_SHAPE } from '../../../../shared/report/tables/okrs/okrs-columns';

const SHAPE: FieldShape = { id: true, title: true, children: { id: true, summary: true }, meta: { color: true } };

describe('field audit', () => {
  it('counts fields no column holds, in nested records and arrays, one count per record', () => {
    const audit = new FieldAudit();
    audit.check('t', { id: '1', title: 'a', extra: 1, children: [{ id: 'c', summary: 's', rank: 2 }, { id: 'd', rank: 3 }], meta: { color: '#f00', shade: 'x' } }, SHAPE);
    audit.check('t', { id: '2', extra: 0, empty: '', nothing: null, children: 'text, not a list' }, SHAPE);
    expect(audit.figures()).toEqual({
      unexportedFields: { t: [{ path: 'children[].rank', records: 2 }, { path: 'extra', records: 2 }, { path: 'meta.shade', records: 1 }] },
    });
  });

  it('walks a reference down to its leaves: a record where a column reads one value lists its other fields, its id included', () => {
    const audit = new FieldAudit();
    const record = { id: '1', status: { status: 'Open', id: 's1' }, watchers: [{ name: 'Ann', id: 'u1' }, { name: 'Bo', id: 'u2' }], tags: ['a', 'b'] };
    audit.check('t', record, { id: true, status: true, watchers: { name: true } });
    audit.check('u', record, { id: true, status: { status: true, id: true }, watchers: { name: true, id: true }, tags: true });
    expect(audit.figures()).toEqual({
      unexportedFields: {
        t: [
          { path: 'status.id', records: 1 }, { path: 'status.status', records: 1 }, { path: 'tags', records: 1 },
          { path: 'watchers[].id', records: 2 },
        ],
      },
    });
  });

  it('leaves records with rows of their own to their own check, and names a record read beside the row by its prefix', () => {
    const audit = new FieldAudit();
    audit.check('t', { id: '1', items: [{ id: 'i', rank: 1 }] }, { id: true, items: ROWS });
    audit.check('t', { id: 'b', title: 'Board', state: { id: 'st', title: 'Tracking' }, isPinned: true }, { id: true, title: true, state: { title: true } }, 'board.');
    expect(audit.figures()).toEqual({
      unexportedFields: { t: [{ path: 'board.isPinned', records: 1 }, { path: 'board.state.id', records: 1 }] },
    });
  });

  it('gives the reason of a field the table leaves out on purpose; operators hear only of the fields nobody expected', () => {
    const audit = new FieldAudit({ t: { 'team.color': 'presentation only' } });
    audit.check('t', { id: '1', team: { title: 'A', color: '#fff' }, rank: 3 }, { id: true, team: { title: true } });
    expect(audit.figures()).toEqual({
      unexportedFields: { t: [{ path: 'rank', records: 1 }, { path: 'team.color', records: 1, reason: 'presentation only' }] },
    });
    expect(operatorFindings(audit.figures())).toEqual(['t: rank']);
    const declaredOnly = new FieldAudit({ t: { 'team.color': 'presentation only' } });
    declaredOnly.check('t', { id: '1', team: { color: '#fff' } }, { id: true, team: {} });
    expect(operatorFindings(declaredOnly.figures())).toEqual([]);
  });

  it('says nothing when every field has a column', () => {
    const audit = new FieldAudit();
    audit.check('t', { id: '1', title: 'a' }, SHAPE);
    expect(audit.figures()).toEqual({});
    expect(operatorFindings(audit.figures())).toEqual([]);
  });

  it('counts values of another shape among the findings for operators, the fields no column holds beside them', () => {
    const audit = new FieldAudit();
    audit.check('board-items', { id: '1', kendisScore: 4 }, SHAPE);
    audit.warn('board-items', 'teamsAndSprints', 'text where a list was expected');
    audit.warn('board-items', 'teamsAndSprints', 'text where a list was expected');
    expect(audit.figures().shapeWarnings).toEqual({ 'board-items': [{ path: 'teamsAndSprints', problem: 'text where a list was expected', records: 2 }] });
    expect(operatorFindings(audit.figures())).toEqual(['board-items: kendisScore', 'board-items: teamsAndSprints (text where a list was expected)']);
  });

  it('merges the per-table lists of several datasets and keeps their other figures', () => {
    expect(
      mergeFigures([
        { unexportedFields: { risks: [{ path: 'score', records: 2 }] }, risk: { total: 2 } },
        { unexportedFields: { okrs: [{ path: 'x', records: 1 }] }, shapeWarnings: { okrs: [] }, okr: { groups: 1 } },
      ]),
    ).toEqual({
      unexportedFields: { risks: [{ path: 'score', records: 2 }], okrs: [{ path: 'x', records: 1 }] },
      shapeWarnings: { okrs: [] },
      risk: { total: 2 },
      okr: { groups: 1 },
    });
  });
});

describe('strategic themes and OKRs in the docs vocabulary', () => {
  it('exports theme summary, description and colour, group BV and criteria, objective kind and end period', () => {
    const theme = { id: 't1', key: 'ST-1', title: 'Grow', summary: 'Short', description: 'Long\ntext', color: '#336699' };
    const themeRow = STRATEGIC_THEME_TABLE.values({ theme, portfolios: [], owners: null, progress: 40 });
    const at = (name: Parameters<typeof STRATEGIC_THEME_TABLE.indexOf>[0]) => themeRow[STRATEGIC_THEME_TABLE.indexOf(name)];
    expect([at('summary'), at('description'), at('color')]).toEqual(['Short', 'Long\ntext', '#336699']);
    expect(STRATEGIC_THEME_TABLE.columns.find((c) => c.key === 'color')?.hidden).toBe(true);

    const group = { id: 'g1', title: 'Group', bvPlan: 30, bvActual: 12, completionCriteria: 'ROLLUP_BY_STATUS' };
    const groupRow = OKR_TABLE.values({ level: 1, themeKey: 'ST-1', group, groupProgress: null });
    const okr = (row: unknown[], name: Parameters<typeof OKR_TABLE.indexOf>[0]) => row[OKR_TABLE.indexOf(name)];
    expect([okr(groupRow, 'bv_plan'), okr(groupRow, 'bv_actual'), okr(groupRow, 'completion_criteria')]).toEqual([30, 12, 'ROLLUP_BY_STATUS']);
    const objective = { id: 'o1', key: 'OKR-1', objType: 'Committed', timePeriod: 'Q1 2026', endTimePeriod: 'Q2 2026' };
    const objectiveRow = OKR_TABLE.values({ level: 2, themeKey: 'ST-1', group, objective });
    expect([okr(objectiveRow, 'objective_kind'), okr(objectiveRow, 'time_period'), okr(objectiveRow, 'end_time_period')]).toEqual(['Committed', 'Q1 2026', 'Q2 2026']);

    const audit = new FieldAudit();
    audit.check('strategic-themes', theme, THEME_SHAPE);
    audit.check('okrs', objective, OKR_OBJECTIVE_SHAPE);
    audit.check('okrs', { id: 'k', metric: { baseline: 1, target: 2, current: 1, unit: '%', trend: 'up' } }, KEY_RESULT_SHAPE);
    expect(audit.figures()).toEqual({ unexportedFields: { okrs: [{ path: 'metric.trend', records: 1 }] } });
  });
});
