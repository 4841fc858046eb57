import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseReportDefinition } from '../../../../shared/report/definition/definition';
import { runOf } from '../../../support/run-builder';
import type { ExportResult } from '../../../../shared/report/run/result';
import type { CellValue, SummarySection } from '../../../../shared/table/table';
import { startSimulator, type RunningSimulator } from '../../../../simulator/index';

/**
 * Every Summary figure against values computed here from the simulator's records, with the simple
 * rules a reader would apply by hand (not with the exporter's own helpers).
 */
const TODAY = '2026-11-23';
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
/** `DD-Mon-YYYY` → `YYYY-MM-DD`. */
const isoOf = (riskDate: string) => {
  const [dd, mon, yyyy] = riskDate.split('-');
  return `${yyyy}-${String(MONTHS.indexOf(mon!) + 1).padStart(2, '0')}-${dd}`;
};

describe('the Summary answers a Release Train Engineer (demo tenant)', () => {
  let sim: RunningSimulator;
  let root: string;
  let result: ExportResult;
  const section = (heading: string, role?: string): SummarySection =>
    result.summary.sections.find((s) => s.heading === heading && (role === undefined || s.role === role))!;
  const line = (s: SummarySection, label: string): CellValue => s.lines.find((l) => l.label === label)?.value;

  beforeAll(async () => {
    sim = await startSimulator({ tenant: 'demo' });
    root = await mkdtemp(join(tmpdir(), 'summary-'));
    result = await runOf(parseReportDefinition({ name: 'rte-weekly', formats: ['csv'], datasets: { risks: {}, okrs: {}, piObjectives: {} } }))
      .in(root)
      .against(sim)
      .at(`${TODAY}T06:00:00Z`)
      .export();
  });
  afterAll(async () => {
    await sim.close();
    await rm(root, { recursive: true, force: true });
  });

  it('reads top to bottom: headline figures, needs attention, what changed, detail, and the run metadata last', () => {
    const roles: string[] = result.summary.sections.map((s) => s.role ?? 'detail');
    const firstOf = (role: string) => roles.indexOf(role);
    expect(firstOf('headline')).toBe(0);
    expect(roles.filter((r) => r === 'attention')).toHaveLength(1);
    expect(firstOf('attention')).toBeGreaterThan(roles.lastIndexOf('headline'));
    expect(roles.filter((r) => r === 'changes')).toHaveLength(1);
    expect(firstOf('changes')).toBe(firstOf('attention') + 1);
    expect(firstOf('detail')).toBeGreaterThan(firstOf('changes'));
    expect(firstOf('about')).toBeGreaterThan(roles.lastIndexOf('detail'));
    // The headline in the order of every surface: risks with their ROAM counts, OKR progress, PI predictability.
    const headline = result.summary.sections.filter((s) => s.role === 'headline').map((s) => s.heading);
    expect(headline).toEqual(['Risks', 'Risks by status', 'OKR progress by strategic theme', 'PI objectives', 'Predictability by board']);
    expect(line(section('OKR progress by strategic theme'), 'OKR progress')).toBeTypeOf('number');
    // For readers the run's date, zone and scope; where it read from and as whom stay in the manifest.
    const about = result.summary.sections.at(-3)!;
    expect(about.heading).toBe('About this run');
    expect(about.lines.map((l) => l.label)).toEqual(['Report', 'Generated at', 'Time zone']);
    expect(JSON.stringify(result.summary)).not.toMatch(/127\.0\.0\.1|admin@|Company prefix|Exported as/);
  });

  it('counts open, high/critical, overdue and unowned risks', () => {
    const risks = sim.tenant.allRisks;
    const open = risks.filter((r) => !['Mitigated', 'Closed'].includes(r.status.status));
    const s = section('Risks', 'headline');
    expect(line(s, 'Open risks')).toBe(open.length);
    expect(line(s, 'Open high or critical risks')).toBe(open.filter((r) => ['High', 'Critical'].includes(r.riskLevel.title)).length);
    expect(line(s, 'Overdue risks')).toBe(open.filter((r) => r.resolutionDate && isoOf(r.resolutionDate) < TODAY).length);
    expect(line(s, 'Open risks without an owner')).toBe(open.filter((r) => !r.responsible).length);
    expect(line(s, 'All risks')).toBe(risks.length);
    expect(open.length).toBeGreaterThan(0);
  });

  it('counts owners in the custom field the definition names, and says which field', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'summary-owner-'));
    try {
      const owned = await runOf(parseReportDefinition({ name: 'owners', formats: ['csv'], datasets: { risks: { ownerField: 'Risk owner' } } }))
        .in(dir)
        .against(sim)
        .at(`${TODAY}T06:00:00Z`)
        .export();
      const open = sim.tenant.allRisks.filter((r) => !['Mitigated', 'Closed'].includes(r.status.status));
      const withoutField = open.filter((r) => !(r.customFields ?? []).some((f) => f.title === 'Risk owner' && f.value)).length;
      const headline = owned.summary.sections.find((s) => s.heading === 'Risks')!;
      // The custom field keeps its own title beside the one word for the owner.
      expect(line(headline, 'Open risks without an owner (Risk owner)')).toBe(withoutField);
      expect(withoutField).not.toBe(open.filter((r) => !r.responsible).length);
      expect(line(headline, 'Open risks without an owner')).toBeUndefined();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('fills the level × status matrix in severity order with the register colours, its columns adding up left to right', () => {
    const grid = section('Risks by level and status').grid!;
    const labels = grid.columns.map((c) => c.label);
    // The open statuses, their sum, the closed statuses, all risks: no closed status before Open total.
    expect(labels).toEqual(['Level', 'Open', 'In progress', 'Open total', 'Mitigated', 'Closed', 'All risks']);
    const openTotal = labels.indexOf('Open total');
    const statuses = labels.map((label, i) => (i === 0 || i === openTotal || i === labels.length - 1 ? null : label));
    expect(grid.rows.map((r) => r.values[0])).toEqual(['Critical', 'High', 'Medium', 'Low', 'All levels']);
    for (const row of grid.rows) {
      const level = row.values[0];
      const ofLevel = level === 'All levels' ? sim.tenant.allRisks : sim.tenant.allRisks.filter((r) => r.riskLevel.title === level);
      // Status names in words: "In Progress" is shown as "In progress".
      statuses.forEach((status, i) => {
        if (status !== null) expect(row.values[i]).toBe(ofLevel.filter((r) => r.status.status.toLowerCase() === status.toLowerCase()).length);
      });
      const counts = row.values.map((v) => v as number);
      expect(counts[openTotal]).toBe(ofLevel.filter((r) => !['Mitigated', 'Closed'].includes(r.status.status)).length);
      expect(counts[openTotal]).toBe(counts.slice(1, openTotal).reduce((a, b) => a + b, 0));
      expect(counts.at(-1)).toBe(ofLevel.length);
      expect(counts.at(-1)).toBe(counts[openTotal]! + counts.slice(openTotal + 1, -1).reduce((a, b) => a + b, 0));
      if (level !== 'All levels') expect(row.fills?.[0]).toBe(ofLevel[0]!.riskLevel.color);
    }
    // "Open" in the headline and in the matrix's total agree.
    expect(grid.rows.at(-1)!.values[openTotal]).toBe(line(section('Risks', 'headline'), 'Open risks'));
  });

  it('shows OKR progress per strategic theme with every state counted, adding up to the objectives', () => {
    const grid = section('OKR progress by strategic theme').grid!;
    expect(grid.rows).toHaveLength(sim.tenant.strategicThemes.length);
    sim.tenant.strategicThemes.forEach((theme, i) => {
      const objectives = sim.tenant.objectiveGroupsOf(theme.id).flatMap((g) => sim.tenant.objectivesOf(g.id));
      const count = (status: string) => objectives.filter((o) => o.status.status === status).length;
      expect(grid.rows[i]!.values).toEqual([
        `${theme.key} ${theme.title}`, sim.tenant.themeProgress(theme.id)?.themeProgress ?? null,
        objectives.length, count('Not Started'), count('On Track'), count('At Risk'), count('Off Track'), count('Done'),
      ]);
      expect(count('Not Started') + count('On Track') + count('At Risk') + count('Off Track') + count('Done')).toBe(objectives.length);
    });
  });

  it('lists what needs attention, each linked to its row', () => {
    const grid = section('Needs attention').grid!;
    const kinds = new Set(grid.rows.map((r) => r.values[0]));
    // An "n more" row names no kind (the rows above it do): its What is empty.
    expect([...kinds].filter((k) => k !== 'PI' && k !== null)).toEqual(['Risk', 'OKR', 'PI objective']);
    // Each "n more" row says how many of which kind it stands for, and leads to the first of them in the "Needs attention" sheet.
    const more = grid.rows.filter((r) => r.more !== undefined);
    expect(more.length).toBeGreaterThan(0);
    expect(more.map((r) => r.values[0])).toEqual(more.map(() => null));
    for (const row of more) {
      expect(row.values[2]).toEqual({ text: expect.stringMatching(new RegExp(`^${row.more!.count} more `)) as string, url: expect.stringMatching(/^#'Needs attention'!A\d+$/) as string });
    }
    const offTrack = sim.tenant.strategicThemes
      .flatMap((t) => sim.tenant.objectiveGroupsOf(t.id).flatMap((g) => sim.tenant.objectivesOf(g.id)))
      .filter((o) => o.status.status === 'Off Track');
    const okrRows = grid.rows.filter((r) => r.values[0] === 'OKR' && r.values[1]);
    expect(okrRows.length).toBe(Math.min(10, offTrack.length));
    for (const row of grid.rows) {
      const link = row.values[1] as { text: string; url: string } | null;
      if (link && typeof link === 'object') expect(link.url).toMatch(/^#'(Risks|OKRs|PI objectives)'!A\d+$/);
    }
    // The test tenant's PI ran from 2026-01-05: it has been scored on the boards whose sprints carry dates (those with teams).
    const tracking = new Set(sim.tenant.boards.filter((b) => sim.tenant.teams(b.id).length > 0).map((b) => b.id));
    const noValue = sim.tenant.boards
      .filter((b) => tracking.has(b.id))
      .flatMap((b) => sim.tenant.piObjectiveGroups(b.id).flatMap((g) => g.objectives ?? []))
      .filter((o) => o.type === 'Objective-Committed' && !o.bvActual);
    const piRows = grid.rows.filter((r) => r.values[0] === 'PI objective');
    expect(piRows.filter((r) => r.values[1]).length).toBe(Math.min(10, noValue.length));
    // Whoever is to act is named: every risk and OKR listed says its owner, or that it has none.
    const named = grid.rows.filter((r) => (r.values[0] === 'Risk' || r.values[0] === 'OKR') && r.values[1]);
    expect(named.length).toBeGreaterThan(0);
    for (const row of named) expect(row.values[2] as string).toMatch(/ · (Owner: \S.*|no owner)$/);
    for (const row of named.filter((r) => r.values[0] === 'Risk')) {
      const key = (row.values[1] as { text: string }).text.split(' ')[0];
      const risk = sim.tenant.allRisks.find((r) => r.key === key)!;
      expect(row.values[2] as string).toMatch(risk.responsible?.user ? new RegExp(`Owner: ${risk.responsible.user}$`) : /no owner$/);
    }
  });
});
