import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../simulator/index';

describe('sim.advance: moving the tenant forward', () => {
  let sim: RunningSimulator;
  beforeAll(async () => {
    sim = await startSimulator({ tenant: 'tiny' });
  });
  afterAll(() => sim.close());

  const post = async (path: string, body: unknown) => {
    const creds = sim.credentials();
    const res = await fetch(`${sim.legacyBaseUrl}/api/${sim.companyPrefix}/${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Basic ${Buffer.from(`${creds.email}:${creds.apiKey}`).toString('base64')}` },
      body: JSON.stringify(body),
    });
    return (await res.json()) as { data: { id: string; status: string; summary: string }[] };
  };

  it('serves removed and added board items consistently across pages, with edits applied', async () => {
    const board = sim.tenant.boards[0]!;
    const before = sim.tenant.boardItems(board.id).map((i) => i.id);
    sim.advance({
      boardItems: [{ boardId: board.id, id: before[0]!, status: 'Done', estimates: 40 }],
      removeBoardItems: [{ boardId: board.id, id: before[1]! }, { boardId: board.id, id: before[4]! }],
      addBoardItems: [{ boardId: board.id, summary: 'New one' }],
    });
    const expected = [...before.filter((_, i) => i !== 1 && i !== 4), expect.any(String)];
    const paged: string[] = [];
    for (let start = 0; ; start += 3) {
      const page = await post('items', { boardId: board.id, pageStart: start, pageSize: 3 });
      paged.push(...page.data.map((i) => i.id));
      if (page.data.length < 3) break;
    }
    expect(paged).toEqual(expected);
    expect(new Set(paged).size).toBe(paged.length);
    const first = (await post('items', { boardId: board.id, pageStart: 0, pageSize: 1, fields: ['status', 'estimates'] })).data[0]!;
    expect(first).toMatchObject({ id: before[0], status: 'Done', estimates: 40 });
    const last = sim.tenant.boardItem(board.id, sim.tenant.boardItemCount(board.id) - 1)!;
    expect(last.summary).toBe('New one');
    expect(sim.tenant.boardItemCount(board.id)).toBe(before.length - 1);
  });

  it('closes, reopens, adds and removes risks; unknown ids are an error', () => {
    const [a, b] = sim.tenant.allRisks.filter((r) => r.status.status !== 'Closed');
    sim.advance({ date: new Date('2026-11-20T00:00:00Z'), risks: [{ id: a!.id, close: true }, { id: b!.id, responsible: null }] });
    expect(sim.tenant.risk(a!.id)).toMatchObject({ status: { status: 'Closed', id: '4' }, resolutionDate: '20-Nov-2026' });
    expect(sim.tenant.risk(b!.id)!.responsible).toBeUndefined();
    sim.advance({ risks: [{ id: a!.id, reopen: true }] });
    expect(sim.tenant.risk(a!.id)!.resolutionDate).toBeUndefined();
    const register = sim.tenant.registers[0]!;
    sim.advance({ addRisks: [{ register: register.key, title: 'New risk' }], removeRisks: [b!.id] });
    const titles = sim.tenant.risks(register.id).map((r) => r.title);
    expect(titles).toContain('New risk');
    expect(sim.tenant.risk(b!.id)).toBeUndefined();
    expect(() => sim.advance({ risks: [{ id: 'nope', close: true }] })).toThrow(/Unknown risk id 'nope'/);
  });
});
