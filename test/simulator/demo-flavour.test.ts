import { describe, expect, it } from 'vitest';
import { PRESETS } from '../../simulator/presets';
import { generateTenant } from '../../simulator/tenant';

/** The demo flavour reads like a real release train; the test flavour keeps every trap. */
const TODAY = Date.UTC(2026, 10, 23);
const demo = () => generateTenant({ ...PRESETS.demo }, 1, 'acme', { flavour: 'demo', todayMs: TODAY });
const test = () => generateTenant({ ...PRESETS.demo }, 1, 'acme');

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const riskDay = (text: string) => {
  const [dd, mon, yyyy] = text.split('-');
  return Date.UTC(Number(yyyy), MONTHS.indexOf(mon!), Number(dd));
};

function allTexts(t: ReturnType<typeof demo>): string[] {
  const texts: string[] = [];
  for (const r of t.allRisks) texts.push(r.title, r.riskDesc ?? '', r.mitigationActions ?? '');
  for (const s of t.strategicThemes) texts.push(s.title);
  for (const b of t.boards) {
    for (const g of t.piObjectiveGroups(b.id)) {
      for (const o of g.objectives ?? []) {
        texts.push(o.title ?? '');
        for (const i of o.linkedItems ?? []) texts.push(i.title ?? '');
      }
    }
    for (const item of t.boardItems(b.id)) texts.push(item.summary ?? '', ...(item.stories ?? []).map((s) => s.summary ?? ''));
  }
  return texts;
}

const isTrap = (text: string) =>
  // eslint-disable-next-line no-control-regex -- control characters are one of the traps
  /^[=+\-@]/.test(text) || /[\u0000-\u0008\u000b\u000c\u000e-\u001f]/.test(text) || text.length > 2_000 || /[<>]/.test(text);

describe('simulator flavours', () => {
  it('a demo tenant has no formula-like, control-character, markup or over-long texts', () => {
    const traps = allTexts(demo()).filter(isTrap);
    expect(traps).toEqual([]);
  });

  it('the test flavour keeps its traps (formula-like titles, control characters, a 40,000-character text)', () => {
    const texts = allTexts(test());
    expect(texts).toContain('=HYPERLINK("http://x","y")');
    expect(texts.some((t) => t.length > 40_000)).toBe(true);
    // eslint-disable-next-line no-control-regex -- what is looked for
    expect(texts.some((t) => /[\u0001\u0008]/.test(t))).toBe(true);
    expect(test().allRisks[0]!.raisedDate).toBe(generateTenant({ ...PRESETS.demo }, 1, 'acme').allRisks[0]!.raisedDate);
  });

  it("dates revolve around the injected today: raised in the past, some open risks overdue, the PI running", () => {
    const t = demo();
    expect(t.allRisks.every((r) => riskDay(r.raisedDate) <= TODAY)).toBe(true);
    const closed = t.allRisks.filter((r) => ['Mitigated', 'Closed'].includes(r.status.status));
    expect(closed.every((r) => r.resolutionDate !== undefined && riskDay(r.resolutionDate) < TODAY)).toBe(true);
    const open = t.allRisks.filter((r) => !closed.includes(r));
    const overdue = open.filter((r) => r.resolutionDate !== undefined && riskDay(r.resolutionDate) < TODAY);
    const upcoming = open.filter((r) => r.resolutionDate !== undefined && riskDay(r.resolutionDate) >= TODAY);
    expect(overdue.length).toBeGreaterThan(0);
    expect(upcoming.length).toBeGreaterThan(0);
    const sprints = t.boardMeta(t.boards[0]!.id).sprintDates;
    expect(sprints.some((s) => s.startDate <= TODAY && TODAY <= s.endDate)).toBe(true);
  });

  it('dates the sprints of every board: its PI objectives\' items carry their teams and sprints', () => {
    const t = demo();
    const dated = t.boards.map((b) =>
      t.piObjectiveGroups(b.id, null, true).some((g) =>
        (g.objectives ?? []).some((o) =>
          (o.linkedItems ?? []).some((i) => (i.teamsAndSprints ?? []).some((e) => typeof e.sprint?.startDate === 'number')),
        ),
      ),
    );
    expect(dated).toEqual(t.boards.map(() => true));
    // The test tenant keeps boards without team mappings (their PI phase is unknown).
    expect(test().boards.filter((b) => !b.hasTeamMappings).length).toBeGreaterThan(0);
  });

  it('is deterministic for a seed and a day', () => {
    expect(allTexts(demo())).toEqual(allTexts(demo()));
    expect(demo().allRisks.map((r) => r.resolutionDate)).toEqual(demo().allRisks.map((r) => r.resolutionDate));
  });
});
