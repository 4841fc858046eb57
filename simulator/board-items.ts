/**
 * Board items (PI Board Items API), generated lazily: item `index` of a board is a pure function of
 * (seed, board, index), so a page costs O(page) and nothing is kept in memory.
 */
import type { BoardMeta, SimBoard } from './boards';
import type { TenantShape, TenantStory } from './types';
import { dateBase, DAY_MS, formatItemDate, TEST_STORY } from './dates';
import { percent, specialSlot } from './numbers';
import { Rng } from './random';
import type { BoardItemRecord, BoardStatusRecord, BoardStoryRecord } from './records';
import { AWKWARD_TITLES, INJECTION_TITLES, PEOPLE, workTitle } from './text';

/** Everything an item generator needs about its board. */
export interface BoardItemContext {
  seed: number;
  companyPrefix: string;
  board: SimBoard;
  meta: BoardMeta;
  /** Default: the test flavour. */
  story?: TenantStory;
}

/**
 * Fields returned by List board items when the request has no `fields`: every parent field except
 * `stories` (ask for `children` to get them). Undocumented extras (`rank`) are included too.
 */
export const DEFAULT_ITEM_FIELDS: readonly string[] = [
  'iterationPath', 'id', 'extCId', 'estimates', 'updatedBy', 'externalKey', 'teamsAndSprints',
  'completionByStatus', 'updatedOn', 'status', 'itemType', 'completionByEstimate', 'createdOn', 'summary',
  'externalUrl', 'cardType', 'createdBy', 'areaPath', 'rank',
];

const STORY_POINTS = [1, 2, 3, 5, 8, 13] as const;

/** Id of item `index` of a board (numeric string; boards hold at most 10 million items). */
export function boardItemId(board: SimBoard, index: number): string {
  return String((board.index + 1) * 10_000_000 + index);
}

/** externalKey of item `index`: `PLT-17` style on extB boards, a work item number on extA boards. */
export function boardItemKey(board: SimBoard, index: number): string {
  return board.trackerFamily === 'extB' ? `${board.prefix}-${index + 1}` : String((board.index + 1) * 10_000_000 + 100_000 + index);
}

function storyKey(board: SimBoard, itemIndex: number, s: number): string {
  const n = board.itemCount + itemIndex * 100 + s + 1;
  return board.trackerFamily === 'extB' ? `${board.prefix}-${n}` : String((board.index + 1) * 10_000_000 + 100_000 + n);
}

const urlPrefixes = new WeakMap<BoardItemContext, string>();

function externalUrl(ctx: BoardItemContext, key: string): string {
  let prefix = urlPrefixes.get(ctx);
  if (prefix === undefined) {
    prefix =
      ctx.board.trackerFamily === 'extB'
        ? 'https://tracker.example.com/browse/'
        : `https://dev.example.com/${ctx.companyPrefix}/${encodeURIComponent(ctx.board.title)}/_workitems/edit/`;
    urlPrefixes.set(ctx, prefix);
  }
  return prefix + key;
}

const itemDates = new Map<number, string>();

/** formatItemDate with a cache (items only use a few hundred distinct days). */
function itemDate(ms: number): string {
  let text = itemDates.get(ms);
  if (text === undefined) {
    text = formatItemDate(ms);
    itemDates.set(ms, text);
  }
  return text;
}

/** Number of stories of item `index` (none on every 7th item). */
export function storyCount(board: Pick<SimBoard, 'storiesPerItem'>, index: number): number {
  return index % 7 === 6 ? 0 : board.storiesPerItem;
}

/** Board-item rows a tenant of `shape` exports: a row per feature and one per story of it. */
export function boardItemRowCount(shape: Pick<TenantShape, 'boards' | 'itemsPerBoard' | 'storiesPerItem'>): number {
  let perBoard = 0;
  for (let i = 0; i < shape.itemsPerBoard; i++) perBoard += 1 + storyCount(shape, i);
  return shape.boards * perBoard;
}

/** Generates item `index` of the board with every field, stories included. */
export function generateBoardItem(ctx: BoardItemContext, index: number): BoardItemRecord {
  const { board, meta } = ctx;
  const rng = Rng.for(ctx.seed, 31, board.index, index);
  const flavourStory = ctx.story ?? TEST_STORY;
  const id = boardItemId(board, index);
  const key = boardItemKey(board, index);
  const parents = meta.statuses.parentStatuses;
  const children = meta.statuses.childrenStatuses;

  // Properties are assigned one by one (not with conditional spreads): this runs for every item of
  // every page, and keeps the contract's field order.
  const stories: BoardStoryRecord[] = [];
  let done = 0;
  let started = 0;
  let estTotal = 0;
  let estDone = 0;
  const nStories = storyCount(board, index);
  const storyIdBase = 100_000_000_000 + board.index * 1_000_000_000 + index * 100;
  for (let s = 0; s < nStories; s++) {
    const st = rng.pick(children);
    const estimate = rng.chance(0.1) ? undefined : rng.pick(STORY_POINTS);
    const sKey = storyKey(board, index, s);
    const story = { summary: workTitle(rng, flavourStory.flavour), id: String(storyIdBase + s + 1), parentId: id } as BoardStoryRecord;
    if (estimate !== undefined) story.estimates = estimate;
    story.status = st.title;
    story.externalKey = sKey;
    story.externalUrl = externalUrl(ctx, sKey);
    stories.push(story);
    if (st.category === 'Done') {
      done++;
      estDone += estimate ?? 0;
    }
    if (st.category !== 'ToDo') started++;
    estTotal += estimate ?? 0;
  }

  let chosen: BoardStatusRecord | undefined;
  if (nStories === 0) chosen = rng.pick(parents);
  else if (done === nStories) chosen = parents[2];
  else if (started === 0) chosen = parents[0];
  else chosen = parents[1];
  const parentStatus = chosen ?? rng.pick(parents);

  const planned = rng.chance(0.8);
  const teamsAndSprints: { sprint: string; team: string }[] = [];
  let sprintTitle: string | undefined;
  let teamTitle: string | undefined;
  if (planned) {
    const sprint = rng.pick(meta.sprints);
    sprintTitle = sprint.title;
    if (meta.teams.length > 0) {
      const teams = rng.sample(meta.teams, rng.int(1, 2));
      teamTitle = teams[0]?.title;
      for (const team of teams) teamsAndSprints.push({ sprint: sprint.title, team: team.title });
    }
  }

  const created = dateBase(flavourStory, 420) + rng.int(0, 360) * DAY_MS;
  const updated = created + rng.int(0, 60) * DAY_MS;
  const creator = rng.pick(PEOPLE);
  const updater = rng.pick(PEOPLE);
  const slot = flavourStory.flavour === 'demo' ? -1 : specialSlot(index, board.itemCount);
  let summary = workTitle(rng, flavourStory.flavour);
  if (slot >= 0 && slot < INJECTION_TITLES.length) summary = INJECTION_TITLES[slot] ?? summary;
  else if (slot >= INJECTION_TITLES.length) summary = AWKWARD_TITLES[slot - INJECTION_TITLES.length] ?? summary;
  const enabler = rng.chance(0.2);
  const ownEstimate = nStories > 0 ? estTotal : rng.pick(STORY_POINTS) * 2;

  const item = {} as BoardItemRecord;
  if (sprintTitle !== undefined) item.iterationPath = `${board.title}\\PI 26.1\\${sprintTitle}`;
  item.id = id;
  if (board.trackerFamily === 'extA') item.extCId = key;
  if (index % 11 !== 5) item.estimates = ownEstimate;
  item.updatedBy = updater.login;
  item.externalKey = key;
  if (teamsAndSprints.length > 0) item.teamsAndSprints = teamsAndSprints;
  item.completionByStatus = nStories > 0 ? percent(done, nStories) : parentStatus.category === 'Done' ? 100 : 0;
  item.updatedOn = itemDate(updated);
  item.status = parentStatus.title;
  item.itemType = enabler ? 'Enabler' : 'Feature';
  item.completionByEstimate = estTotal > 0 ? percent(estDone, estTotal) : 0;
  item.createdOn = itemDate(created);
  item.summary = summary;
  item.externalUrl = externalUrl(ctx, key);
  item.stories = stories;
  item.cardType = enabler ? 'Enabler' : rng.chance(0.1) ? 'Capability' : 'Feature';
  item.createdBy = creator.login;
  item.areaPath = `${board.title}\\${teamTitle ?? 'Unassigned'}`;
  if (index % 9 === 0) item.rank = `0|${rng.hex(6)}:`;
  return item;
}

/**
 * Projects an item for the response: `fields` undefined gives DEFAULT_ITEM_FIELDS; otherwise `id`
 * plus the named fields, where `children` gives `stories`. Unknown names are ignored.
 */
export function projectBoardItem(item: BoardItemRecord, fields: readonly string[] | undefined): Record<string, unknown> {
  const source = item as unknown as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  if (fields === undefined) {
    for (const name of DEFAULT_ITEM_FIELDS) if (source[name] !== undefined) out[name] = source[name];
    return out;
  }
  out.id = item.id;
  for (const raw of fields) {
    const name = raw === 'children' ? 'stories' : raw;
    if (raw === 'stories') continue; // only `children` selects the child items
    if (source[name] !== undefined) out[name] = source[name];
  }
  return out;
}
