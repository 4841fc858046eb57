import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messagesFor } from '../../../../shared/core/i18n/messages';
import { parseReportDefinition } from '../../../../shared/report/definition/definition';
import { runOf } from '../../../support/run-builder';
import type { CellValue, ReportSummary, SummarySection } from '../../../../shared/table/table';
import { startSimulator, type RunningSimulator } from '../../../../simulator/index';

/**
 * PI figures against values worked out here from the simulator's records with SAFe's definition:
 * actual BV of committed and uncommitted objectives ÷ planned BV of committed objectives. The demo
 * tenant's PI started four weeks before its "today" (2026-11-23): sprints 1-5 and an IP sprint of
 * two weeks each from 2026-10-26, so the IP sprint (the PI's last) runs 2027-01-04 to 2027-01-17.
 */
const MID_PI = '2026-11-23T06:00:00Z';
const IP_SPRINT = '2027-01-05T06:00:00Z';

describe('PI figures (demo tenant)', () => {
  let sim: RunningSimulator;
  let root: string;
  const summaries = new Map<string, ReportSummary>();

  const run = async (at: string): Promise<ReportSummary> => {
    const dir = join(root, at.slice(0, 10));
    const result = await runOf(parseReportDefinition({ name: 'pi', formats: ['csv'], timeZone: 'Europe/Zurich', datasets: { piObjectives: {} } }))
      .in(dir)
      .against(sim)
      .at(at)
      .export();
    return result.summary;
  };
  const section = (at: string, heading: string): SummarySection | undefined =>
    summaries.get(at)!.sections.find((s) => s.heading === heading);
  const line = (s: SummarySection, label: string): CellValue => s.lines.find((l) => l.label === label)?.value;

  const objectivesOf = (boardId: string, teamsOnly = false) => {
    const teams = new Set(sim.tenant.teams(boardId).map((t) => t.title));
    return sim.tenant
      .piObjectiveGroups(boardId)
      .filter((g) => !teamsOnly || teams.has(g.title))
      .flatMap((g) => g.objectives ?? []);
  };
  const measure = (objectives: { type: string; bvPlan: number; bvActual: number }[]) => {
    const committed = objectives.filter((o) => o.type === 'Objective-Committed');
    const planned = committed.reduce((n, o) => n + o.bvPlan, 0);
    const actual = objectives.reduce((n, o) => n + o.bvActual, 0);
    return { committed: committed.length, uncommitted: objectives.length - committed.length, planned, actual };
  };

  beforeAll(async () => {
    sim = await startSimulator({ tenant: 'demo', flavour: 'demo', today: new Date(MID_PI) });
    root = await mkdtemp(join(tmpdir(), 'pi-figures-'));
    summaries.set(MID_PI, await run(MID_PI));
    summaries.set(IP_SPRINT, await run(IP_SPRINT));
  });
  afterAll(async () => {
    await sim.close();
    await rm(root, { recursive: true, force: true });
  });

  it('counts uncommitted objectives’ actual BV over the committed plan, per board and for all boards', () => {
    const grid = section(MID_PI, 'Predictability by board')!.grid!;
    let all = { planned: 0, actual: 0 };
    sim.tenant.boards.forEach((board, i) => {
      const m = measure(objectivesOf(board.id));
      all = { planned: all.planned + m.planned, actual: all.actual + m.actual };
      expect(grid.rows[i]!.values.slice(0, 5)).toEqual([board.title, m.committed, m.uncommitted, m.planned, m.actual]);
      expect(grid.rows[i]!.values[5]).toBeCloseTo((100 * m.actual) / m.planned, 9);
    });
    const headline = section(MID_PI, 'PI objectives')!;
    expect(line(headline, 'Planned BV')).toBe(all.planned);
    expect(line(headline, 'Actual BV')).toBe(all.actual);
    // Mid-PI the figure is a running one, and says so where it is shown.
    expect(line(headline, 'Predictability so far (PI in progress)')).toBeCloseTo((100 * all.actual) / all.planned, 9);
    expect(headline.lines.some((l) => l.label === 'Predictability')).toBe(false);
    // The uncommitted objectives carry actual BV in this tenant, so the figure differs from a committed-only one.
    const uncommittedActual = sim.tenant.boards
      .flatMap((b) => objectivesOf(b.id))
      .filter((o) => o.type !== 'Objective-Committed')
      .reduce((n, o) => n + (o.bvActual ?? 0), 0);
    expect(uncommittedActual).toBeGreaterThan(0);
  });

  it('explains a value over 100 % under its table, and keeps a running score out of the one-line headline', () => {
    for (const heading of ['Predictability by board', 'Predictability by team']) {
      const table = section(MID_PI, heading)!;
      const over = table.grid!.rows.some((r) => typeof r.values[5] === 'number' && r.values[5] > 100);
      expect(table.lines.map((l) => [l.label, l.value]), heading).toEqual(over ? [['Above 100 %', messagesFor('en-GB').t('band.aboveNote')]] : []);
    }
    expect(section(MID_PI, 'Predictability by team')!.grid!.rows.some((r) => (r.values[5] as number) > 100)).toBe(true);
    // Mid-PI the all-boards figure is a running one: provisional, so the preheader and notifications leave it out.
    expect(section(MID_PI, 'PI objectives')!.lines.find((l) => l.label === 'Predictability so far (PI in progress)')?.provisional).toBe(true);
  });

  it('lists only real teams per team (not "Program objectives" groups)', () => {
    const grid = section(MID_PI, 'Predictability by team')!.grid!;
    const expected = sim.tenant.boards.flatMap((board) => {
      const teams = new Set(sim.tenant.teams(board.id).map((t) => t.title));
      return sim.tenant
        .piObjectiveGroups(board.id)
        .filter((g) => teams.has(g.title))
        .map((g) => ({ label: `${board.title} · ${g.title}`, ...measure(g.objectives ?? []) }));
    });
    expect(expected.length).toBeGreaterThan(0);
    expect(grid.rows.map((r) => r.values.slice(0, 5))).toEqual(expected.map((t) => [t.label, t.committed, t.uncommitted, t.planned, t.actual]));
    expect(grid.rows.some((r) => typeof r.values[0] === 'string' && r.values[0].includes('Program objectives'))).toBe(false);
  });

  it('names each PI with its phase from the board’s sprints', () => {
    const mid = section(MID_PI, 'PI objectives')!;
    const ip = section(IP_SPRINT, 'PI objectives')!;
    // Boards sharing a phase are named together on one line: the phase is said once.
    const phaseOf = (section: typeof mid, board: string) =>
      section.lines.find((l) => l.label === 'PI: All boards' || (l.label.startsWith('PI: ') && l.label.slice(4).split(', ').includes(board)))?.value;
    for (const board of sim.tenant.boards) {
      const dated = sim.tenant.teams(board.id).length > 0;
      const ends = sim.tenant.boardMeta(board.id).sprintDates;
      expect(new Date(ends[0]!.startDate).toISOString().slice(0, 10)).toBe('2026-10-26');
      expect(new Date(ends[5]!.startDate).toISOString().slice(0, 10)).toBe('2027-01-04');
      if (dated) {
        // 2026-11-23 is the first day of Sprint 3; the PI ends 2027-01-17: 56 days left, the run's day included.
        expect(phaseOf(mid, board.title)).toBe('Sprint 3 (3/5) · 56 days left · IP sprint from 04/01/2027');
        expect(phaseOf(ip, board.title)).toBe('IP Sprint (IP sprint) · 13 days left');
      } else {
        expect(phaseOf(mid, board.title)).toMatch(/phase unknown/);
      }
    }
    for (const section of [mid, ip]) {
      const values = section.lines.filter((l) => l.label.startsWith('PI: ')).map((l) => l.value);
      expect(new Set(values).size).toBe(values.length);
    }
  });

  it('does not judge predictability or missing actual BV before the PI’s last sprint', () => {
    const grid = section(MID_PI, 'Predictability by board')!.grid!;
    // Said once, in the headline's band line, not on every row: no band column while nothing is scored.
    expect(grid.columns.map((c) => c.label)).not.toContain('80–100 % band');
    // The running figures' column says once that the PI is in progress.
    expect(grid.columns[5]!.label).toBe('Predictability so far (PI in progress)');
    expect(grid.rows.every((r) => r.values.length === 6)).toBe(true);
    expect(grid.rows.every((r) => r.fills?.[5] === null)).toBe(true);
    expect(line(section(MID_PI, 'PI objectives')!, '80–100 % band')).toBe('scored at the end of the PI');
    const attention = section(MID_PI, 'Needs attention')!;
    expect(attention.grid).toBeUndefined();
    expect(attention.lines[0]!.label).toBe('Nothing needs attention');
  });

  it('judges the boards in their last sprint against the 80-100 % band and lists committed objectives without actual BV', () => {
    const grid = section(IP_SPRINT, 'Predictability by board')!.grid!;
    const rows = section(IP_SPRINT, 'Needs attention')!.grid!.rows;
    sim.tenant.boards.forEach((board, i) => {
      const dated = sim.tenant.teams(board.id).length > 0;
      const m = measure(objectivesOf(board.id));
      const p = (100 * m.actual) / m.planned;
      const band = p < 80 ? 'below 80 %' : p > 100 ? 'above 100 %' : 'in band';
      expect(grid.rows[i]!.values[6]).toBe(dated ? band : 'so far (PI in progress)');
      expect(rows.some((r) => r.values[0] === 'PI' && r.values[1] === board.title)).toBe(dated && p < 80);
    });
    const noValue = sim.tenant.boards
      .filter((b) => sim.tenant.teams(b.id).length > 0)
      .flatMap((b) => objectivesOf(b.id))
      .filter((o) => o.type === 'Objective-Committed' && !o.bvActual);
    expect(noValue.length).toBeGreaterThan(0);
    const linked = rows.filter((r) => r.values[0] === 'PI objective' && r.values[1]);
    expect(linked).toHaveLength(Math.min(10, noValue.length));
    expect(linked.map((r) => (r.values[1] as { text: string }).text)).toEqual(noValue.slice(0, 10).map((o) => o.title));
  });
});
