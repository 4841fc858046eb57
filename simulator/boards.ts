/** Boards (legacy groups) and their sprint, team and status metadata. */
import { DAY_MS, TEST_STORY } from './dates';
import type { TenantStory } from './types';
import { Rng } from './random';
import type {
  BoardRecord,
  BoardRefRecord,
  BoardStatusRecord,
  CollectionRecord,
  RiskRegisterRecord,
  SprintRecord,
  StatusesRecord,
  TeamRecord,
} from './records';
import type { TenantShape } from './types';

/** Which external work tracker a board is connected to (decides extA* vs extB* fields). */
export type TrackerFamily = 'extA' | 'extB';

/**
 * A board with the simulator's metadata. Board kinds repeat every 4 positions:
 *
 * | index % 4 | trackerFamily | okrMode | hasTeamMappings | register |
 * |---|---|---|---|---|
 * | 0 | extA | off | yes | linked |
 * | 1 | extB | on  | yes | linked |
 * | 2 | extA | on  | no  | none (Get register of a board answers 404) |
 * | 3 | extB | off | no  | linked |
 *
 * Linked boards are assigned two per register in order (boards 0 and 1 -> register 0, boards 3
 * and 4 -> register 1, ...), wrapping around; later registers may have no boards. Board i belongs to
 * collection i % collections.
 */
export interface SimBoard {
  /** Position of the board in the tenant (0-based). */
  readonly index: number;
  readonly id: string;
  readonly title: string;
  /** Short board prefix (board reference `prefix`; also the extB project key). */
  readonly prefix: string;
  readonly state: { id: string; title: string };
  readonly collectionId: string;
  readonly trackerFamily: TrackerFamily;
  /** OKR mode: decides the default completionType (6 when on, 2 when off). */
  readonly okrMode: boolean;
  /** Whether teams are mapped (teams metadata, teamsAndSprints, completionType 4/5). */
  readonly hasTeamMappings: boolean;
  /** Linked risk register id, or null when no register is linked. */
  readonly registerId: string | null;
  /** Number of board items (parents). */
  readonly itemCount: number;
  /** Stories of each item (items at index % 7 === 6 have none). */
  readonly storiesPerItem: number;
  /** The board as served by List boards. */
  readonly record: BoardRecord;
  /** The board as served by List boards of a register, and projected in Get register of a board. */
  readonly ref: BoardRefRecord;
}

/** Sprint, team and status metadata of one board. */
export interface BoardMeta {
  sprints: SprintRecord[];
  /** Epoch-millisecond dates of each sprint, same order as `sprints`. */
  sprintDates: { startDate: number; endDate: number }[];
  /** Empty on boards without team mappings. */
  teams: TeamRecord[];
  statuses: StatusesRecord;
}

const BOARD_NAMES = [
  ['Payments ART', 'PAY'],
  ['Mobile Release Train', 'MOB'],
  ['Platform Solution Train', 'PLT'],
  ['Data & AI ART', 'DAI'],
  ['Zürich Portfolio Board', 'ZRH'],
  ['Customer Journey ART', 'CJA'],
  ['Logistics ART', 'LOG'],
  ['Security Train', 'SEC'],
] as const;

const COLLECTION_NAMES = ['Europe Value Stream', 'Digital Products', 'Shared Services', 'Asia-Pacific 日本', 'Corporate IT'];

const TEAM_NAMES = [
  ['Blue Whales', 'BW', '#0052CC'],
  ['Team Zürich', 'ZH', '#00875A'],
  ['チーム東京', 'TK', '#FF991F'],
  ['R&D Core', 'RD', '#6554C0'],
  ['Phoenix 🔥', 'PX', '#DE350B'],
  ['Data <Insights>', 'DI', '#00B8D9'],
] as const;
/** The demo's team names: as many, in the same places, without markup or emoji. */
const DEMO_TEAM_NAMES: readonly (readonly [string, string, string])[] = [
  ['Blue Whales', 'BW', '#0052CC'],
  ['Team Zürich', 'ZH', '#00875A'],
  ['Team Tokyo', 'TK', '#FF991F'],
  ['R&D Core', 'RD', '#6554C0'],
  ['Phoenix', 'PX', '#DE350B'],
  ['Data Insights', 'DI', '#00B8D9'],
];

/** First day of the simulated program increment (Monday 5 Jan 2026, UTC). */
export const PI_START_MS = Date.UTC(2026, 0, 5);

/** Builds the collections. */
export function buildCollections(shape: TenantShape): CollectionRecord[] {
  const out: CollectionRecord[] = [];
  for (let i = 0; i < shape.collections; i++) {
    const name = COLLECTION_NAMES[i % COLLECTION_NAMES.length] ?? 'Collection';
    out.push({ id: String(500 + i), title: i < COLLECTION_NAMES.length ? name : `${name} ${Math.floor(i / COLLECTION_NAMES.length) + 1}` });
  }
  return out;
}

/**
 * Builds the boards (see SimBoard for the kind pattern). A 'demo' tenant maps teams on every board:
 * a release train's sprints are dated, and its PI objectives' items carry them, so every board of the
 * demo has a PI phase (the test tenant keeps boards without teams, whose phase is unknown).
 */
export function buildBoards(
  shape: TenantShape,
  collections: readonly CollectionRecord[],
  registers: readonly RiskRegisterRecord[],
  flavour: TenantStory['flavour'] = TEST_STORY.flavour,
): SimBoard[] {
  const boards: SimBoard[] = [];
  let linked = 0;
  for (let i = 0; i < shape.boards; i++) {
    const [baseTitle, basePrefix] = BOARD_NAMES[i % BOARD_NAMES.length] ?? ['Board', 'BRD'];
    const round = Math.floor(i / BOARD_NAMES.length);
    const title = round === 0 ? baseTitle : `${baseTitle} ${round + 1}`;
    const prefix = round === 0 ? basePrefix : `${basePrefix}${round + 1}`;
    const kind = i % 4;
    let registerId: string | null = null;
    if (kind !== 2 && registers.length > 0) {
      // Two boards per register, so that a register lists several boards (and later ones none).
      registerId = registers[Math.floor(linked / 2) % registers.length]?.id ?? null;
      linked++;
    }
    const id = String(1000 + i);
    const state = i % 5 === 4 ? { id: '2', title: 'Planning' } : { id: '1', title: 'Active' };
    const record: BoardRecord = { id, title, state };
    if (i % 3 === 1) record.isPinned = i % 2 === 1;
    boards.push({
      index: i,
      id,
      title,
      prefix,
      state,
      collectionId: collections[i % Math.max(1, collections.length)]?.id ?? '',
      trackerFamily: i % 2 === 0 ? 'extA' : 'extB',
      okrMode: kind === 1 || kind === 2,
      hasTeamMappings: kind === 0 || kind === 1 || flavour === 'demo',
      registerId,
      itemCount: shape.itemsPerBoard,
      storiesPerItem: shape.storiesPerItem,
      record,
      ref: { id, title, prefix },
    });
  }
  return boards;
}

function status(
  id: string,
  rowStatus: number,
  source: number,
  title: string,
  color: string,
  category: BoardStatusRecord['category'],
): BoardStatusRecord {
  return { id, rowStatus, source, title, color, category, updated: false };
}

/** The Monday of the week of `ms` (00:00 UTC). */
function mondayOnOrBefore(ms: number): number {
  const weekday = (new Date(ms).getUTCDay() + 6) % 7;
  return ms - weekday * DAY_MS;
}

/** Builds a board's sprints (5 + an IP sprint, two weeks each), teams and statuses. */
export function buildBoardMeta(board: SimBoard, seed: number, story: TenantStory = TEST_STORY): BoardMeta {
  // A demo's PI is running: today falls in its third sprint.
  const piStart = story.flavour === 'demo' ? mondayOnOrBefore(story.todayMs) - 4 * 7 * DAY_MS : PI_START_MS;
  const rng = Rng.for(seed, 21, board.index);
  const sprints: SprintRecord[] = [];
  const sprintDates: BoardMeta['sprintDates'] = [];
  for (let n = 1; n <= 6; n++) {
    const ip = n === 6;
    sprints.push({
      id: `${board.id}${String(n).padStart(2, '0')}`,
      label: ip ? 'IP' : `S${n}`,
      title: ip ? 'IP Sprint' : `Sprint ${n}`,
      isIPSprint: ip,
    });
    const startDate = piStart + (n - 1) * 14 * DAY_MS;
    sprintDates.push({ startDate, endDate: startDate + 14 * DAY_MS - 1 });
  }
  const teams: TeamRecord[] = [];
  if (board.hasTeamMappings) {
    const count = rng.int(3, 5);
    const offset = board.index % TEAM_NAMES.length;
    for (let t = 0; t < count; t++) {
      const names = story.flavour === 'demo' ? DEMO_TEAM_NAMES : TEAM_NAMES;
      const [title, label, color] = names[(offset + t) % names.length] ?? ['Team', 'T', '#000000'];
      teams.push({ color, id: `${board.id}5${t}`, label, title });
    }
  }
  const p = (n: number): string => `${board.id}1${n}`;
  const c = (n: number): string => `${board.id}2${n}`;
  const statuses: StatusesRecord = {
    parentStatuses: [
      status(p(1), 1, 0, 'Not Started', '#DFE1E6', 'ToDo'),
      status(p(2), 2, 0, 'In Progress', '#0065FF', 'InProgress'),
      status(p(3), 3, 0, 'Done', '#36B37E', 'Done'),
    ],
    childrenStatuses: [
      status(c(1), 1, 1, 'New', '#DFE1E6', 'ToDo'),
      status(c(2), 2, 1, 'Active', '#0065FF', 'InProgress'),
      status(c(3), 3, 1, 'Resolved', '#57D9A3', 'Done'),
      status(c(4), 4, 1, 'Closed', '#36B37E', 'Done'),
    ],
  };
  return { sprints, sprintDates, teams, statuses };
}
