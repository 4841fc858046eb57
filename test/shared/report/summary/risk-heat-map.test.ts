import { describe, expect, it } from 'vitest';
import type { Risk, RiskRegister } from '../../../../shared/planning-api/schemas';
import { messagesFor } from '../../../../shared/core/i18n/messages';
import { RiskHeatMap } from '../../../../shared/report/summary/risk-heat-map';
import { startSimulator } from '../../../../simulator/index';

const LEVEL_COLOURS: Record<string, string> = { Low: '#36B37E', Medium: '#FFAB00', High: '#FF5630', Critical: '#BF2600' };

describe('the risk heat map and the ROAM view', () => {
  it('counts the open risks of every register by impact and probability, in the colour of each cell\'s level', async () => {
    const sim = await startSimulator({ tenant: 'tiny' });
    try {
      const t = sim.tenant;
      const map = new RiskHeatMap(messagesFor('en-GB'), (risk) => risk.responsible?.user ?? null);
      for (const register of t.registers) for (const risk of t.risks(register.id)) map.add(register as unknown as RiskRegister, risk as unknown as Risk);
      const sections = map.sections();
      const heat = sections.filter((s) => s.heading.startsWith('Open risks by impact and probability'));
      expect(heat.length).toBeGreaterThan(0);
      let cellsSeen = 0;
      for (const section of heat) {
        const probabilities = section.grid!.columns.slice(1).map((c) => c.label);
        for (const row of section.grid!.rows) {
          const impact = row.values[0] as string;
          probabilities.forEach((p, i) => {
            const registers = t.registers.filter((r) => section.heading === 'Open risks by impact and probability' || section.heading.includes(r.key));
            const risks = registers.flatMap((r) => t.risks(r.id)).filter((r) => r.impact === impact && r.probability === p);
            const open = risks.filter((r) => r.status.status === 'Open' || r.status.status === 'In Progress').length;
            expect(row.values[i + 1], `${section.heading} ${impact} × ${p}`).toBe(risks.length === 0 ? null : open);
            expect(row.fills![i + 1]).toBe(risks.length === 0 ? null : LEVEL_COLOURS[risks[0]!.riskLevel.title]);
            cellsSeen += risks.length > 0 ? 1 : 0;
          });
        }
      }
      expect(cellsSeen).toBeGreaterThan(4);
      // The tenant keeps no ROAM field: its statuses are named as statuses, In Progress counting as Owned only with an owner.
      const all = t.allRisks;
      const count = (status: string) => all.filter((r) => r.status.status === status).length;
      const unowned = all.filter((r) => r.status.status === 'In Progress' && !r.responsible?.user).length;
      expect(sections.find((s) => s.heading === 'Risks by ROAM')).toBeUndefined();
      expect(sections.find((s) => s.heading === 'Risks by status')?.lines.map((l) => [l.label, l.value])).toEqual([
        ['Resolved', count('Closed')], ['Owned', count('In Progress') - unowned], ['Accepted', 0], ['Mitigated', count('Mitigated')],
        ['In progress, no owner', unowned], ['Not yet ROAMed (Open)', count('Open')],
      ]);
    } finally {
      await sim.close();
    }
  });

  it('orders impacts from the most severe down and probabilities low → high left to right, and leaves ROAM out for statuses it cannot map', () => {
    const map = new RiskHeatMap(messagesFor('en-GB'));
    const register = { id: 'r1', key: 'ENT' } as RiskRegister;
    const risk = (impact: string, probability: string, level: string, status: string) =>
      ({ id: `${impact}${probability}`, impact, probability, riskLevel: { title: level, color: LEVEL_COLOURS[level] }, status: { status } }) as unknown as Risk;
    map.add(register, risk('Minor', 'Rare', 'Low', 'Open'));
    map.add(register, risk('Major', 'Likely', 'Critical', 'Open'));
    map.add(register, risk('Major', 'Rare', 'Medium', 'Waiting for vendor'));
    map.add(register, risk('Minor', 'Likely', 'Medium', 'Closed'));
    const [heat, ...rest] = map.sections();
    // The most alarming cell (Major × Likely) top right, as a risk matrix is read.
    expect(heat!.grid!.columns.map((c) => c.label)).toEqual(['Impact \\ probability', 'Rare', 'Likely']);
    expect(heat!.grid!.rows.map((r) => r.values)).toEqual([['Major', 1, 1], ['Minor', 1, 0]]);
    expect(heat!.grid!.rows[0]!.fills).toEqual([null, '#FFAB00', '#BF2600']);
    expect(rest).toEqual([]);
  });

  it('reads ROAM from the ROAM field where the registers keep one, whatever the statuses say', () => {
    const map = new RiskHeatMap(messagesFor('en-GB'), (risk) => risk.responsible?.user ?? null);
    const register = { id: 'r1', key: 'ENT' } as RiskRegister;
    const risk = (id: string, status: string, roam: string | null, owner?: string) =>
      ({
        id, status: { status }, ...(owner && { responsible: { user: owner, id: owner } }),
        customFields: roam === null ? [] : [{ id: 'f', title: 'ROAM', type: 'singleselect', value: roam }],
      }) as unknown as Risk;
    map.add(register, risk('a', 'In Progress', 'Owned', 'Ann'));
    map.add(register, risk('b', 'In Progress', 'Accepted'));
    map.add(register, risk('c', 'Open', 'Mitigated'));
    map.add(register, risk('d', 'Open', null));
    map.add(register, risk('e', 'Waiting for vendor', ''));
    const roam = map.sections().find((s) => s.heading === 'Risks by ROAM');
    expect(roam?.lines.map((l) => [l.label, l.value])).toEqual([['Resolved', 0], ['Owned', 1], ['Accepted', 1], ['Mitigated', 1], ['Not yet ROAMed', 2]]);
  });
});
