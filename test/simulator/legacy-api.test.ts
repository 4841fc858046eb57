// The simulator's contract shapes: pinned to the contract vocabulary (vocabulary.test.ts covers 'docs').
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  boardItemSchema,
  boardSchema,
  collectionSchema,
  piObjectiveGroupSchema,
  sprintSchema,
  statusesSchema,
  teamSchema,
} from '../../shared/planning-api/schemas';
import { client } from '../../simulator/http-helpers';
import { DEFAULT_ITEM_FIELDS, startSimulator, type RunningSimulator, type SimBoard } from '../../simulator/index';

let sim: RunningSimulator;
let admin: ReturnType<typeof client>;

beforeAll(async () => {
  sim = await startSimulator({ tenant: 'demo', seed: 11, vocabulary: 'contract' });
  admin = client(sim);
});
afterAll(async () => {
  await sim.close();
});

const boardWhere = (p: (b: SimBoard) => boolean): SimBoard => {
  const board = sim.tenant.boards.find(p);
  if (!board) throw new Error('no such board in the demo tenant');
  return board;
};

interface Sub {
  storyPoints?: number;
  status: { category: string };
  teamsAndSprints?: unknown[];
}
interface Linked extends Sub {
  subItems?: Sub[];
}
interface Objective {
  completion: number | null;
  bvPlan: number;
  bvActual: number;
  linkedItems?: Linked[];
}

const r2 = (x: number): number => Math.round(x * 100) / 100;
const pct = (part: number, total: number): number => r2((part / total) * 100);
const done = (x: Sub): boolean => x.status.category === 'Done';

/** completionType formulas (docs/simulator.md), recomputed from a response with additionalColumns=1. */
function expected(board: SimBoard, o: Objective, type: number): number | null {
  const linked = o.linkedItems ?? [];
  const subs = linked.flatMap((l) => l.subItems ?? []);
  const mapped = subs.filter((s) => (s.teamsAndSprints ?? []).length > 0);
  const points = (xs: Sub[]): number => xs.reduce((s, x) => s + (x.storyPoints ?? 0), 0);
  switch (type) {
    case 1:
      return linked.length ? pct(linked.filter(done).length, linked.length) : null;
    case 2: {
      const all = [...linked, ...subs];
      return all.length ? pct(all.filter(done).length, all.length) : null;
    }
    case 3: {
      const units = linked.flatMap((l) => (l.subItems?.length ? l.subItems : [l]));
      const total = points(units);
      return total > 0 ? pct(points(units.filter(done)), total) : null;
    }
    case 4:
      return board.hasTeamMappings && mapped.length ? pct(mapped.filter(done).length, mapped.length) : 0;
    case 5: {
      const total = points(mapped);
      return board.hasTeamMappings && total > 0 ? pct(points(mapped.filter(done)), total) : null;
    }
    default:
      return board.okrMode && o.bvPlan > 0 ? r2(Math.min(100, (o.bvActual / o.bvPlan) * 100)) : null;
  }
}

async function groups(boardId: string, query = ''): Promise<{ completion: number | null; objectives: Objective[] }[]> {
  const res = await admin.legacyGet(`objective-groups?boardId=${boardId}&additionalColumns=1${query}`);
  expect(res.status).toBe(200);
  return res.json.data as { completion: number | null; objectives: Objective[] }[];
}

const completions = (gs: { objectives: Objective[] }[]): (number | null)[] => gs.flatMap((g) => g.objectives.map((o) => o.completion));

function expectType(board: SimBoard, gs: { completion: number | null; objectives: Objective[] }[], type: number): void {
  for (const g of gs) {
    const values: number[] = [];
    for (const o of g.objectives) {
      expect(o.completion).toBe(expected(board, o, type));
      if (o.completion !== null) values.push(o.completion);
    }
    expect(g.completion).toBe(values.length ? r2(values.reduce((a, b) => a + b, 0) / values.length) : null);
  }
}

describe('legacy address', () => {
  it('runs on a different port from the v1 address and only serves /api/<companyPrefix>/', async () => {
    expect(new URL(sim.legacyBaseUrl).port).not.toBe(new URL(sim.v1BaseUrl).port);
    expect((await admin.raw(`${sim.v1BaseUrl}/api/acme/collections`)).status).toBe(404);
    expect((await admin.raw(`${sim.legacyBaseUrl}/api/v1/riskregister`)).status).toBe(404);
    expect((await admin.raw(`${sim.legacyBaseUrl}/api/othercompany/collections`)).status).toBe(404);
    expect((await admin.legacyGet('no-such-operation')).status).toBe(404);
  });

  it('answers 401 with an {error} body without or with wrong credentials', async () => {
    const none = await client(sim, undefined, null).legacyGet('collections');
    expect(none.status).toBe(401);
    expect(none.json).toEqual({ error: expect.any(String) });
    expect((await client(sim, undefined, 'Basic bm9ib2R5Om5vcGU=').legacyGet('boards')).status).toBe(401);
  });

  it('lists collections and boards in a data envelope', async () => {
    const cols = await admin.legacyGet('collections');
    expect(cols.json).toEqual({ data: sim.tenant.collections });
    for (const c of cols.json.data) collectionSchema.parse(c);
    const boards = await admin.legacyGet('boards');
    expect(boards.json.data).toEqual(sim.tenant.boards.map((b) => b.record));
    for (const b of boards.json.data) boardSchema.parse(b);
  });

  it('filters boards by plural collectionIds and silently ignores singular collectionId', async () => {
    const [c1, c2] = sim.tenant.collections;
    const inC1 = sim.tenant.boards.filter((b) => b.collectionId === c1!.id).map((b) => b.id);
    const filtered = await admin.legacyGet(`boards?collectionIds=${c1!.id}`);
    expect(filtered.json.data.map((b: { id: string }) => b.id)).toEqual(inC1);
    const both = await admin.legacyGet(`boards?collectionIds=${c1!.id},${c2!.id}`);
    expect(both.json.data).toHaveLength(sim.tenant.boards.length);
    const singular = await admin.legacyGet(`boards?collectionId=${c1!.id}`);
    expect(singular.json.data).toHaveLength(sim.tenant.boards.length);
  });

  it('shows a restricted user only visible boards and collections and 404s hidden boards', async () => {
    const bob = sim.users.find((u) => u.role === 'release-train-engineer')!;
    const view = sim.tenant.visibleTo(bob.email);
    const c = client(sim, bob.email);
    const boards = await c.legacyGet('boards');
    expect(boards.json.data.map((b: { id: string }) => b.id)).toEqual(view.boards.map((b) => b.id));
    expect(view.boards.length).toBeLessThan(sim.tenant.boards.length);
    const cols = await c.legacyGet('collections');
    expect(cols.json.data).toEqual(view.collections);
    const hidden = sim.tenant.boards.find((b) => !view.canSeeBoard(b.id))!;
    expect((await c.legacyPost('items', { boardId: hidden.id })).status).toBe(404);
    expect((await c.legacyGet(`objective-groups?boardId=${hidden.id}`)).status).toBe(404);
    expect((await c.legacyPost('statuses', { boardId: hidden.id })).json).toEqual({ error: expect.any(String) });
  });
});

describe('PI Board Items', () => {
  it('pages items by item offset with a default page size of 50 and an empty page past the end', async () => {
    const board = sim.tenant.boards[0]!;
    const first = await admin.legacyPost('items', { boardId: board.id });
    expect(first.json.data).toHaveLength(50);
    const page = await admin.legacyPost('items', { boardId: board.id, pageStart: 140, pageSize: 100 });
    expect(page.json.data.map((i: { id: string }) => i.id)).toEqual(
      sim.tenant.boardItems(board.id, 140).map((i) => i.id),
    );
    expect((await admin.legacyPost('items', { boardId: board.id, pageStart: 150 })).json).toEqual({ data: [] });
  });

  it('returns the default fields (no stories) when fields is omitted', async () => {
    const board = sim.tenant.boards[1]!;
    const res = await admin.legacyPost('items', { boardId: board.id, pageSize: 20 });
    const full = sim.tenant.boardItems(board.id, 0, 20);
    res.json.data.forEach((item: Record<string, unknown>, i: number) => {
      boardItemSchema.parse(item);
      expect(item.stories).toBeUndefined();
      expect(Object.keys(item).every((k) => DEFAULT_ITEM_FIELDS.includes(k))).toBe(true);
      const { stories: _stories, ...rest } = full[i]!;
      expect(item).toEqual(rest);
    });
  });

  it('restricts items to the listed fields plus id, and children gives stories', async () => {
    const board = sim.tenant.boards[0]!;
    const res = await admin.legacyPost('items', { boardId: board.id, pageSize: 10, fields: ['summary', 'createdOn', 'children'] });
    for (const item of res.json.data) {
      expect(Object.keys(item).sort()).toEqual(['createdOn', 'id', 'stories', 'summary']);
      expect(item.createdOn).toMatch(/^\d{2} [A-Z][a-z]{2}, \d{2}$/);
      for (const story of item.stories) expect(story.parentId).toBe(item.id);
    }
    expect(res.json.data[0].stories.length).toBe(board.storiesPerItem);
    expect(res.json.data[6].stories).toEqual([]); // every 7th item has no stories
  });

  it('rejects a missing boardId, a non-JSON body and a bad fields value with 400', async () => {
    expect((await admin.legacyPost('items', {})).status).toBe(400);
    expect((await admin.legacyPost('items', '{not json')).status).toBe(400);
    expect((await admin.legacyPost('items', { boardId: '1000', fields: 'summary' })).status).toBe(400);
    expect((await admin.legacyPost('items', { boardId: '1000' }, 'text/plain')).status).toBe(400);
    expect((await admin.legacyGet('items')).status).toBe(405);
  });

  it('serves sprints, teams and statuses; statuses without a data key', async () => {
    const withTeams = boardWhere((b) => b.hasTeamMappings);
    const sprints = await admin.legacyPost('sprints', { boardId: withTeams.id });
    for (const s of sprints.json.data) sprintSchema.parse(s);
    expect(sprints.json.data.filter((s: { isIPSprint: boolean }) => s.isIPSprint)).toHaveLength(1);
    const teams = await admin.legacyPost('teams', { boardId: withTeams.id });
    expect(teams.json.data.length).toBeGreaterThan(0);
    for (const t of teams.json.data) teamSchema.parse(t);
    const noTeams = boardWhere((b) => !b.hasTeamMappings);
    expect((await admin.legacyPost('teams', { boardId: noTeams.id })).json).toEqual({ data: [] });

    const statuses = await admin.legacyPost('statuses', { boardId: withTeams.id });
    expect(Object.keys(statuses.json).sort()).toEqual(['childrenStatuses', 'parentStatuses']);
    statusesSchema.parse(statuses.json);
    const items = await admin.legacyPost('items', { boardId: withTeams.id, pageSize: 150, fields: ['status', 'children', 'teamsAndSprints'] });
    const parentTitles = new Set(statuses.json.parentStatuses.map((s: { title: string }) => s.title));
    const childTitles = new Set(statuses.json.childrenStatuses.map((s: { title: string }) => s.title));
    const sprintTitles = new Set(sprints.json.data.map((s: { title: string }) => s.title));
    const teamTitles = new Set(teams.json.data.map((t: { title: string }) => t.title));
    for (const item of items.json.data) {
      expect(parentTitles.has(item.status)).toBe(true);
      for (const s of item.stories) expect(childTitles.has(s.status)).toBe(true);
      for (const ts of item.teamsAndSprints ?? []) {
        expect(sprintTitles.has(ts.sprint)).toBe(true);
        expect(teamTitles.has(ts.team)).toBe(true);
      }
    }
  });

  it('gives extA boards extCId and extB boards PRJ-123 style external keys', async () => {
    const a = boardWhere((b) => b.trackerFamily === 'extA');
    const b = boardWhere((x) => x.trackerFamily === 'extB');
    const itemsA = (await admin.legacyPost('items', { boardId: a.id, pageSize: 5 })).json.data;
    const itemsB = (await admin.legacyPost('items', { boardId: b.id, pageSize: 5 })).json.data;
    for (const i of itemsA) expect(i.extCId).toEqual(expect.any(String));
    for (const i of itemsB) {
      expect(i.extCId).toBeUndefined();
      expect(i.externalKey).toMatch(/^[A-Z0-9]+-\d+$/);
    }
  });
});

describe('PI Objectives', () => {
  it('serves objective groups that satisfy the client schema; extA vs extB linked-item fields', async () => {
    for (const board of sim.tenant.boards) {
      const gs = await groups(board.id);
      const linked = gs.flatMap((g) => g.objectives.flatMap((o) => o.linkedItems ?? [])) as unknown as Record<string, unknown>[];
      expect(linked.length).toBeGreaterThan(0);
      for (const g of gs) piObjectiveGroupSchema.parse(g);
      for (const item of linked) {
        const subs = (item.subItems ?? []) as Record<string, unknown>[];
        for (const x of [item, ...subs]) {
          if (board.trackerFamily === 'extA') {
            expect(x).toMatchObject({ extAId: expect.any(String), extAURL: expect.any(String), extAItemTypeIcon: expect.any(String) });
            expect(x.extBId).toBeUndefined();
          } else {
            expect(x).toMatchObject({ extBId: expect.any(String), extBIssueTypeId: expect.any(String) });
            expect(x.extBKey).toMatch(/^[A-Z0-9]+-\d+$/);
            expect(x.extAURL).toBeUndefined();
            expect(x.extAItemTypeIcon).toBeUndefined();
            expect(x.extAId).toBeUndefined();
          }
        }
      }
    }
  });

  it('adds teamsAndSprints with epoch-millisecond sprint dates only with additionalColumns=1', async () => {
    const board = boardWhere((b) => b.hasTeamMappings);
    const without = await admin.legacyGet(`objective-groups?boardId=${board.id}`);
    const zero = await admin.legacyGet(`objective-groups?boardId=${board.id}&additionalColumns=0`);
    expect(zero.text).toBe(without.text);
    expect(without.text).not.toContain('teamsAndSprints');
    const gs = await groups(board.id);
    const items = gs.flatMap((g) => g.objectives.flatMap((o) => o.linkedItems ?? []));
    const all = items.flatMap((l) => [l, ...(l.subItems ?? [])]);
    for (const x of all) expect(Array.isArray(x.teamsAndSprints)).toBe(true);
    const entries = all.flatMap((x) => x.teamsAndSprints ?? []) as {
      sequence: number;
      team: { id: string; color: string };
      sprint: { startDate: number; endDate: number; isIPSprint: boolean };
    }[];
    expect(entries.length).toBeGreaterThan(0);
    for (const e of entries) {
      expect(Number.isInteger(e.sprint.startDate)).toBe(true);
      expect(e.sprint.startDate).toBeGreaterThan(Date.UTC(2020, 0, 1));
      expect(e.sprint.endDate).toBeGreaterThan(e.sprint.startDate);
      expect(e.team.color).toMatch(/^#[0-9A-F]{6}$/i);
    }
  });

  it('rule 1: OKR mode off and completionType omitted uses type 2', async () => {
    const board = boardWhere((b) => !b.okrMode && b.hasTeamMappings);
    const omitted = await groups(board.id);
    expectType(board, omitted, 2);
    expect(completions(omitted)).toEqual(completions(await groups(board.id, '&completionType=2')));
    expect(completions(omitted)).not.toEqual(completions(await groups(board.id, '&completionType=1')));
  });

  it('rules 2 and 3: OKR mode on uses the OKR formula when omitted or 6', async () => {
    const board = boardWhere((b) => b.okrMode && b.hasTeamMappings);
    const omitted = await groups(board.id);
    expectType(board, omitted, 6);
    expectType(board, await groups(board.id, '&completionType=6'), 6);
  });

  it('rule 4: OKR mode on with completionType 1 to 5 uses the given calculation, and each differs', async () => {
    const board = boardWhere((b) => b.okrMode && b.hasTeamMappings);
    const seen = new Set<string>();
    for (const type of [1, 2, 3, 4, 5, 6]) {
      const gs = await groups(board.id, `&completionType=${type}`);
      expectType(board, gs, type);
      seen.add(JSON.stringify(completions(gs)));
    }
    expect(seen.size).toBe(6);
  });

  it('rule 5: an unrecognised completionType falls back to the board default', async () => {
    const off = boardWhere((b) => !b.okrMode);
    const on = boardWhere((b) => b.okrMode);
    for (const bad of ['7', 'abc', '0', '2.5', '']) {
      expectType(off, await groups(off.id, `&completionType=${bad}`), 2);
      expectType(on, await groups(on.id, `&completionType=${bad}`), 6);
    }
    expect(sim.tenant.effectiveCompletionType(off.id, 'abc')).toBe(2);
    expect(sim.tenant.effectiveCompletionType(on.id, undefined)).toBe(6);
  });

  it('rule 6: 4 and 5 without team mappings give 0 and null; 6 with OKR mode off gives null', async () => {
    const noTeams = boardWhere((b) => !b.hasTeamMappings);
    const four = await groups(noTeams.id, '&completionType=4');
    expect(new Set(completions(four))).toEqual(new Set([0]));
    const five = await groups(noTeams.id, '&completionType=5');
    expect(new Set(completions(five))).toEqual(new Set([null]));
    expect(five.every((g) => g.completion === null)).toBe(true);
    const off = boardWhere((b) => !b.okrMode);
    expect(new Set(completions(await groups(off.id, '&completionType=6')))).toEqual(new Set([null]));
  });

  it('exposes the same result through tenant.piObjectiveGroups', async () => {
    const board = sim.tenant.boards[3]!;
    const res = await admin.legacyGet(`objective-groups?boardId=${board.id}&completionType=3`);
    expect(res.json.data).toEqual(sim.tenant.piObjectiveGroups(board.id, '3', false));
  });

  it('requires boardId on objective-groups and answers 404 for an unknown board', async () => {
    expect((await admin.legacyGet('objective-groups')).status).toBe(400);
    expect((await admin.legacyGet('objective-groups?boardId=424242')).status).toBe(404);
  });
});
