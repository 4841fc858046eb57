/**
 * PI Objectives API: objective groups of a board, with `completion` computed by the requested
 * completionType (contract section 4.4). The raw structure of a board is generated once (lazily) and
 * projected per request; the formulas are documented on {@link objectiveCompletion}.
 */
import type { BoardMeta, SimBoard } from './boards';
import { percent, round2 } from './numbers';
import { Rng } from './random';
import type {
  BoardStatusRecord,
  LegacyStatus,
  PiLinkedItemRecord,
  PiObjectiveGroupRecord,
  PiObjectiveRecord,
  PiSubItemRecord,
  PiTeamsAndSprintsRecord,
} from './records';
import type { TenantShape, TenantStory } from './types';
import { TEST_STORY } from './dates';
import { AWKWARD_TITLES, INJECTION_TITLES, workTitle } from './text';

/** completionType values 1-6. */
export type CompletionTypeValue = 1 | 2 | 3 | 4 | 5 | 6;

interface RawSubItem {
  /** Record without teamsAndSprints. */
  record: PiSubItemRecord;
  done: boolean;
  points: number;
  teams: PiTeamsAndSprintsRecord[];
}

interface RawLinkedItem {
  record: PiLinkedItemRecord;
  done: boolean;
  points: number;
  teams: PiTeamsAndSprintsRecord[];
  subs: RawSubItem[];
}

interface RawObjective {
  record: Omit<PiObjectiveRecord, 'completion' | 'linkedItems'>;
  linked: RawLinkedItem[];
}

interface RawGroup {
  record: Omit<PiObjectiveGroupRecord, 'completion' | 'objectives' | 'bvPlan' | 'bvActual' | 'achievement'>;
  objectives: RawObjective[];
}

/** The generated PI objectives of one board, before projection. */
export interface RawPiBoard {
  board: SimBoard;
  groups: RawGroup[];
}

const POINTS = [1, 2, 3, 5, 8] as const;

/**
 * Resolves the completionType actually used (rules 1-5 of section 4.4):
 * omitted/empty -> board default (6 with OKR mode on, 2 with it off); exactly '1'..'6' -> that value
 * (6 on a board with OKR mode off is used as is and yields null, see objectiveCompletion);
 * anything else (e.g. '7', 'abc', '2.5') -> board default.
 */
export function resolveCompletionType(okrMode: boolean, requested: string | number | null | undefined): CompletionTypeValue {
  const fallback: CompletionTypeValue = okrMode ? 6 : 2;
  if (requested === undefined || requested === null) return fallback;
  const text = String(requested).trim();
  if (/^[1-6]$/.test(text)) return Number(text) as CompletionTypeValue;
  return fallback;
}

function legacy(s: BoardStatusRecord): LegacyStatus {
  return { id: s.id, title: s.title, category: s.category };
}

function trackerFields(
  board: SimBoard,
  companyPrefix: string,
  number: number,
  kind: 'feature' | 'story',
): Partial<PiSubItemRecord> {
  if (board.trackerFamily === 'extA') {
    const workItem = String(board.index * 1_000_000 + 900_000 + number);
    return {
      extAId: workItem,
      extAURL: `https://dev.example.com/${companyPrefix}/${encodeURIComponent(board.title)}/_workitems/edit/${workItem}`,
      extAItemTypeIcon:
        kind === 'feature'
          ? 'https://dev.example.com/_apis/wit/workItemIcons/icon_trophy?color=773B93&v=2'
          : 'https://dev.example.com/_apis/wit/workItemIcons/icon_book?color=009CCC&v=2',
    };
  }
  return {
    extBId: String(board.index * 1_000_000 + 10_000 + number),
    extBKey: `${board.prefix}-${5000 + number}`,
    extBIssueTypeId: kind === 'feature' ? '10001' : '10002',
  };
}

/** How many linked items (features) each board's PI objectives carry: one objective in five has none. */
export function piLinkedItemCount(shape: TenantShape): number {
  const objectives = shape.piObjectiveGroupsPerBoard * shape.objectivesPerPiGroup;
  return (objectives - Math.floor(objectives / 5)) * shape.linkedItemsPerObjective;
}

/** The tracker key and id of a board's `number`th linked item, as the PI objectives name it (trackerFields): what a risk links to. */
export function piLinkedItemRef(board: SimBoard, number: number): { key: string; id: string } {
  const fields = trackerFields(board, '', number, 'feature');
  const id = fields.extAId ?? fields.extBId ?? '';
  return { key: fields.extBKey ?? id, id };
}

function teamEntry(meta: BoardMeta, rng: Rng, sequence: number): PiTeamsAndSprintsRecord | undefined {
  if (meta.teams.length === 0) return undefined;
  const team = rng.pick(meta.teams);
  const s = rng.int(0, meta.sprints.length - 2); // IP sprint rarely holds stories
  const sprint = meta.sprints[s];
  const dates = meta.sprintDates[s];
  if (!sprint || !dates) return undefined;
  return {
    sequence,
    team: { id: team.id, title: team.title, label: team.label, color: team.color },
    sprint: { ...sprint, startDate: dates.startDate, endDate: dates.endDate },
  };
}

/** Generates the raw PI objectives of a board. */
export function generatePiBoard(
  board: SimBoard,
  meta: BoardMeta,
  shape: TenantShape,
  seed: number,
  companyPrefix: string,
  story: TenantStory = TEST_STORY,
): RawPiBoard {
  const flavour = story.flavour;
  const rng = Rng.for(seed, 41, board.index);
  const parents = meta.statuses.parentStatuses;
  const children = meta.statuses.childrenStatuses;
  const groups: RawGroup[] = [];
  let objectiveCounter = 0;
  let linkedCounter = 0;
  let subCounter = 0;
  const totalObjectives = shape.piObjectiveGroupsPerBoard * shape.objectivesPerPiGroup;
  for (let g = 0; g < shape.piObjectiveGroupsPerBoard; g++) {
    const team = meta.teams.length > 0 ? meta.teams[g % meta.teams.length] : undefined;
    const objectives: RawObjective[] = [];
    for (let o = 0; o < shape.objectivesPerPiGroup; o++) {
      const objectiveIndex = objectiveCounter++;
      const linked: RawLinkedItem[] = [];
      const nLinked = objectiveIndex % 5 === 4 ? 0 : shape.linkedItemsPerObjective;
      for (let l = 0; l < nLinked; l++) {
        const linkedIndex = linkedCounter++;
        const subs: RawSubItem[] = [];
        const nSubs = linkedIndex % 4 === 3 ? 0 : shape.subItemsPerLinkedItem;
        for (let s = 0; s < nSubs; s++) {
          const subIndex = subCounter++;
          const st = rng.pick(children);
          const points = rng.chance(0.12) ? undefined : rng.pick(POINTS);
          const teams: PiTeamsAndSprintsRecord[] = [];
          if (rng.chance(0.8)) {
            const entry = teamEntry(meta, rng, 1);
            if (entry) teams.push(entry);
          }
          const record: PiSubItemRecord = {
            id: String(200_000_000_000 + board.index * 100_000_000 + 50_000_000 + subIndex),
            ...trackerFields(board, companyPrefix, 500_000 + subIndex, 'story'),
            title: workTitle(rng, flavour),
            type: 'UserStory',
            issueType: 'Story',
            ...(points === undefined ? {} : { storyPoints: points }),
            status: legacy(st),
          };
          subs.push({ record, done: st.category === 'Done', points: points ?? 0, teams });
        }
        const doneSubs = subs.filter((s) => s.done).length;
        let st: BoardStatusRecord | undefined;
        if (subs.length === 0) st = rng.pick(parents);
        else if (doneSubs === subs.length) st = parents[2];
        else if (subs.some((s) => s.record.status.category !== 'ToDo')) st = parents[1];
        else st = parents[0];
        st ??= rng.pick(parents);
        const points = subs.length > 0 ? subs.reduce((sum, s) => sum + s.points, 0) : rng.pick(POINTS) * 2;
        const teams: PiTeamsAndSprintsRecord[] = [];
        const seen = new Set<string>();
        for (const sub of subs) {
          for (const t of sub.teams) {
            const k = `${t.team.id}/${t.sprint.id}`;
            if (seen.has(k)) continue;
            seen.add(k);
            teams.push({ ...t, sequence: teams.length + 1 });
          }
        }
        if (subs.length === 0 && rng.chance(0.7)) {
          const entry = teamEntry(meta, rng, 1);
          if (entry) teams.push(entry);
        }
        const done = st.category === 'Done';
        const record: PiLinkedItemRecord = {
          id: String(200_000_000_000 + board.index * 100_000_000 + linkedIndex),
          ...trackerFields(board, companyPrefix, linkedIndex, 'feature'),
          title: linkedIndex === 0 && flavour === 'test' ? INJECTION_TITLES[board.index % INJECTION_TITLES.length] ?? 'Feature' : workTitle(rng, flavour),
          type: 'Feature',
          issueType: 'Feature',
          ...(linkedIndex % 6 === 5 ? {} : { storyPoints: points }),
          completion: subs.length > 0 ? percent(doneSubs, subs.length) : done ? 100 : 0,
          status: legacy(st),
        };
        linked.push({ record, done, points: record.storyPoints ?? 0, teams, subs });
      }
      const bvPlan = rng.int(1, 10);
      const objStatus = rng.pick([
        { id: `${board.id}31`, title: 'Not Started', category: 'ToDo' },
        { id: `${board.id}32`, title: 'In Progress', category: 'InProgress' },
        { id: `${board.id}33`, title: 'Achieved', category: 'Done' },
      ] as const);
      let title = workTitle(rng, flavour);
      if (objectiveIndex === totalObjectives - 1 && flavour === 'test') title = AWKWARD_TITLES[board.index % AWKWARD_TITLES.length] ?? title;
      objectives.push({
        record: {
          id: `${board.prefix}-OBJ-${objectiveIndex + 1}`,
          title,
          type: rng.chance(0.75) ? 'Objective-Committed' : 'Objective-Uncommitted',
          bvPlan,
          bvActual: objStatus.category === 'ToDo' ? 0 : rng.int(0, bvPlan),
          sequence: o + 1,
          status: { ...objStatus },
        },
        linked,
      });
    }
    groups.push({
      record: {
        id: String(Number(board.id) * 1000 + g + 1),
        title: team ? team.title : `Program objectives ${g + 1}`,
        type: 'TeamGroup',
        status: g % 2 === 0
          ? { id: `${board.id}41`, title: 'Open', category: 'ToDo' }
          : { id: `${board.id}42`, title: 'In Progress', category: 'InProgress' },
      },
      objectives,
    });
  }
  return { board, groups };
}

/**
 * completion of one objective for an effective completionType (percent, 2 decimals, or null):
 *
 * 1. linked items in a Done-category status / linked items (null without linked items);
 * 2. (Done linked items + Done sub-items) / (linked items + sub-items) (null without any);
 * 3. storyPoints of Done "children" / storyPoints of all children, where the children of a linked
 *    item are its sub-items, or the linked item itself when it has none; a missing storyPoints
 *    counts 0 (null when the total is 0);
 * 4. team-mapped sub-items (those with a teamsAndSprints entry) Done / team-mapped sub-items;
 *    0 when there are none, and 0 on boards without team mappings ("no data" reported as 0);
 * 5. as 4 with storyPoints; null when the total is 0 and on boards without team mappings;
 * 6. OKR formula on boards with OKR mode on: min(100, bvActual / bvPlan * 100) (null when bvPlan
 *    is 0); null on boards with OKR mode off (the formula needs OKRs enabled).
 */
function objectiveCompletion(board: SimBoard, objective: RawObjective, type: CompletionTypeValue): number | null {
  const linked = objective.linked;
  const subs = linked.flatMap((l) => l.subs);
  switch (type) {
    case 1:
      return linked.length > 0 ? percent(linked.filter((l) => l.done).length, linked.length) : null;
    case 2: {
      const n = linked.length + subs.length;
      const done = linked.filter((l) => l.done).length + subs.filter((s) => s.done).length;
      return n > 0 ? percent(done, n) : null;
    }
    case 3: {
      let total = 0;
      let done = 0;
      for (const l of linked) {
        const units = l.subs.length > 0 ? l.subs : [l];
        for (const u of units) {
          total += u.points;
          if (u.done) done += u.points;
        }
      }
      return total > 0 ? percent(done, total) : null;
    }
    case 4: {
      if (!board.hasTeamMappings) return 0;
      const mapped = subs.filter((s) => s.teams.length > 0);
      return mapped.length > 0 ? percent(mapped.filter((s) => s.done).length, mapped.length) : 0;
    }
    case 5: {
      if (!board.hasTeamMappings) return null;
      const mapped = subs.filter((s) => s.teams.length > 0);
      const total = mapped.reduce((sum, s) => sum + s.points, 0);
      const done = mapped.filter((s) => s.done).reduce((sum, s) => sum + s.points, 0);
      return total > 0 ? percent(done, total) : null;
    }
    case 6: {
      if (!board.okrMode) return null;
      const { bvPlan, bvActual } = objective.record;
      return bvPlan > 0 ? round2(Math.min(100, (bvActual / bvPlan) * 100)) : null;
    }
  }
}

/**
 * Projects the objective groups of a board for one request. Group `completion` is the mean of its
 * objectives' non-null completions (null when all are null); `bvPlan`/`bvActual` are sums over the
 * objectives; `achievement` = bvActual / bvPlan * 100 (null when bvPlan is 0). With
 * `additionalColumns` every linked item and sub-item carries `teamsAndSprints` (an empty array when
 * it has no team/sprint assignment); without it the key is absent.
 */
export function projectPiGroups(
  raw: RawPiBoard,
  type: CompletionTypeValue,
  additionalColumns: boolean,
): PiObjectiveGroupRecord[] {
  return raw.groups.map((group) => {
    let bvPlan = 0;
    let bvActual = 0;
    const completions: number[] = [];
    const objectives: PiObjectiveRecord[] = group.objectives.map((objective) => {
      const completion = objectiveCompletion(raw.board, objective, type);
      if (completion !== null) completions.push(completion);
      bvPlan += objective.record.bvPlan;
      bvActual += objective.record.bvActual;
      const linkedItems = objective.linked.map((l): PiLinkedItemRecord => {
        const subItems = l.subs.map((s): PiSubItemRecord =>
          additionalColumns ? { ...s.record, teamsAndSprints: s.teams } : s.record,
        );
        return {
          ...l.record,
          ...(additionalColumns ? { teamsAndSprints: l.teams } : {}),
          ...(subItems.length > 0 ? { subItems } : {}),
        };
      });
      return {
        ...objective.record,
        completion,
        ...(linkedItems.length > 0 ? { linkedItems } : {}),
      };
    });
    const completion =
      completions.length > 0 ? round2(completions.reduce((a, b) => a + b, 0) / completions.length) : null;
    return {
      id: group.record.id,
      title: group.record.title,
      type: group.record.type,
      completion,
      bvPlan,
      bvActual,
      achievement: bvPlan > 0 ? percent(bvActual, bvPlan) : null,
      status: group.record.status,
      objectives,
    };
  });
}
