// The simulator's contract shapes: pinned to the contract vocabulary (vocabulary.test.ts covers 'docs').
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { boardRegisterSchema, boardRefSchema, riskRegisterSchema, riskSchema } from '../../shared/planning-api/schemas';
import { client } from '../../simulator/http-helpers';
import { startSimulator, type RunningSimulator } from '../../simulator/index';

let sim: RunningSimulator;
let admin: ReturnType<typeof client>;

beforeAll(async () => {
  sim = await startSimulator({ tenant: 'demo', seed: 3, vocabulary: 'contract' });
  admin = client(sim);
});
afterAll(async () => {
  await sim.close();
});

describe('Risk API envelopes and paging', () => {
  it('lists registers in a lowercase data envelope with startAt, pageLimit and total', async () => {
    const res = await admin.v1('riskregister');
    expect(res.status).toBe(200);
    expect(Object.keys(res.json)).toEqual(['startAt', 'pageLimit', 'total', 'data']);
    expect(res.json).toMatchObject({ startAt: 0, pageLimit: 50, total: sim.tenant.registers.length });
    expect(res.json.Data).toBeUndefined();
  });

  it('pages risks with startAt/pageLimit and silently caps pageLimit at 50', async () => {
    const register = sim.tenant.registers[0]!;
    const all = sim.tenant.risks(register.id);
    expect(all.length).toBe(40);
    const page = await admin.v1(`${register.key}/risk?startAt=35&pageLimit=10`);
    expect(page.json).toMatchObject({ startAt: 35, pageLimit: 10, total: 40 });
    expect(page.json.data.map((r: { id: string }) => r.id)).toEqual(all.slice(35).map((r) => r.id));

    const big = await client(sim).v1(`${register.id}/risk?pageLimit=500`);
    expect(big.json.pageLimit).toBe(50);
    expect(big.json.data).toHaveLength(40);

    const past = await admin.v1(`${register.id}/risk?startAt=100`);
    expect(past.json).toMatchObject({ startAt: 100, total: 40, data: [] });
  });

  it('caps at 50 records per page when a register has more than 50 risks', async () => {
    const big = await startSimulator({ tenant: { registers: 1, risksPerRegister: 120, boards: 0 } });
    try {
      const c = client(big);
      const first = await c.v1('ENT/risk?pageLimit=100');
      expect(first.json.pageLimit).toBe(50);
      expect(first.json.data).toHaveLength(50);
      expect(first.json.total).toBe(120);
      const last = await c.v1('ENT/risk?startAt=100&pageLimit=50');
      expect(last.json.data).toHaveLength(20);
    } finally {
      await big.close();
    }
  });

  it('returns a single risk as a one-element data array without paging fields', async () => {
    const risk = sim.tenant.allRisks[5]!;
    const res = await admin.v1(`risk/${risk.id}?fields=all`);
    expect(Object.keys(res.json)).toEqual(['data']);
    expect(res.json.data).toEqual([risk]);
  });
});

describe('Risk API fields modes', () => {
  it('returns the minimal set id, key, title when fields is omitted', async () => {
    const res = await admin.v1('ENT/risk?pageLimit=3');
    for (const risk of res.json.data) expect(Object.keys(risk).sort()).toEqual(['id', 'key', 'title']);
    const regs = await admin.v1('riskregister');
    for (const reg of regs.json.data) expect(Object.keys(reg).sort()).toEqual(['id', 'key', 'title']);
  });

  it('returns full records with fields=all that satisfy the client schemas', async () => {
    const regs = await admin.v1('riskregister?fields=all');
    expect(regs.json.data).toEqual(sim.tenant.registers);
    for (const reg of regs.json.data) riskRegisterSchema.parse(reg);
    const risks = await admin.v1('ENT/risk?fields=all');
    expect(risks.json.data).toEqual(sim.tenant.risks('ENT').slice(0, 40));
    for (const risk of risks.json.data) riskSchema.parse(risk);
  });

  it('returns only the listed fields plus id with a comma-separated fields list', async () => {
    const res = await admin.v1('ENT/risk?fields=title,riskLevel,nonexistent&pageLimit=5');
    for (const risk of res.json.data) expect(Object.keys(risk).sort()).toEqual(['id', 'riskLevel', 'title']);
  });
});

describe('Risk API data realism', () => {
  it('serves multi-line, non-ASCII, control-character, formula-like and over-long text', () => {
    const risks = sim.tenant.allRisks;
    expect(risks.some((r) => r.riskDesc?.includes('\n'))).toBe(true);
    expect(risks.some((r) => r.mitigationActions?.includes('\n'))).toBe(true);
    expect(risks.some((r) => /Zürich/.test(r.riskDesc ?? '') && /日本語/.test(r.riskDesc ?? ''))).toBe(true);
    expect(risks.some((r) => r.riskDesc?.includes('\u0001'))).toBe(true);
    expect(risks.some((r) => (r.riskDesc?.length ?? 0) > 32_767)).toBe(true);
    for (const prefix of ['=', '+', '-', '@']) expect(risks.some((r) => r.title.startsWith(prefix))).toBe(true);
  });

  it('formats dates as DD-Mon-YYYY and leaves resolutionDate out of unresolved risks', () => {
    for (const r of sim.tenant.allRisks) {
      expect(r.raisedDate).toMatch(/^\d{2}-[A-Z][a-z]{2}-\d{4}$/);
      if (r.resolutionDate !== undefined) expect(r.resolutionDate).toMatch(/^\d{2}-[A-Z][a-z]{2}-\d{4}$/);
    }
    expect(sim.tenant.allRisks.some((r) => !('resolutionDate' in r))).toBe(true);
    expect(sim.tenant.allRisks.some((r) => !('responsible' in r))).toBe(true);
  });

  it('computes riskLevel from impact and probability and serves several custom field types', () => {
    const seen = new Set<string>();
    for (const r of sim.tenant.allRisks) {
      const matrix = sim.tenant.registerMatrix(r.riskRegister.id)!;
      const score = Math.round(
        (100 * (matrix.impacts.indexOf(r.impact) + 1) * (matrix.probabilities.indexOf(r.probability) + 1)) /
          (matrix.impacts.length * matrix.probabilities.length),
      );
      const expected = score <= 16 ? 'Low' : score <= 36 ? 'Medium' : score <= 64 ? 'High' : 'Critical';
      expect(r.riskLevel.title).toBe(expected);
      expect(r.riskLevel.color).toMatch(/^#[0-9A-F]{6}$/i);
      for (const f of r.customFields ?? []) seen.add(f.type);
      const owner = r.customFields?.find((f) => f.type === 'userpicker');
      if (owner) expect(owner.value).toEqual({ id: expect.any(String), fullName: expect.any(String) });
    }
    expect([...seen].sort()).toEqual(['date', 'multiselect', 'number', 'singleselect', 'text', 'userpicker']);
  });
});

describe('Risk API boards and 404s', () => {
  it('answers 404 for an unknown register, by id or key, and for an unknown risk', async () => {
    expect((await admin.v1('NOPE/risk')).status).toBe(404);
    expect((await admin.v1('123456789/risk')).status).toBe(404);
    const res = await admin.v1('risk/1');
    expect(res.status).toBe(404);
    expect(res.json).toEqual({ errorMessages: [expect.any(String)] });
  });

  it('accepts a register id or key for its risks', async () => {
    const reg = sim.tenant.registers[1]!;
    const byId = await admin.v1(`${reg.id}/risk`);
    const byKey = await admin.v1(`${reg.key}/risk`);
    expect(byId.status).toBe(200);
    expect(byKey.text).toBe(byId.text);
  });

  it('gets the register of a board with a board projection, and 404 when no register is linked', async () => {
    const linked = sim.tenant.boards.find((b) => b.registerId !== null)!;
    const res = await admin.v1(`${linked.id}/riskregister?fields=all`);
    expect(res.status).toBe(200);
    const record = boardRegisterSchema.parse(res.json.data[0]);
    expect(record.id).toBe(linked.registerId);
    expect(res.json.data[0].board).toEqual({ id: linked.id, title: linked.title, prefix: linked.prefix });

    const unlinked = sim.tenant.boards.find((b) => b.registerId === null)!;
    expect((await admin.v1(`${unlinked.id}/riskregister`)).status).toBe(404);
    expect((await admin.v1('999999/riskregister')).status).toBe(404);
  });

  it('lists the boards of a register as paginated references without fields', async () => {
    const reg = sim.tenant.registers[0]!;
    const expected = sim.tenant.boardsOfRegister(reg.id).map((b) => b.ref);
    expect(expected.length).toBeGreaterThan(1);
    const res = await admin.v1(`${reg.key}/boards?fields=all`);
    expect(res.json).toEqual({ startAt: 0, pageLimit: 50, total: expected.length, data: expected });
    for (const ref of res.json.data) boardRefSchema.parse(ref);
    const second = await admin.v1(`${reg.key}/boards?startAt=1&pageLimit=1`);
    expect(second.json.data).toEqual([expected[1]]);
    expect((await admin.v1('NOPE/boards')).status).toBe(404);
  });
});

describe('Risk API authentication and visibility', () => {
  it('answers 401 with an errorMessages body without or with wrong credentials', async () => {
    const none = await client(sim, undefined, null).v1('riskregister');
    expect(none.status).toBe(401);
    expect(none.json).toEqual({ errorMessages: [expect.any(String)] });
    const wrong = await client(sim, undefined, `Basic ${Buffer.from(`${sim.users[0]!.email}:nope`).toString('base64')}`).v1('riskregister');
    expect(wrong.status).toBe(401);
  });

  it('shows a restricted user only visible registers, and 404 for risks of hidden registers', async () => {
    const alice = sim.users.find((u) => u.email.startsWith('alice'))!;
    const view = sim.tenant.visibleTo(alice.email);
    expect(view.registers.length).toBeGreaterThan(0);
    expect(view.registers.length).toBeLessThan(sim.tenant.registers.length);
    const c = client(sim, alice.email);
    const regs = await c.v1('riskregister');
    expect(regs.json.data.map((r: { id: string }) => r.id)).toEqual(view.registers.map((r) => r.id));
    const hidden = sim.tenant.registers.find((r) => !view.canSeeRegister(r.id))!;
    expect((await c.v1(`${hidden.key}/risk`)).status).toBe(404);
    expect((await c.v1(`risk/${sim.tenant.risks(hidden.id)[0]!.id}`)).status).toBe(404);
    expect((await c.v1(`${hidden.key}/boards`)).status).toBe(404);
  });

  it('lists only visible boards of a register and hides the register of a hidden board', async () => {
    const bob = sim.users.find((u) => u.email.startsWith('bob'))!;
    const view = sim.tenant.visibleTo(bob.email);
    const c = client(sim, bob.email);
    for (const reg of view.registers) {
      const res = await c.v1(`${reg.id}/boards`);
      const expected = sim.tenant.boardsOfRegister(reg.id).filter((b) => view.canSeeBoard(b.id)).map((b) => b.id);
      expect(res.json.data.map((b: { id: string }) => b.id)).toEqual(expected);
    }
    for (const board of sim.tenant.boards) {
      const res = await c.v1(`${board.id}/riskregister`);
      const visible = view.canSeeBoard(board.id) && board.registerId !== null && view.canSeeRegister(board.registerId);
      expect(res.status).toBe(visible ? 200 : 404);
    }
  });

  it('answers 404 for unknown routes and 405 for a wrong method', async () => {
    expect((await admin.v1('nothing/here/at/all')).status).toBe(404);
    expect((await admin.raw(`${sim.v1BaseUrl}/api/v2/riskregister`)).status).toBe(404);
    expect((await admin.raw(`${sim.v1BaseUrl}/api/v1/riskregister`, { method: 'POST' })).status).toBe(405);
  });
});
