import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basicAuth, client } from '../../simulator/http-helpers';
import {
  docsBoardItem,
  itemDateToEpochMs,
  startSimulator,
  type RunningSimulator,
  type SimBoard,
} from '../../simulator/index';

let docs: RunningSimulator;
let contract: RunningSimulator;

beforeAll(async () => {
  docs = await startSimulator({ tenant: 'demo', seed: 11, vocabulary: 'docs' });
  contract = await startSimulator({ tenant: 'demo', seed: 11, vocabulary: 'contract' });
});
afterAll(async () => {
  await Promise.all([docs.close(), contract.close()]);
});

const boardOf = (sim: RunningSimulator, family: 'extA' | 'extB'): SimBoard => {
  const board = sim.tenant.boards.find((b) => b.trackerFamily === family && b.storiesPerItem > 0 && b.hasTeamMappings);
  if (!board) throw new Error(`no ${family} board with stories and teams in the demo tenant`);
  return board;
};

describe('the docs vocabulary of List board items', () => {
  it('serves azureId, kendisId, epoch-ms dates, a teamsAndSprints string and child items under children with parentDescription', async () => {
    const board = boardOf(docs, 'extA');
    const res = await client(docs).legacyPost('items', { boardId: board.id, fields: ['children', 'azureId', 'kendisId', 'createdOn', 'updatedOn', 'teamsAndSprints', 'summary'] });
    expect(res.status).toBe(200);
    const served = res.json.data as Record<string, unknown>[];
    const expected = docs.tenant.boardItems(board.id, 0, served.length);
    expect(served).toHaveLength(Math.min(50, docs.tenant.boardItemCount(board.id)));
    served.forEach((item, i) => {
      const source = expected[i]!;
      expect(item.id).toBe(source.id);
      expect(item.kendisId).toBe(source.id);
      expect(item.azureId).toBe(source.extCId);
      expect(item).not.toHaveProperty('extCId');
      expect(item).not.toHaveProperty('stories');
      expect(item.createdOn).toBe(itemDateToEpochMs(source.createdOn));
      expect(new Date(item.updatedOn as number).toISOString().slice(0, 10)).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      const children = item.children as Record<string, unknown>[];
      expect(children.map((c) => c.id)).toEqual(source.stories.map((s) => s.id));
      for (const child of children) {
        expect(child.parentDescription).toBe(source.summary);
        expect(child.kendisId).toBe(child.id);
      }
      if (source.teamsAndSprints) {
        expect(typeof item.teamsAndSprints).toBe('string');
        const sprintIds = docs.tenant.sprints(board.id);
        const first = source.teamsAndSprints[0]!;
        const sprintId = sprintIds.find((s) => s.title === first.sprint)!.id;
        expect(item.teamsAndSprints as string).toContain(`${sprintId} & ${first.team}`);
      } else {
        expect(item).not.toHaveProperty('teamsAndSprints');
      }
    });
    expect(served.some((item) => typeof item.teamsAndSprints === 'string')).toBe(true);
  });

  it('answers without fields with the default docs fields and no children', async () => {
    const board = boardOf(docs, 'extA');
    const res = await client(docs).legacyPost('items', { boardId: board.id, pageSize: 3 });
    const item = res.json.data[0] as Record<string, unknown>;
    expect(item).toEqual(Object.fromEntries(Object.entries(docsBoardItem(docs.tenant.boardItem(board.id, 0)!, docs.tenant.sprints(board.id))).filter(([k]) => k !== 'children')));
  });

  it('parses DD Mon, YY as midnight UTC and refuses anything else', () => {
    expect(itemDateToEpochMs('05 Mar, 26')).toBe(Date.UTC(2026, 2, 5));
    expect(() => itemDateToEpochMs('2026-03-05')).toThrow(/DD Mon, YY/);
  });
});

describe('the docs vocabulary of PI objectives', () => {
  it('names the first tracker family tfsId/tfsURL/tfsItemTypeIcon and the second jiraId/jiraKey/jiraIssueTypeId', async () => {
    for (const [family, present, absent] of [
      ['extA', ['tfsId', 'tfsURL', 'tfsItemTypeIcon'], ['extAId', 'jiraId']],
      ['extB', ['jiraId', 'jiraKey', 'jiraIssueTypeId'], ['extBId', 'tfsId', 'tfsURL']],
    ] as const) {
      const board = boardOf(docs, family);
      const res = await client(docs).legacyGet(`objective-groups?boardId=${board.id}&additionalColumns=1`);
      const items = (res.json.data as { objectives: { linkedItems?: Record<string, unknown>[] }[] }[])
        .flatMap((g) => g.objectives)
        .flatMap((o) => o.linkedItems ?? []);
      expect(items.length).toBeGreaterThan(0);
      for (const item of items) {
        for (const name of present) expect(item, `${family} ${name}`).toHaveProperty(name);
        for (const name of absent) expect(item).not.toHaveProperty(name);
        for (const sub of (item.subItems as Record<string, unknown>[] | undefined) ?? []) {
          expect(sub).toHaveProperty(present[0]);
          expect(sub).not.toHaveProperty(absent[0]);
        }
      }
      const contractItems = (await client(contract).legacyGet(`objective-groups?boardId=${board.id}&additionalColumns=1`)).json.data[0].objectives
        .flatMap((o: { linkedItems?: Record<string, unknown>[] }) => o.linkedItems ?? []);
      expect(contractItems[0]?.[family === 'extA' ? 'extAId' : 'extBId']).toBe(items[0]?.[present[0]]);
    }
  });
});

describe('the docs vocabulary of the OKR API', () => {
  it('adds theme color/summary/description, group bvPlan/bvActual/completionCriteria and objective objType', async () => {
    const theme = (await client(docs).v1('strategic-themes?fields=all')).json.Data[0];
    expect(theme.color).toMatch(/^#[0-9A-F]{6}$/i);
    expect(theme.summary).toEqual(expect.any(String));
    expect(theme.description).toEqual(expect.any(String));
    expect(theme).not.toHaveProperty('colorCode');
    const groups = (await client(docs).v1(`strategic-themes/${theme.key}/objective-groups?fields=all`)).json.Data;
    const group = groups[0];
    const objectives = docs.tenant.objectivesOf(group.id);
    expect(group.bvPlan).toBe(objectives.reduce((sum, o) => sum + o.bvPlan, 0));
    expect(group.bvActual).toBe(objectives.reduce((sum, o) => sum + (o.bvActual ?? 0), 0));
    expect(group.completionCriteria).toBe('ROLLUP_BY_STATUS');
    const served = (await client(docs).v1(`objective-groups/${group.id}/objectives?fields=all`)).json.Data;
    for (const objective of served) expect(['Committed', 'Uncommitted']).toContain(objective.objType);
    const all = docs.tenant.strategicThemes.flatMap((t) => docs.tenant.objectiveGroupsOf(t.id)).flatMap((g) => docs.tenant.objectivesOf(g.id));
    const withEnd: { endTimePeriod?: unknown }[] = [];
    for (const o of all.slice(0, 20)) withEnd.push((await client(docs).v1(`objectives/${o.key}?fields=all`)).json.Data[0]);
    expect(withEnd.some((o) => typeof o.endTimePeriod === 'string')).toBe(true);
  });

  it('keeps the contract vocabulary free of the docs-only fields', async () => {
    const theme = (await client(contract).v1('strategic-themes?fields=all')).json.Data[0];
    expect(theme).not.toHaveProperty('color');
    const group = (await client(contract).v1(`strategic-themes/${theme.key}/objective-groups?fields=all`)).json.Data[0];
    expect(group).not.toHaveProperty('bvPlan');
  });
});

describe('the documented error answers', () => {
  it('answers an unknown board with 500 No Session Board found in the docs vocabulary, 404 in the contract one', async () => {
    const docsItems = await client(docs).legacyPost('items', { boardId: 'no-such-board' });
    expect(docsItems.status).toBe(500);
    expect(docsItems.json).toEqual({ error: 'No Session Board found' });
    const docsGroups = await client(docs).legacyGet('objective-groups?boardId=no-such-board');
    expect(docsGroups.status).toBe(500);
    expect(docsGroups.json).toEqual({ error: 'No Session Board found' });
    const contractItems = await client(contract).legacyPost('items', { boardId: 'no-such-board' });
    expect(contractItems.status).toBe(404);
  });

  it('answers a wrong company prefix with 404 Invalid company prefix in URL.', async () => {
    const res = await client(docs).raw(`${docs.legacyBaseUrl}/api/wrongco/boards`);
    expect(res.status).toBe(404);
    expect(res.json).toEqual({ error: 'Invalid company prefix in URL.' });
  });

  it('answers a bad key with 401 {"error":"Invalid API Key"} on the legacy address and errorMessages as a string on v1', async () => {
    const creds = docs.credentials();
    const bad = basicAuth(creds.email, 'not-the-key');
    const legacy = await client(docs, undefined, bad).legacyGet('boards');
    expect(legacy.status).toBe(401);
    expect(legacy.json).toEqual({ error: 'Invalid API Key' });
    const v1 = await client(docs, undefined, bad).v1('riskregister');
    expect(v1.status).toBe(401);
    expect(typeof v1.json.errorMessages).toBe('string');
    const missing = await client(docs).v1('risk/no-such-risk');
    expect(missing.status).toBe(404);
    expect(missing.json.errorMessages).toBe("Risk 'no-such-risk' does not exist");
  });
});

describe('group refusals', () => {
  it('refuses a group to one user with 403 and leaves the other groups and users alone', async () => {
    const alice = contract.users[1]!.email;
    contract.refuseGroup('okr', alice);
    contract.refuseGroup('pi-board-items', alice);
    try {
      const refusedOkr = await client(contract, alice).v1('strategic-themes');
      expect(refusedOkr.status).toBe(403);
      expect(refusedOkr.json.errorMessages[0]).toMatch(/Strategic Themes & OKRs API/);
      expect((await client(contract, alice).v1('riskregister')).status).toBe(200);
      expect((await client(contract).v1('strategic-themes')).status).toBe(200);
      const board = contract.tenant.visibleTo(alice).boards[0]!;
      expect((await client(contract, alice).legacyPost('items', { boardId: board.id })).status).toBe(403);
      // Boards are listed by both legacy groups: readable while one of them is allowed.
      expect((await client(contract, alice).legacyGet('boards')).status).toBe(200);
      expect((await client(contract, alice).legacyGet(`objective-groups?boardId=${board.id}`)).status).toBe(200);
    } finally {
      contract.clearRefusals();
    }
    expect((await client(contract, alice).v1('strategic-themes')).status).toBe(200);
  });
});
