import type { Board } from '../../planning-api/schemas';
import { idList } from '../dataset/definition-limits';
import type { Dataset, DatasetContext, DatasetPlan, PlanContext, RequestEstimate } from '../dataset/dataset';
import type { PlanIssue } from '../dataset/plan-issue';
import { selectAll } from '../dataset/selector-titles';

import type { FieldShape } from '../dataset/field-audit';
import type { ColumnSpec } from '../../table/column-spec';
import { idOrText } from './columns';

/** The fields the board columns read (audited under `board.` by the tables that show a board's title and state). */
export const BOARD_SHAPE: FieldShape = { id: true, title: true, state: { id: true, title: true } };

/** The board state's id (or the id sent in place of the state), for joins: added at the end of the tables that show the state. */
export const boardStateIdColumn: ColumnSpec<{ readonly board: Board }, 'board_state_id'> = {
  name: 'board_state_id', type: 'text', label: 'Board state id', width: 10, hidden: true, description: 'Id of the state of the board',
  read: (s) => idOrText(s.board.state),
};

/** The `boards` / `collections` selectors of a legacy dataset, in its options (the definition schema). */
export const BOARD_SELECTORS = { boards: idList('board id or title'), collections: idList('collection id or title') };

/** A delivery's `boards` and `collections` narrow a legacy dataset's selectors of the same names. */
export const SLICED_BY_BOARDS = { boards: 'boards', collections: 'collections' } as const;

/** The `boards` / `collections` selectors of a legacy dataset, parsed. */
export interface BoardSelection {
  readonly boards?: readonly string[] | undefined;
  readonly collections?: readonly string[] | undefined;
}

const BOARD_HINT = 'Use ids from the list-boards operation (an id copied from the browser address bar is a session id), or list them with `npm run discover`.';

/**
 * The plan of a legacy dataset's boards (`dataset`: its name under `datasets`): its `boards` /
 * `collections` selectors (ids or titles) resolved to visible boards. Boards named directly and
 * boards of the named collections are combined (union), in the order of the API's board list, each
 * once. Board ids must come from the list-boards operation (rule 2 of the API): an id from a browser
 * address bar is a session id and is reported as not visible. Every selector that names nothing is
 * an issue; a company prefix the API refuses is the one issue instead (no board can be checked).
 */
export async function planBoards(ctx: PlanContext, selection: BoardSelection, dataset: string): Promise<{ boards: Board[]; issues: PlanIssue[] }> {
  const all = await ctx.lists.boards();
  if (all.issue) return { boards: [], issues: [all.issue] };
  if (!selection.boards && !selection.collections) return { boards: [...all.records], issues: [] };
  const chosen = new Set<string>();
  const issues: PlanIssue[] = [];
  if (selection.collections) {
    const inCollections = await boardsOfCollections(ctx, selection.collections, dataset, all.records.length);
    issues.push(...inCollections.issues);
    for (const board of inCollections.boards) chosen.add(board.id);
  }
  const named = selectAll(all.records, selection.boards ?? [], `datasets.${dataset}.boards`, { noun: 'board', keyed: false, hint: BOARD_HINT });
  issues.push(...named.issues);
  for (const board of named.records) chosen.add(board.id);
  return { boards: all.records.filter((b) => chosen.has(b.id)), issues };
}

/**
 * The plan of a dataset read board by board (the PI objectives, the board items): its boards planned
 * (planBoards), what it reads for the dry run, its request estimate per board, and the dataset made
 * of those boards.
 */
export async function planBoardDataset(
  ctx: PlanContext,
  dataset: string,
  selection: BoardSelection,
  /** The estimate for one board: `requests` is multiplied by the boards planned. */
  perBoard: RequestEstimate,
  create: (ctx: DatasetContext, boards: readonly Board[]) => Dataset,
): Promise<DatasetPlan> {
  const { boards, issues } = await planBoards(ctx, selection, dataset);
  return {
    issues,
    reads: [{ noun: 'board', records: boards }],
    estimate: { ...perBoard, requests: perBoard.requests * boards.length },
    create: (made) => create(made, boards),
  };
}

/** The boards of the named collections, as the API lists them; none asked for while a collection is unknown. */
async function boardsOfCollections(
  ctx: PlanContext,
  selectors: readonly string[],
  dataset: string,
  visible: number,
): Promise<{ boards: readonly Board[]; issues: PlanIssue[] }> {
  const collections = await ctx.lists.collections();
  if (collections.issue) return { boards: [], issues: [collections.issue] };
  const named = selectAll(collections.records, selectors, `datasets.${dataset}.collections`, { noun: 'collection', keyed: false });
  // The plan fails anyway: the list of a wrong selection is not worth a request.
  if (named.issues.length > 0) return { boards: [], issues: named.issues };
  const collectionIds = named.records.map((c) => c.id);
  const inCollections = await ctx.lists.boards(collectionIds);
  if (inCollections.issue) return { boards: [], issues: [inCollections.issue] };
  if (inCollections.records.length === visible && visible > 1) {
    // Some deployments ignore the collection filter; say so rather than silently exporting everything.
    ctx.log.warn('collection filter returned every visible board; the server may ignore it', { dataset, collections: collectionIds });
  }
  return { boards: inCollections.records, issues: [] };
}

