import { describe, expect, it } from 'vitest';
import { OwnWork, personWork, type WorkObjective, type WorkRisk } from '../../../../shared/report/summary/own-work';

const risk = (key: string, owner: string | null, linked: [string | null, string | null][]): WorkRisk => ({
  key, item: key, level: 'High', owner, linked: linked.map(([k, id]) => ({ key: k, id })),
});
const objective = (ref: string, planned: number | null, itemKeys: string[]): WorkObjective => ({ ref, item: ref, board: 'ART', planned, completion: 10, itemKeys });
const ada = (owner: string) => owner.toLowerCase() === 'ada lovelace';

describe('each person\'s own work: risk → linked items → PI objective items → planned BV', () => {
  it('sums the planned BV per risk and per person, each objective once, matching an item by tracker key or id', () => {
    const work = new OwnWork();
    work.objective(objective('b1 o1', 8, ['PAY-5001', '1010001']));
    work.objective(objective('b1 o2', 5, ['PAY-5002']));
    work.objective(objective('b2 o3', null, ['900003']));
    work.risk(risk('R-1', 'Ada Lovelace', [['PAY-5001', '1010001']]));
    // By id alone (a first-family item has no key), and two objectives reached by one risk.
    work.risk(risk('R-2', 'ada lovelace', [['X-1', '900003'], ['PAY-5002', null], ['PAY-5001', null]]));
    work.risk(risk('R-3', 'Ben Ng', [['PAY-5002', null]]));
    work.risk(risk('R-4', 'Ada Lovelace', [['PAY-9', null]]));
    work.risk(risk('R-5', null, [['PAY-5001', null]]));
    const mine = personWork(work.facts(), ada);
    expect(mine.risks.map((r) => [r.risk.key, r.objectives.map((o) => o.ref), r.value])).toEqual([
      ['R-2', ['b2 o3', 'b1 o2', 'b1 o1'], 13],
      ['R-1', ['b1 o1'], 8],
    ]);
    // o1 is reached by both risks and counted once: 8 + 5 + 0, not 21.
    expect(mine.value).toBe(13);
    expect(mine.objectives.map((o) => o.ref)).toEqual(['b1 o1', 'b1 o2', 'b2 o3']);
    expect(personWork(work.facts(), (o) => o === 'Ben Ng').value).toBe(5);
  });

  it('lists the OKRs behind under a theme any of whose owners is the person; someone who owns nothing has nothing', () => {
    const work = new OwnWork();
    work.okr({ item: 'OKR-1', theme: 'ST-1', owners: ['Ben Ng', 'Ada Lovelace'], health: 'off-track', completion: 20 });
    work.okr({ item: 'OKR-2', theme: 'ST-2', owners: ['Ben Ng'], health: 'at-risk', completion: null });
    expect(personWork(work.facts(), ada).okrs.map((o) => o.item)).toEqual(['OKR-1']);
    expect(personWork(work.facts(), () => false)).toEqual({ risks: [], objectives: [], value: 0, okrs: [] });
  });
});
