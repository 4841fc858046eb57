import { describe, expect, it } from 'vitest';
import { credentialsSchema } from '../../shared/planning-api/credentials';
import { client } from '../../simulator/http-helpers';
import { boardItemRowCount, PRESETS, resolveShape, startSimulator, type RunningSimulator } from '../../simulator/index';

/** Fetches a fixed set of responses as text. */
async function snapshot(sim: RunningSimulator): Promise<string[]> {
  const c = client(sim);
  const out: string[] = [];
  for (const path of ['riskregister?fields=all', 'ENT/risk?fields=all', 'OPS/risk?fields=all&startAt=10', 'strategic-themes?fields=all', 'objectives/OBJ-2/key-results?fields=all', 'strategic-themes/ST-1/progress']) {
    out.push((await c.v1(path)).text);
  }
  out.push((await c.legacyGet('boards')).text);
  for (const board of sim.tenant.boards) {
    out.push((await c.legacyPost('items', { boardId: board.id, pageSize: 200, fields: ['children', 'summary', 'status', 'createdOn'] })).text);
    out.push((await c.legacyGet(`objective-groups?boardId=${board.id}&additionalColumns=1`)).text);
  }
  return out;
}

describe('determinism', () => {
  it('serves byte-identical JSON from two starts with the same seed and shape', async () => {
    const [a, b] = await Promise.all([startSimulator({ seed: 42 }), startSimulator({ seed: 42 })]);
    try {
      expect(a.v1BaseUrl).not.toBe(b.v1BaseUrl);
      expect(a.users).toEqual(b.users);
      expect(await snapshot(b)).toEqual(await snapshot(a));
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('serves different data for a different seed', async () => {
    const [a, b] = await Promise.all([startSimulator({ tenant: 'tiny', seed: 1 }), startSimulator({ tenant: 'tiny', seed: 2 })]);
    try {
      expect(await snapshot(b)).not.toEqual(await snapshot(a));
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});

describe('tenant shape and users', () => {
  it('has every board kind in the tiny preset', async () => {
    const sim = await startSimulator({ tenant: 'tiny' });
    try {
      const kinds = new Set(sim.tenant.boards.map((b) => `${b.trackerFamily}/${b.okrMode}/${b.hasTeamMappings}`));
      expect(kinds.size).toBe(4);
      expect(sim.tenant.boards.some((b) => b.registerId === null)).toBe(true);
      expect(sim.tenant.boardItemCount('1000')).toBe(PRESETS.tiny.itemsPerBoard);
      const risks = sim.tenant.allRisks;
      expect(risks.some((r) => (r.riskDesc?.length ?? 0) > 32_767)).toBe(true);
      expect(risks.some((r) => r.riskDesc?.includes('\u0001'))).toBe(true);
      for (const prefix of ['=', '+', '-', '@']) expect(risks.some((r) => r.title.startsWith(prefix))).toBe(true);
    } finally {
      await sim.close();
    }
  });

  it('offers an admin and two restricted users with valid credentials documents', async () => {
    const sim = await startSimulator({ companyPrefix: 'globex' });
    try {
      expect(sim.users.map((u) => u.role)).toEqual(['admin', 'risk-manager', 'release-train-engineer']);
      for (const user of sim.users) credentialsSchema.parse(sim.credentials(user.email));
      expect(sim.credentials()).toMatchObject({ email: 'admin@globex.example', companyPrefix: 'globex', baseUrl: sim.v1BaseUrl });
      const admin = sim.tenant.visibleTo(sim.users[0]!.email);
      expect(admin.boards).toHaveLength(sim.tenant.boards.length);
      for (const user of sim.users.slice(1)) {
        const view = sim.tenant.visibleTo(user.email);
        for (const [part, all] of [
          [view.registers, sim.tenant.registers],
          [view.boards, sim.tenant.boards],
          [view.strategicThemes, sim.tenant.strategicThemes],
        ] as const) {
          expect(part.length).toBeGreaterThan(0);
          expect(part.length).toBeLessThan(all.length);
        }
      }
      expect((await client(sim).legacyGet('collections')).status).toBe(200);
      expect(() => sim.credentials('nobody@globex.example')).toThrow();
    } finally {
      await sim.close();
    }
  });

  it('formats board item dates as DD Mon, YY and omits some optional fields', async () => {
    const sim = await startSimulator({ tenant: 'demo' });
    try {
      const items = sim.tenant.boards.flatMap((b) => sim.tenant.boardItems(b.id));
      for (const item of items) {
        expect(item.createdOn).toMatch(/^\d{2} [A-Z][a-z]{2}, \d{2}$/);
        expect(item.updatedOn).toMatch(/^\d{2} [A-Z][a-z]{2}, \d{2}$/);
      }
      expect(items.some((i) => !('estimates' in i))).toBe(true);
      expect(items.some((i) => !('iterationPath' in i))).toBe(true);
      expect(items.some((i) => 'rank' in i)).toBe(true);
      for (const prefix of ['=', '+', '-', '@']) expect(items.some((i) => i.summary.startsWith(prefix))).toBe(true);
    } finally {
      await sim.close();
    }
  });
});

// Start-up and page times are not asserted here (a busy machine would fail them): items are a pure
// function of their index (board-items.ts), which these tests check at the far end of a large board.
describe('large tenants', () => {
  it('serves the last page of a 100,000-item board, generated on demand', async () => {
    const sim = await startSimulator({ tenant: { boards: 1, itemsPerBoard: 100_000, storiesPerItem: 5 }, seed: 3 });
    try {
      const c = client(sim);
      const page = await c.legacyPost('items', { boardId: '1000', pageStart: 99_950, pageSize: 50, fields: ['children', 'summary'] });
      expect(page.json.data).toHaveLength(50);
      expect(page.json.data[49].id).toBe(sim.tenant.boardItem('1000', 99_999)!.id);
      expect((await c.legacyPost('items', { boardId: '1000', pageStart: 100_000 })).json).toEqual({ data: [] });
    } finally {
      await sim.close();
    }
  });

  it.each([
    ['portfolio', 937_500],
    ['portfolio-2m', 2_050_000],
  ] as const)('shapes the %s preset like the measured portfolio: 50 boards, 5,000 risks, 1,000 objectives, 2,500 PI objectives, %i board-item rows', (preset, rows) => {
    const shape = resolveShape(preset);
    expect(shape.boards).toBe(50);
    expect(shape.registers * shape.risksPerRegister).toBe(5_000);
    expect(shape.portfolioThemes * shape.strategicThemesPerPortfolio * shape.groupsPerTheme * shape.objectivesPerGroup).toBe(1_000);
    expect(shape.boards * shape.piObjectiveGroupsPerBoard * shape.objectivesPerPiGroup).toBe(2_500);
    // A feature row and a row per story; every 7th feature has none (storyCount, the generator's own rule).
    expect(boardItemRowCount(shape)).toBe(rows);
  });

  it('starts the large preset (100,000 board items, 5,000 risks)', async () => {
    const sim = await startSimulator({ tenant: 'large' });
    try {
      expect(sim.tenant.boards.reduce((n, b) => n + b.itemCount, 0)).toBe(100_000);
      expect(sim.tenant.allRisks).toHaveLength(5_000);
    } finally {
      await sim.close();
    }
  });
});
