/** Strategic Themes & OKRs: Portfolio Theme > Strategic Theme > Objective Group > Objective > Key Result. */
import type { SimBoard } from './boards';
import { boardItemId } from './board-items';
import { round2 } from './numbers';
import { Rng } from './random';
import type {
  KeyResultRecord,
  OkrObjectiveGroupRecord,
  OkrObjectiveRecord,
  PortfolioThemeRecord,
  StrategicThemeRecord,
  ThemeProgressRecord,
  V1Status,
} from './records';
import { PEOPLE, multiLine, workTitle } from './text';
import { TEST_STORY } from './dates';
import type { TenantShape, TenantStory } from './types';

const PORTFOLIO_NAMES = [
  'Grow digital revenue',
  'Operational excellence',
  'Customer trust & safety',
  'Sustainability 🌱',
  'Expand in Asia (日本)',
];
const GROUP_NAMES = ['Customer', 'Growth', 'Efficiency', 'People', 'Platform', 'Quality'];
const PERIODS = ['FY26 Q1', 'FY26 Q2', 'FY26 Q3', 'FY26 Q4', 'FY2026'];
const UNITS = ['%', 'users', 'k€', 'ms', 'NPS points'];
const OKR_STATUSES: readonly V1Status[] = [
  { status: 'Not Started', id: '1' },
  { status: 'On Track', id: '2' },
  { status: 'At Risk', id: '3' },
  { status: 'Off Track', id: '4' },
  { status: 'Done', id: '5' },
];

/** The generated OKR hierarchy with parent links (indexes into the flat arrays). */
export interface OkrTree {
  portfolioThemes: PortfolioThemeRecord[];
  strategicThemes: StrategicThemeRecord[];
  /** Index of the portfolio theme of each strategic theme. */
  themePortfolio: number[];
  groups: OkrObjectiveGroupRecord[];
  /** Index of the strategic theme of each group. */
  groupTheme: number[];
  objectives: OkrObjectiveRecord[];
  /** Index of the group of each objective. */
  objectiveGroup: number[];
  keyResults: KeyResultRecord[];
  /** Index of the objective of each key result. */
  keyResultObjective: number[];
  progress: ThemeProgressRecord[];
}

function mean(values: readonly number[]): number {
  return values.length > 0 ? round2(values.reduce((a, b) => a + b, 0) / values.length) : 0;
}

/**
 * Builds the hierarchy. Roll-ups: a 'Target' key result's completionPct is
 * (current - baseline) / (target - baseline) * 100 clamped to 0..100; an objective's completionPct is
 * the mean of its key results (0 without any); a group's the mean of its objectives; themeProgress
 * the mean of its groups; groupsProgress maps each group id to the group's completionPct.
 */
export function buildOkrs(shape: TenantShape, seed: number, boards: readonly SimBoard[], story: TenantStory = TEST_STORY): OkrTree {
  const flavour = story.flavour;
  const tree: OkrTree = {
    portfolioThemes: [],
    strategicThemes: [],
    themePortfolio: [],
    groups: [],
    groupTheme: [],
    objectives: [],
    objectiveGroup: [],
    keyResults: [],
    keyResultObjective: [],
    progress: [],
  };
  const idOf = (kind: number, index: number): string => Rng.for(seed, 71, kind, index).hex(24);
  for (let p = 0; p < shape.portfolioThemes; p++) {
    const rng = Rng.for(seed, 72, p);
    const name = PORTFOLIO_NAMES[p % PORTFOLIO_NAMES.length] ?? 'Portfolio theme';
    const round = Math.floor(p / PORTFOLIO_NAMES.length);
    const record: PortfolioThemeRecord = {
      key: `PT-${p + 1}`,
      title: round === 0 ? name : `${name} ${round + 1}`,
      id: idOf(1, p),
      description: multiLine(rng, 1, 3, flavour),
      status: rng.pick(OKR_STATUSES),
    };
    if (p % 2 === 1) delete record.description;
    tree.portfolioThemes.push(record);

    for (let s = 0; s < shape.strategicThemesPerPortfolio; s++) {
      const themeIndex = tree.strategicThemes.length;
      const trng = Rng.for(seed, 73, themeIndex);
      const theme: StrategicThemeRecord = {
        id: idOf(2, themeIndex),
        key: `ST-${themeIndex + 1}`,
        title: themeIndex === 1 && flavour === 'test' ? `=${workTitle(trng, flavour)}` : workTitle(trng, flavour),
        status: trng.pick(OKR_STATUSES),
        owners: trng.sample(PEOPLE, trng.int(1, 2)).map((person) => person.id),
      };
      if (themeIndex % 3 === 2) theme.colorCode = `#${trng.hex(6).toUpperCase()}`;
      tree.strategicThemes.push(theme);
      tree.themePortfolio.push(p);
      const groupsProgress: Record<string, number> = {};
      const groupPcts: number[] = [];

      for (let g = 0; g < shape.groupsPerTheme; g++) {
        const groupIndex = tree.groups.length;
        const grng = Rng.for(seed, 74, groupIndex);
        const groupTitle = `${GROUP_NAMES[groupIndex % GROUP_NAMES.length] ?? 'Group'} objectives`;
        const objectivePcts: number[] = [];
        const firstObjective = tree.objectives.length;

        for (let o = 0; o < shape.objectivesPerGroup; o++) {
          const objectiveIndex = tree.objectives.length;
          const orng = Rng.for(seed, 75, objectiveIndex);
          const krPcts: number[] = [];
          const period = orng.pick(PERIODS);
          for (let k = 0; k < shape.keyResultsPerObjective; k++) {
            const krIndex = tree.keyResults.length;
            const krng = Rng.for(seed, 76, krIndex);
            const byItems = krng.chance(0.5);
            let kr: KeyResultRecord;
            if (byItems) {
              kr = {
                id: idOf(5, krIndex),
                level: 3,
                type: 'Key Result',
                key: `KR-${krIndex + 1}`,
                title: workTitle(krng, flavour),
                completionPct: krng.int(0, 20) * 5,
                criteria: 'By Items',
                timePeriod: period,
                status: krng.pick(OKR_STATUSES),
              };
            } else {
              const baseline = krng.int(0, 50);
              const target = baseline + krng.int(10, 200);
              const current = baseline + krng.int(-5, Math.round((target - baseline) * 1.1));
              kr = {
                id: idOf(5, krIndex),
                level: 3,
                type: 'Key Result',
                key: `KR-${krIndex + 1}`,
                title: workTitle(krng, flavour),
                completionPct: round2(Math.max(0, Math.min(100, ((current - baseline) / (target - baseline)) * 100))),
                criteria: 'Target',
                timePeriod: period,
                metric: { baseline, target, unit: krng.pick(UNITS), current },
              };
            }
            krPcts.push(kr.completionPct);
            tree.keyResults.push(kr);
            tree.keyResultObjective.push(objectiveIndex);
          }
          const status = orng.pick(OKR_STATUSES);
          const bvPlan = orng.int(1, 20);
          const objective: OkrObjectiveRecord = {
            id: idOf(4, objectiveIndex),
            level: 2,
            type: 'Objective',
            key: `OBJ-${objectiveIndex + 1}`,
            title: workTitle(orng, flavour),
            completionPct: mean(krPcts),
            timePeriod: period,
            status,
            bvPlan,
            ...(status.id === '1' ? {} : { bvActual: orng.int(0, bvPlan) }),
            completionCriteria: objectiveIndex % 4 === 3 ? 'ROLLUP_BY_KEY_RESULTS' : 'ROLLUP_BY_STATUS',
            groupName: groupTitle,
            keyResultsCount: shape.keyResultsPerObjective,
          };
          const withItems = boards.filter((b) => b.itemCount > 0);
          const nLinks = withItems.length > 0 ? orng.int(0, 3) : 0;
          if (nLinks > 0) {
            const links = new Set<string>();
            for (let l = 0; l < nLinks; l++) {
              const board = orng.pick(withItems);
              links.add(boardItemId(board, orng.int(0, board.itemCount - 1)));
            }
            objective.linkedItems = [...links].map((id) => ({ id, linkType: 'backLogItem' }));
          }
          objectivePcts.push(objective.completionPct);
          tree.objectives.push(objective);
          tree.objectiveGroup.push(groupIndex);
        }
        const group: OkrObjectiveGroupRecord = {
          id: idOf(3, groupIndex),
          level: 1,
          type: 'Objective Group',
          title: groupTitle,
          completionPct: mean(objectivePcts),
          objectivesCount: tree.objectives.length - firstObjective,
          sequence: g + 1,
          status: grng.pick(OKR_STATUSES),
        };
        tree.groups.push(group);
        tree.groupTheme.push(themeIndex);
        groupsProgress[group.id] = group.completionPct;
        groupPcts.push(group.completionPct);
      }
      tree.progress.push({ themeProgress: mean(groupPcts), groupsProgress });
    }
  }
  return tree;
}
