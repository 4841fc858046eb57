import { SelectorNotFoundError } from '../../core/errors';
import type { Log } from '../../core/logger';
import type { Board } from '../../planning-api/schemas';
import type { PlanningSource } from '../planning-source';

/**
 * Resolves `boards` / `collections` selectors of a legacy dataset to visible boards.
 * Boards named directly and boards of the named collections are combined (union), in the order of
 * the API's board list. Board ids must come from the list-boards operation (rule 2 of the API): an
 * id from a browser address bar is a session id and is reported as not visible.
 */
export async function selectBoards(
  source: PlanningSource,
  selection: { boards?: readonly string[] | undefined; collections?: readonly string[] | undefined },
  dataset: string,
  log: Log,
): Promise<Board[]> {
  const all = await source.listBoards();
  if (!selection.boards && !selection.collections) return all;
  const chosen = new Set<string>();
  if (selection.collections) {
    const collections = await source.listCollections();
    for (const id of selection.collections) {
      if (!collections.some((c) => c.id === id)) {
        throw new SelectorNotFoundError(
          `${dataset}.collections: no visible collection has the id "${id}". ` +
            `Visible collections: ${collections.map((c) => `${c.id} (${c.title ?? ''})`).join(', ') || '(none)'}.`,
        );
      }
    }
    const inCollections = await source.listBoards({ collectionIds: selection.collections });
    if (inCollections.length === all.length && all.length > 1) {
      // Some deployments ignore the collection filter; say so rather than silently exporting everything.
      log.warn('collection filter returned every visible board; the server may ignore it', {
        dataset,
        collections: selection.collections,
      });
    }
    for (const board of inCollections) chosen.add(board.id);
  }
  for (const id of selection.boards ?? []) {
    if (!all.some((b) => b.id === id)) {
      throw new SelectorNotFoundError(
        `${dataset}.boards: no visible board has the id "${id}". Use ids from the list-boards operation ` +
          `(an id copied from the browser address bar is a session id). Visible boards: ` +
          `${all.map((b) => `${b.id} (${b.title ?? ''})`).join(', ') || '(none)'}.`,
      );
    }
    chosen.add(id);
  }
  return all.filter((b) => chosen.has(b.id));
}
