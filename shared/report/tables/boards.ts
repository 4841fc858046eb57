import type { Log } from '../../core/logger';
import type { Board } from '../../planning-api/schemas';
import type { PlanningSource } from '../planning-source';
import { RepeatedRecords } from '../repeated-records';
import { resolveSelector } from '../selector-titles';
import type { FieldShape } from '../field-audit';
import type { ColumnSpec } from '../../table/column-spec';
import { idOrText } from './columns';

/** The fields the board columns read (audited under `board.` by the tables that show a board's title and state). */
export const BOARD_SHAPE: FieldShape = { id: true, title: true, state: { id: true, title: true } };

/** The board state's id (or the id sent in place of the state), for joins: added at the end of the tables that show the state. */
export const boardStateIdColumn: ColumnSpec<{ readonly board: Board }, 'board_state_id'> = {
  name: 'board_state_id', type: 'text', label: 'Board state id', width: 10, hidden: true, description: 'Id of the state of the board',
  read: (s) => idOrText(s.board.state),
};

/**
 * Resolves `boards` / `collections` selectors (ids or titles) of a legacy dataset to visible boards.
 * Boards named directly and boards of the named collections are combined (union), in the order of
 * the API's board list, each once (`repeats` counts a board the list repeats). Board ids must come
 * from the list-boards operation (rule 2 of the API): an id from a browser address bar is a session
 * id and is reported as not visible.
 */
export async function selectBoards(
  source: PlanningSource,
  selection: { boards?: readonly string[] | undefined; collections?: readonly string[] | undefined },
  dataset: string,
  log: Log,
  repeats: RepeatedRecords = new RepeatedRecords(),
): Promise<Board[]> {
  // A board listed twice would be exported twice (its items and objectives doubled): the first is kept.
  const all = repeats.unique(await source.listBoards(), (b) => b.id, 'boards');
  repeats.warn(log, 'boards');
  if (!selection.boards && !selection.collections) return all;
  const chosen = new Set<string>();
  if (selection.collections) {
    const collections = await source.listCollections();
    const collectionIds = selection.collections.map(
      (selector) => resolveSelector(collections, selector, { path: `${dataset}.collections`, noun: 'collection', keyed: false }).id,
    );
    const inCollections = await source.listBoards({ collectionIds });
    if (inCollections.length === all.length && all.length > 1) {
      // Some deployments ignore the collection filter; say so rather than silently exporting everything.
      log.warn('collection filter returned every visible board; the server may ignore it', {
        dataset,
        collections: collectionIds,
      });
    }
    for (const board of inCollections) chosen.add(board.id);
  }
  for (const selector of selection.boards ?? []) {
    const hint = 'Use ids from the list-boards operation (an id copied from the browser address bar is a session id), or list them with `npm run discover`.';
    chosen.add(resolveSelector(all, selector, { path: `${dataset}.boards`, noun: 'board', keyed: false, hint }).id);
  }
  return all.filter((b) => chosen.has(b.id));
}
