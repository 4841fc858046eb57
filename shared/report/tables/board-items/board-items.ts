import * as z from 'zod';
import { statusCategoryText } from '../../../core/format';
import type { Board, BoardItem, BoardStatus, BoardStory } from '../../../planning-api/schemas';
import { datasetOptions, type Dataset, type DatasetContext, type DatasetEntry, type DatasetPlan, type PlanContext, type TableOutput } from '../../dataset/dataset';
import { changeRules } from '../../dataset/change-rules';
import type { CellValue, Column, TableRow } from '../../../table/table';
import { tableColumns } from '../../../table/column-spec';
import { BOARD_SELECTORS, BOARD_SHAPE, boardStateIdColumn, planBoardDataset, SLICED_BY_BOARDS } from '../boards';
import { apiDate, link, listOf, titleOrText } from '../columns';
import { FieldAudit, type FieldShape } from '../../dataset/field-audit';
import { RepeatedRecords } from '../../dataset/repeated-records';
import {
  BOARD_ITEMS_READ_AHEAD,
  boardItemsInOrder,
  loadBoardMetadata,
  prepend,
  type BoardItemsOf,
  type BoardItemsReadAhead,
  type BoardMetadata,
} from './board-items-fetch';
import type { TermId } from '../../../core/glossary';
import { readerFormatOf } from '../../dataset/dataset';
import { auditBoardMetadata, BOARD_ITEM_NOT_EXPORTED } from './board-items-audit';

/** What a `board-items` row is read from: a feature, or one of its stories (`story` set). */
export interface BoardItemSource {
  readonly board: Board;
  readonly meta: BoardMetadata;
  /** The report's time zone: epoch-millisecond dates become calendar dates there. */
  readonly timeZone: string;
  readonly feature: BoardItem;
  readonly story?: BoardStory | undefined;
  /** The row's own item: the story on a story row, else the feature. */
  readonly item: BoardItem | BoardStory;
  /** The item's status resolved through the statuses operation (looked up once for both status columns). */
  readonly status: BoardStatus | undefined;
}

/** A feature-only value: stories leave these columns empty. */
const ofFeature = (read: (item: BoardItem, s: BoardItemSource) => CellValue) => (s: BoardItemSource) =>
  s.story ? null : read(s.feature, s);


export const BOARD_ITEM_TABLE = tableColumns<BoardItemSource>()([
  { name: 'board_id', type: 'text', label: 'Board id', width: 12, hidden: true, description: 'Board id', read: (s) => s.board.id },
  { name: 'board_title', type: 'text', label: 'Board', width: 24, description: 'Board title', read: (s) => s.board.title ?? null },
  {
    name: 'kind', type: 'text', label: 'Kind', width: 8, description: '"feature" (parent item) or "story" (child item)',
    read: (s) => (s.story ? 'story' : 'feature'),
  },
  { name: 'id', type: 'text', label: 'Item id', width: 12, hidden: true, description: 'Item id', read: (s) => s.item.id },
  {
    name: 'parent_id', type: 'text', label: 'Feature id', width: 12, hidden: true, description: 'For stories: id of the feature',
    read: (s) => (s.story ? (s.story.parentId ?? s.feature.id) : null),
  },
  {
    name: 'parent_title', type: 'text', label: 'Feature', width: 30, description: "For stories: title of the feature (the story's parentDescription when sent, else the feature's summary)",
    read: (s) => (s.story ? (s.story.parentDescription ?? s.feature.summary ?? null) : null),
  },
  {
    name: 'external_key', type: 'text', label: 'Key', width: 12, description: 'Key of the item in the tracker',
    read: (s) => s.item.externalKey ?? null,
  },
  {
    name: 'external_link', type: 'link', label: 'Item', width: 36, description: 'Link to the item in the tracker',
    read: (s) => {
      return link(s.item.externalKey ?? s.item.summary, s.item.externalUrl);
    },
  },
  { name: 'summary', type: 'text', label: 'Summary', width: 44, description: 'Summary (title)', read: (s) => s.item.summary ?? null },
  { name: 'item_type', type: 'text', label: 'Item type', width: 12, description: 'Item type (features)', read: ofFeature((f) => f.itemType ?? null) },
  { name: 'card_type', type: 'text', label: 'Card type', width: 12, description: 'Card type (features)', read: ofFeature((f) => f.cardType ?? null) },
  {
    name: 'status', type: 'text', label: 'Status', width: 14, description: 'Status title, resolved through the statuses operation',
    change: { label: 'Status', order: 1 }, read: (s) => s.status?.title ?? s.item.status ?? null,
  },
  {
    name: 'status_category', type: 'text', label: 'Status category', width: 12, description: 'Status category, e.g. ToDo',
    inWords: statusCategoryText,
    read: (s) => s.status?.category ?? null,
  },
  {
    name: 'sprints', type: 'list', label: 'Sprints', width: 20, description: 'Sprint titles (features)', change: { label: 'Sprint', order: 3 },
    read: ofFeature((f, s) => {
      const plan = f.teamsAndSprints;
      // Text where the contract has a list (the docs' type): kept readable here, counted as a warning.
      if (typeof plan === 'string') return listOf([plan]);
      return listOf([...new Set((plan ?? []).map((p) => s.meta.sprints.title(p.sprint)))]);
    }),
  },
  {
    name: 'teams', type: 'list', label: 'Teams', width: 20, description: 'Team titles (features)', change: { label: 'Team', order: 2 },
    read: ofFeature((f, s) => {
      const plan = f.teamsAndSprints;
      if (typeof plan === 'string') return null;
      return listOf([...new Set((plan ?? []).map((p) => s.meta.teams.title(p.team)))]);
    }),
  },
  {
    name: 'estimates', type: 'number', label: 'Estimate', description: 'Estimate (story points or effort)',
    change: { label: 'Estimate', order: 4 }, read: (s) => s.item.estimates ?? null,
  },
  {
    name: 'completion_by_status', type: 'percent', label: 'Done by status', description: 'Completion by status of the stories (features)',
    read: (s) => (s.story ? null : s.feature.completionByStatus ?? null),
  },
  {
    name: 'completion_by_estimate', type: 'percent', label: 'Done by estimate', description: 'Completion by estimate of the stories (features)',
    read: (s) => (s.story ? null : s.feature.completionByEstimate ?? null),
  },
  {
    name: 'created_on', type: 'date', label: 'Created', description: 'Creation date (features)',
    read: (s) => (s.story ? null : apiDate(s.feature.createdOn, s.timeZone)),
  },
  { name: 'created_by', type: 'text', label: 'Created by', width: 18, description: 'Login of the creator (features)', read: ofFeature((f) => f.createdBy ?? null) },
  {
    name: 'updated_on', type: 'date', label: 'Updated', description: 'Last update date (features)',
    read: (s) => (s.story ? null : apiDate(s.feature.updatedOn, s.timeZone)),
  },
  {
    name: 'updated_by', type: 'text', label: 'Updated by', width: 18, description: 'Login of the last updater (features)',
    read: (s) => (s.story ? null : s.feature.updatedBy ?? null),
  },
  {
    name: 'iteration_path', type: 'text', label: 'Iteration path', width: 20, description: 'Iteration path (features)',
    read: (s) => (s.story ? null : s.feature.iterationPath ?? null),
  },
  { name: 'area_path', type: 'text', label: 'Area path', width: 20, description: 'Area path (features)', read: ofFeature((f) => f.areaPath ?? null) },
  {
    name: 'tracker_id', type: 'text', label: 'Tracker id', width: 10, description: 'Id of the feature in the first tracker family (extCId; azureId in the public docs)',
    read: (s) => (s.story ? null : s.feature.extCId ?? s.feature.azureId ?? null),
  },
  {
    name: 'planning_id', type: 'text', label: 'Planning-tool id', width: 14, hidden: true,
    description: "The planning tool's own id of the item (kendisId in the public docs)", read: (s) => s.item.kendisId ?? null,
  },
  {
    name: 'board_state', type: 'text', label: 'Board state', width: 12, description: 'State of the board, e.g. Planning or Tracking',
    read: (s) => titleOrText(s.board.state),
  },
  // Since 1.3, for joins: a title can change, an id does not.
  boardStateIdColumn,
]);

/** The fields each table reads from a feature and its child items; anything else is listed in the manifest. */
export const BOARD_ITEM_SHAPE: FieldShape = (() => {
  const story: FieldShape = {
    id: true, kendisId: true, parentId: true, parentDescription: true, summary: true, estimates: true, status: true,
    externalKey: true, externalUrl: true,
  };
  return {
    id: true, extCId: true, azureId: true, kendisId: true, iterationPath: true, estimates: true, updatedBy: true,
    externalKey: true, teamsAndSprints: { sprint: true, team: true }, completionByStatus: true, updatedOn: true,
    status: true, itemType: true, completionByEstimate: true, createdOn: true, summary: true, externalUrl: true,
    cardType: true, createdBy: true, areaPath: true, stories: story, children: story,
  };
})();

/** The child items of a feature: `stories` in the contract, `children` in the public docs. */
export function childItems(feature: BoardItem): readonly BoardStory[] {
  return feature.stories ?? feature.children ?? [];
}

export const BOARD_ITEM_COLUMNS: readonly Column[] = BOARD_ITEM_TABLE.columns;

export function featureRow(board: Board, item: BoardItem, meta: BoardMetadata, timeZone = 'UTC'): TableRow {
  const status = meta.parentStatuses.find(item.status);
  return { outlineLevel: 0, values: BOARD_ITEM_TABLE.values({ board, meta, timeZone, feature: item, story: undefined, item, status }) };
}

export function storyRow(board: Board, feature: BoardItem, story: BoardStory, meta: BoardMetadata, timeZone = 'UTC'): TableRow {
  const status = meta.childStatuses.find(story.status) ?? meta.parentStatuses.find(story.status);
  return { outlineLevel: 1, values: BOARD_ITEM_TABLE.values({ board, meta, timeZone, feature, story, item: story, status }) };
}

/**
 * The ids written for the board being written, features and stories (a row's key is board and id),
 * so a record the API repeats is written once. Boards come one after another: only one board's ids
 * are held, never the whole table's.
 */
function boardIdSets(): (boardId: string) => Set<string> {
  let current = { board: '', ids: new Set<string>() };
  return (boardId) => {
    if (current.board !== boardId) current = { board: boardId, ids: new Set() };
    return current.ids;
  };
}

/** The boards' own fields, read beside each row: audited under `board.`. */
function auditBoards(audit: FieldAudit, boards: readonly Board[]): void {
  for (const board of boards) {
    audit.check('board-items', board, BOARD_SHAPE, 'board.');
    if (typeof board.state === 'string') audit.warn('board-items', 'board.state', 'an id where { id, title } was expected; shown as is in board_state');
  }
}

/**
 * The `board-items` table of `boards` (resolved by the run's plan, planBoardItems): features and
 * their stories, board by board (several boards fetched at once).
 */
/** A glossary term in the report's language. */
const termIn = (ctx: DatasetContext, id: TermId) => readerFormatOf(ctx).t(`term.${id}`);

export function boardItemsDataset(ctx: DatasetContext, boards: readonly Board[], readAhead: BoardItemsReadAhead = BOARD_ITEMS_READ_AHEAD): Dataset {
  const counts = new Map<string, { features: number; stories: number }>();
  const audit = new FieldAudit({ 'board-items': BOARD_ITEM_NOT_EXPORTED });
  const repeats = new RepeatedRecords();
  const writtenIds = boardIdSets();

  /** The boards and their items' iterator, started by prefetch() or at the dataset's turn. */
  let started: AsyncGenerator<BoardItemsOf> | undefined;
  const start = () => {
    if (!started) {
      const limits = { ...readAhead, boardsInFlight: Math.max(readAhead.boardsInFlight, ctx.source.concurrency ?? 0) };
      // The metadata is served too: audited as it arrives, once per board, whether or not the board has items.
      const loadMeta = async (boardId: string) => {
        const meta = await loadBoardMetadata(ctx, boardId);
        auditBoardMetadata(audit, meta);
        return meta;
      };
      const items = boardItemsInOrder(ctx.source, loadMeta, boards, limits);
      // An async generator runs only when asked: ask for the first feature now, keep it for rows().
      const first = items.next();
      first.catch(() => undefined);
      started = prepend(first, items);
    }
    return started;
  };

  /** The rows of one answer: its features, each followed by its stories, made as the consumer takes them. */
  function* pageRows({ board, meta, items: page }: BoardItemsOf, timeZone: string): Iterable<TableRow> {
    const count = counts.get(board.id)!;
    const ids = writtenIds(board.id);
    for (const item of page) {
      // A feature sent again is dropped with its stories: they came with it the first time.
      if (!repeats.first(ids, item.id, 'board-items', childItems(item).length)) continue;
      count.features++;
      audit.check('board-items', item, BOARD_ITEM_SHAPE);
      if (typeof item.teamsAndSprints === 'string') {
        audit.warn('board-items', 'teamsAndSprints', 'text where a list of { sprint, team } was expected; shown as is in sprints');
      }
      yield featureRow(board, item, meta, timeZone);
      for (const story of childItems(item)) {
        if (!repeats.first(ids, story.id, 'board-items')) continue;
        count.stories++;
        yield storyRow(board, item, story, meta, timeZone);
      }
    }
  }

  /** A batch per answer. */
  async function* batches(items: AsyncGenerator<BoardItemsOf>): AsyncIterable<Iterable<TableRow>> {
    for (const board of boards) counts.set(board.id, { features: 0, stories: 0 });
    const timeZone = ctx.definition.timeZone;
    for await (const page of items) if (page.items.length > 0) yield pageRows(page, timeZone);
    repeats.warn(ctx.log, 'board-items');
  }

  async function* tables(): AsyncIterable<TableOutput> {
    const items = start();
    auditBoards(audit, boards);
    yield { table: { name: 'board-items', columns: BOARD_ITEM_COLUMNS, outlineLevels: 1 }, batches: batches(items) };
  }

  return {
    name: 'boardItems',
    prefetch: () => {
      // A failure of the first page is observed by tables(); until then it is held (start() catches it).
      start();
    },
    stop: async () => {
      await started?.return(undefined);
    },
    tables,
    resolvedSelectors: () => ({ boards: boards.map((b) => ({ id: b.id, title: b.title ?? null })) }),
    summary: () => [
      {
        heading: termIn(ctx, 'boardItems'),
        lines: [],
        grid: {
          columns: [{ label: termIn(ctx, 'board') }, { label: termIn(ctx, 'features'), type: 'integer' }, { label: termIn(ctx, 'stories'), type: 'integer' }],
          rows: boards.map((b) => {
            const c = counts.get(b.id) ?? { features: 0, stories: 0 };
            return { values: [b.title ?? b.id, c.features, c.stories] };
          }),
        },
      },
    ],
    figures: () => ({
      ...audit.figures(),
      ...repeats.figures(),
      boardItems: Object.fromEntries(boards.map((b) => [b.id, { title: b.title ?? null, ...(counts.get(b.id) ?? { features: 0, stories: 0 }) }])),
    }),
  };
}

/** The plan of the board items: the boards named and those of the collections named, or every visible one. */
async function planBoardItems(ctx: PlanContext): Promise<DatasetPlan> {
  // The items operation tells no total: a board's pages are known only as they come.
  const perBoard = { requests: 4, exact: false, how: 'the statuses, sprints and teams of each board, and its features a page at a time until an empty page' };
  return planBoardDataset(ctx, 'boardItems', datasetOptions(ctx.definition, 'boardItems', BOARD_ITEM_OPTIONS) ?? {}, perBoard, boardItemsDataset);
}

/** `datasets.boardItems` in a definition. */
const BOARD_ITEM_OPTIONS = z.strictObject(BOARD_SELECTORS);

export const BOARD_ITEMS_DATASET: DatasetEntry<'boardItems', typeof BOARD_ITEM_OPTIONS, keyof typeof SLICED_BY_BOARDS> = {
  name: 'boardItems',
  options: BOARD_ITEM_OPTIONS,
  selectors: ['boards', 'collections'],
  slicedBy: SLICED_BY_BOARDS,
  apiGroup: 'pi-board-items',
  // The part that grows with the portfolio: its boards are split among the fan-out's workers.
  fanOut: {
    split: (plan) => plan.reads.flatMap((read) => read.records.map((board) => board.id)),
    part: (boards) => ({ boards: [...boards] }),
  },
  plan: planBoardItems,
  tables: [{
    name: 'board-items',
    title: 'Board items',
    contract: { version: '1.3', columns: BOARD_ITEM_COLUMNS },
    notExported: BOARD_ITEM_NOT_EXPORTED,
    changes: changeRules(BOARD_ITEM_TABLE.tracked, {
      key: [['board_id'], ['id']], display: ['external_key', 'id'], title: 'summary', link: 'external_link', scope: 'board_id', teams: 'teams',
    }),
    docs: {
      intro: 'One row per feature and per story of the selected boards (default: all visible); each story follows its feature.',
      versions: { '1.3': "added `board_state_id`, the id of the board's state" },
    },
  }],
};
