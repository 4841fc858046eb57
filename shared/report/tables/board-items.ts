import type { Board, BoardItem, BoardStatus, BoardStory, Sprint, Team } from '../../planning-api/schemas';
import { parseApiDate } from '../dates';
import type { Dataset, DatasetContext, TableOutput } from '../dataset';
import type { Column, TableRow } from '../table';
import { selectBoards } from './boards';
import { col, dateOrText, joinList, link } from './columns';

export const BOARD_ITEM_COLUMNS: readonly Column[] = [
  col('board_id', 'text', 'Board id', 12),
  col('board_title', 'text', 'Board title', 24),
  col('kind', 'text', '"feature" (parent item) or "story" (child item)', 8),
  col('id', 'text', 'Item id', 12),
  col('parent_id', 'text', 'For stories: id of the feature', 12),
  col('external_key', 'text', 'Key of the item in the tracker', 12),
  col('external_link', 'link', 'Link to the item in the tracker', 36),
  col('summary', 'text', 'Summary (title)', 44),
  col('item_type', 'text', 'Item type (features)', 12),
  col('card_type', 'text', 'Card type (features)', 12),
  col('status', 'text', 'Status title, resolved through the statuses operation', 14),
  col('status_category', 'text', 'Status category, e.g. ToDo', 12),
  col('sprints', 'text', 'Sprint titles, "; "-separated (features)', 20),
  col('teams', 'text', 'Team titles, "; "-separated (features)', 20),
  col('estimates', 'number', 'Estimate (story points or effort)'),
  col('completion_by_status', 'percent', 'Completion by status of the stories (features)'),
  col('completion_by_estimate', 'percent', 'Completion by estimate of the stories (features)'),
  col('created_on', 'date', 'Creation date (features)'),
  col('created_by', 'text', 'Login of the creator (features)', 18),
  col('updated_on', 'date', 'Last update date (features)'),
  col('updated_by', 'text', 'Login of the last updater (features)', 18),
  col('iteration_path', 'text', 'Iteration path (features)', 20),
  col('area_path', 'text', 'Area path (features)', 20),
];

/**
 * The fields asked for explicitly: with a `fields` list the server returns only those (plus id),
 * and the default set for features is not documented, so relying on it could drop a column's data.
 */
export const BOARD_ITEM_FIELDS = [
  'summary', 'externalKey', 'externalUrl', 'itemType', 'cardType', 'status', 'teamsAndSprints', 'estimates',
  'completionByStatus', 'completionByEstimate', 'createdOn', 'createdBy', 'updatedOn', 'updatedBy',
  'iterationPath', 'areaPath', 'extCId', 'children',
] as const;

/** Looks a reference up by id first, then by title: the items operation may send either. */
class Lookup<T extends { id: string; title?: string | null }> {
  private readonly byId = new Map<string, T>();
  private readonly byTitle = new Map<string, T>();
  constructor(records: readonly T[]) {
    for (const r of records) {
      this.byId.set(r.id, r);
      if (r.title) this.byTitle.set(r.title, r);
    }
  }
  find(ref: string | null | undefined): T | undefined {
    if (!ref) return undefined;
    return this.byId.get(ref) ?? this.byTitle.get(ref);
  }
  title(ref: string | null | undefined): string | null {
    if (!ref) return null;
    return this.find(ref)?.title ?? ref;
  }
}

interface BoardMetadata {
  readonly parentStatuses: Lookup<BoardStatus>;
  readonly childStatuses: Lookup<BoardStatus>;
  readonly sprints: Lookup<Sprint>;
  readonly teams: Lookup<Team>;
}

async function loadMetadata(ctx: DatasetContext, boardId: string): Promise<BoardMetadata> {
  const [statuses, sprints, teams] = await Promise.all([
    ctx.source.getStatuses(boardId),
    ctx.source.listSprints(boardId),
    ctx.source.listTeams(boardId),
  ]);
  return {
    parentStatuses: new Lookup(statuses.parentStatuses ?? []),
    childStatuses: new Lookup(statuses.childrenStatuses ?? []),
    sprints: new Lookup(sprints),
    teams: new Lookup(teams),
  };
}

export function featureRow(board: Board, item: BoardItem, meta: BoardMetadata): TableRow {
  const status = meta.parentStatuses.find(item.status);
  const plan = item.teamsAndSprints ?? [];
  return {
    outlineLevel: 0,
    values: [
      board.id, board.title ?? null, 'feature', item.id, null, item.externalKey ?? null,
      link(item.externalKey, item.externalUrl), item.summary ?? null, item.itemType ?? null, item.cardType ?? null,
      status?.title ?? item.status ?? null, status?.category ?? null,
      joinList([...new Set(plan.map((p) => meta.sprints.title(p.sprint)))]),
      joinList([...new Set(plan.map((p) => meta.teams.title(p.team)))]),
      item.estimates ?? null, item.completionByStatus ?? null, item.completionByEstimate ?? null,
      dateOrText(item.createdOn, parseApiDate), item.createdBy ?? null, dateOrText(item.updatedOn, parseApiDate),
      item.updatedBy ?? null, item.iterationPath ?? null, item.areaPath ?? null,
    ],
  };
}

export function storyRow(board: Board, feature: BoardItem, story: BoardStory, meta: BoardMetadata): TableRow {
  const status = meta.childStatuses.find(story.status) ?? meta.parentStatuses.find(story.status);
  return {
    outlineLevel: 1,
    values: [
      board.id, board.title ?? null, 'story', story.id, story.parentId ?? feature.id, story.externalKey ?? null,
      link(story.externalKey, story.externalUrl), story.summary ?? null, null, null,
      status?.title ?? story.status ?? null, status?.category ?? null, null, null, story.estimates ?? null,
    ],
  };
}

/** The `board-items` table: features and their stories, streamed board by board. */
export function boardItemsDataset(ctx: DatasetContext): Dataset {
  const selection = ctx.definition.datasets.boardItems ?? {};
  let boards: Board[] = [];
  const counts = new Map<string, { features: number; stories: number }>();

  async function* rows(): AsyncIterable<TableRow> {
    // The next board's metadata loads while this board's items stream.
    let nextMeta = boards.length > 0 ? loadMetadata(ctx, boards[0]!.id) : undefined;
    for (let i = 0; i < boards.length; i++) {
      const board = boards[i]!;
      const meta = await nextMeta!;
      nextMeta = i + 1 < boards.length ? loadMetadata(ctx, boards[i + 1]!.id) : undefined;
      // Attach a handler now so a failure of the prefetch is not an unhandled rejection while we stream.
      nextMeta?.catch(() => undefined);
      const count = { features: 0, stories: 0 };
      counts.set(board.id, count);
      for await (const item of ctx.source.listBoardItems(board.id, { fields: BOARD_ITEM_FIELDS })) {
        count.features++;
        yield featureRow(board, item, meta);
        for (const story of item.stories ?? []) {
          count.stories++;
          yield storyRow(board, item, story, meta);
        }
      }
    }
  }

  async function* tables(): AsyncIterable<TableOutput> {
    boards = await selectBoards(ctx.source, selection, 'boardItems', ctx.log);
    yield { table: { name: 'board-items', columns: BOARD_ITEM_COLUMNS, outlineLevels: 1 }, rows: rows() };
  }

  return {
    name: 'boardItems',
    tables,
    resolvedSelectors: () => ({ boards: boards.map((b) => ({ id: b.id, title: b.title ?? null })) }),
    summary: () => [
      {
        heading: 'Board items',
        lines: boards.flatMap((b) => {
          const c = counts.get(b.id) ?? { features: 0, stories: 0 };
          return [
            { label: `${b.title ?? b.id}: features`, value: c.features, type: 'integer' as const },
            { label: `${b.title ?? b.id}: stories`, value: c.stories, type: 'integer' as const },
          ];
        }),
      },
    ],
    figures: () => ({
      boardItems: Object.fromEntries(boards.map((b) => [b.id, { title: b.title ?? null, ...(counts.get(b.id) ?? { features: 0, stories: 0 }) }])),
    }),
  };
}
