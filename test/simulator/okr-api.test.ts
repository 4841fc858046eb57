// The simulator's contract shapes: pinned to the contract vocabulary (vocabulary.test.ts covers 'docs').
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  keyResultSchema,
  okrObjectiveGroupSchema,
  okrObjectiveSchema,
  portfolioThemeSchema,
  strategicThemeSchema,
  themeProgressSchema,
} from '../../shared/planning-api/schemas';
import { client } from '../../simulator/http-helpers';
import { startSimulator, type RunningSimulator } from '../../simulator/index';

let sim: RunningSimulator;
let admin: ReturnType<typeof client>;

beforeAll(async () => {
  sim = await startSimulator({ tenant: 'demo', seed: 5, vocabulary: 'contract' });
  admin = client(sim);
});
afterAll(async () => {
  await sim.close();
});

const ids = (records: { id: string }[]): string[] => records.map((r) => r.id);

describe('Strategic Themes & OKRs envelopes', () => {
  it('lists portfolio themes in a capital-D Data envelope with paging fields', async () => {
    const res = await admin.v1('portfolio-themes?fields=all');
    expect(Object.keys(res.json)).toEqual(['startAt', 'pageLimit', 'total', 'Data']);
    expect(res.json.data).toBeUndefined();
    expect(res.json.Data).toEqual(sim.tenant.portfolioThemes);
    for (const t of res.json.Data) portfolioThemeSchema.parse(t);
  });

  it('returns single records as a one-element Data array, by key or by id', async () => {
    const theme = sim.tenant.strategicThemes[2]!;
    const byKey = await admin.v1(`strategic-themes/${theme.key}?fields=all`);
    const byId = await admin.v1(`strategic-themes/${theme.id}?fields=all`);
    expect(byKey.json).toEqual({ Data: [theme] });
    expect(byId.text).toBe(byKey.text);
    strategicThemeSchema.parse(byKey.json.Data[0]);

    const pt = sim.tenant.portfolioThemes[1]!;
    expect((await admin.v1(`portfolio-themes/${pt.key}`)).json).toEqual({ Data: [{ id: pt.id, key: pt.key, title: pt.title }] });
  });

  it('returns progress as a Data object mapping each group id to its completion', async () => {
    const theme = sim.tenant.strategicThemes[0]!;
    const groups = sim.tenant.objectiveGroupsOf(theme.id);
    const res = await admin.v1(`strategic-themes/${theme.key}/progress`);
    expect(Array.isArray(res.json.Data)).toBe(false);
    themeProgressSchema.parse(res.json.Data);
    expect(Object.keys(res.json.Data.groupsProgress)).toEqual(ids([...groups]));
    const mean = groups.reduce((s, g) => s + g.completionPct, 0) / groups.length;
    expect(res.json.Data.themeProgress).toBeCloseTo(mean, 1);
    for (const g of groups) expect(res.json.Data.groupsProgress[g.id]).toBe(g.completionPct);
  });

  it('drills down themes, groups, objectives and key results with levels and types', async () => {
    const theme = sim.tenant.strategicThemes[0]!;
    const groups = await admin.v1(`strategic-themes/${theme.id}/objective-groups?fields=all`);
    expect(groups.json.total).toBe(2);
    const group = okrObjectiveGroupSchema.parse(groups.json.Data[0]);
    expect(group).toMatchObject({ level: 1, type: 'Objective Group' });

    const objectives = await admin.v1(`objective-groups/${group.id}/objectives?fields=all`);
    expect(objectives.json.total).toBe(group.objectivesCount);
    const objective = okrObjectiveSchema.parse(objectives.json.Data[0]);
    expect(objective).toMatchObject({ level: 2, type: 'Objective', groupName: group.title });

    const krs = await admin.v1(`objectives/${objective.key}/key-results?fields=all`);
    expect(krs.json.total).toBe(objective.keyResultsCount);
    for (const kr of krs.json.Data) {
      keyResultSchema.parse(kr);
      expect(kr).toMatchObject({ level: 3, type: 'Key Result' });
      if (kr.criteria === 'Target') {
        const { baseline, target, current } = kr.metric;
        const expected = Math.max(0, Math.min(100, ((current - baseline) / (target - baseline)) * 100));
        expect(kr.completionPct).toBeCloseTo(expected, 1);
        expect(kr.status).toBeUndefined();
      } else {
        expect(kr.criteria).toBe('By Items');
        expect(kr.metric).toBeUndefined();
      }
    }
    const mean = krs.json.Data.reduce((s: number, k: { completionPct: number }) => s + k.completionPct, 0) / krs.json.total;
    expect(objective.completionPct).toBeCloseTo(mean, 1);

    const one = await admin.v1(`key-results/${krs.json.Data[0].key}`);
    expect(Object.keys(one.json.Data[0]).sort()).toEqual(['id', 'key', 'level', 'title', 'type']);
    expect((await admin.v1(`objectives/${objective.id}`)).json.Data[0].key).toBe(objective.key);
  });

  it('returns minimal fields without fields and only id, key, title for themes inside a portfolio theme', async () => {
    const themes = await admin.v1('strategic-themes');
    for (const t of themes.json.Data) expect(Object.keys(t).sort()).toEqual(['id', 'key', 'title']);
    const pt = sim.tenant.portfolioThemes[0]!;
    const inside = await admin.v1(`portfolio-themes/${pt.key}/strategic-themes?fields=all`);
    expect(inside.json.total).toBe(3);
    for (const t of inside.json.Data) expect(Object.keys(t).sort()).toEqual(['id', 'key', 'title']);
    const listed = await admin.v1('strategic-themes?fields=title,owners');
    for (const t of listed.json.Data) expect(Object.keys(t).sort()).toEqual(['id', 'owners', 'title']);
  });

  it('pages strategic themes and caps pageLimit at 50', async () => {
    const res = await admin.v1('strategic-themes?startAt=4&pageLimit=99');
    expect(res.json).toMatchObject({ startAt: 4, pageLimit: 50, total: 6 });
    expect(ids(res.json.Data)).toEqual(ids(sim.tenant.strategicThemes.slice(4)));
  });
});

describe('Strategic Themes & OKRs 404s and visibility', () => {
  it('answers 404 for unknown keys or ids of every get and child list', async () => {
    for (const path of [
      'portfolio-themes/PT-99',
      'portfolio-themes/PT-99/strategic-themes',
      'strategic-themes/ST-99',
      'strategic-themes/nope/objective-groups',
      'strategic-themes/nope/progress',
      'objective-groups/nope/objectives',
      'objectives/OBJ-9999',
      'objectives/OBJ-9999/key-results',
      'key-results/KR-9999',
    ]) {
      const res = await admin.v1(path);
      expect(res.status, path).toBe(404);
      expect(res.json).toEqual({ errorMessages: [expect.any(String)] });
    }
  });

  it('hides strategic themes and everything below them from users who may not see them', async () => {
    const alice = sim.users.find((u) => u.role === 'risk-manager')!;
    const view = sim.tenant.visibleTo(alice.email);
    const c = client(sim, alice.email);
    const themes = await c.v1('strategic-themes');
    expect(ids(themes.json.Data)).toEqual(ids([...view.strategicThemes]));
    expect(view.strategicThemes.length).toBeLessThan(sim.tenant.strategicThemes.length);
    const hidden = sim.tenant.strategicThemes.find((t) => !view.canSeeStrategicTheme(t.id))!;
    expect((await c.v1(`strategic-themes/${hidden.key}`)).status).toBe(404);
    const group = sim.tenant.objectiveGroupsOf(hidden.id)[0]!;
    expect((await c.v1(`objective-groups/${group.id}/objectives`)).status).toBe(404);
    const objective = sim.tenant.objectivesOf(group.id)[0]!;
    expect((await c.v1(`objectives/${objective.key}`)).status).toBe(404);
    expect((await c.v1(`key-results/${sim.tenant.keyResultsOf(objective.id)[0]!.key}`)).status).toBe(404);
    const portfolios = await c.v1('portfolio-themes');
    expect(ids(portfolios.json.Data)).toEqual(ids([...view.portfolioThemes]));
  });
});
