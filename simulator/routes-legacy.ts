/** Legacy address (contract 4.4 PI Objectives and 4.5 PI Board Items), paths /api/<companyPrefix>/... */
import { projectBoardItem } from './board-items';
import type { SimBoard } from './boards';
import type { RouteContext, RouteResult } from './routing';
import { legacyError, methodNotAllowed } from './routing';
import { docsPiObjectiveGroup, projectDocsBoardItem } from './vocabulary';

/** Default `pageSize` of List board items. */
export const ITEMS_PAGE_SIZE = 50;

const GET_ROUTES = new Set(['collections', 'boards', 'objective-groups']);
const POST_ROUTES = new Set(['items', 'sprints', 'teams', 'statuses']);

/** The service's documented answer to a missing, unknown or inaccessible board id. */
const NO_SESSION_BOARD = 'No Session Board found';

function visibleBoard(ctx: RouteContext, boardId: unknown): SimBoard | RouteResult {
  const docs = ctx.vocabulary === 'docs';
  if (boardId === undefined || boardId === null || boardId === '') return docs ? legacyError(500, NO_SESSION_BOARD) : legacyError(400, 'boardId is required');
  if (typeof boardId !== 'string' && typeof boardId !== 'number') return legacyError(400, 'boardId must be a string');
  const board = ctx.tenant.board(String(boardId));
  if (!board || !ctx.view.canSeeBoard(board.id)) {
    return docs ? legacyError(500, NO_SESSION_BOARD) : legacyError(404, `Board '${String(boardId)}' not found`);
  }
  return board;
}

function isBoard(value: SimBoard | RouteResult): value is SimBoard {
  return 'trackerFamily' in value;
}

function toInt(value: unknown, fallback: number): number | undefined {
  if (value === undefined || value === null || value === '') return fallback;
  const n = typeof value === 'number' ? value : typeof value === 'string' ? Number(value) : Number.NaN;
  return Number.isFinite(n) ? Math.floor(n) : undefined;
}

/** Handles a legacy route; undefined when the path is not one. */
export function handleLegacyRoute(ctx: RouteContext): RouteResult | undefined {
  const { segments: s, view, query } = ctx;
  if (s.length !== 1) return undefined;
  const name = s[0] ?? '';
  if (GET_ROUTES.has(name) && ctx.method !== 'GET') return methodNotAllowed('legacy', 'GET');
  if (POST_ROUTES.has(name) && ctx.method !== 'POST') return methodNotAllowed('legacy', 'POST');

  switch (name) {
    case 'collections':
      return { status: 200, body: { data: view.collections } };
    case 'boards': {
      // Only the plural `collectionIds` filters; the singular `collectionId` is silently ignored.
      const filter = query.get('collectionIds');
      let boards = view.boards;
      if (filter !== null && filter.trim() !== '') {
        const ids = new Set(filter.split(',').map((id) => id.trim()));
        boards = boards.filter((b) => ids.has(b.collectionId));
      }
      return { status: 200, body: { data: boards.map((b) => b.record) } };
    }
    case 'objective-groups': {
      const board = visibleBoard(ctx, query.get('boardId') ?? undefined);
      if (!isBoard(board)) return board;
      const groups = ctx.tenant.piObjectiveGroups(board.id, query.get('completionType'), query.get('additionalColumns') === '1');
      return { status: 200, body: { data: ctx.vocabulary === 'docs' ? groups.map(docsPiObjectiveGroup) : groups } };
    }
    case 'items':
    case 'sprints':
    case 'teams':
    case 'statuses':
      break;
    default:
      return undefined;
  }

  // POST operations: JSON body with boardId.
  const body = ctx.body;
  if (body !== undefined && (typeof body !== 'object' || body === null || Array.isArray(body))) {
    return legacyError(400, 'Request body must be a JSON object');
  }
  const fieldsOf = (body ?? {}) as Record<string, unknown>;
  const board = visibleBoard(ctx, fieldsOf.boardId);
  if (!isBoard(board)) return board;
  const meta = ctx.tenant.boardMeta(board.id);
  if (name === 'sprints') return { status: 200, body: { data: meta.sprints } };
  if (name === 'teams') return { status: 200, body: { data: meta.teams } };
  if (name === 'statuses') return { status: 200, body: meta.statuses };

  const pageStart = toInt(fieldsOf.pageStart, 0);
  let pageSize = toInt(fieldsOf.pageSize, ITEMS_PAGE_SIZE);
  if (pageStart === undefined) return legacyError(400, 'pageStart must be a number');
  if (pageSize === undefined) return legacyError(400, 'pageSize must be a number');
  if (pageSize < 1) pageSize = ITEMS_PAGE_SIZE;
  if (ctx.maxItemsPageSize !== undefined) pageSize = Math.min(pageSize, ctx.maxItemsPageSize);
  let fields: string[] | undefined;
  if (fieldsOf.fields !== undefined && fieldsOf.fields !== null) {
    if (!Array.isArray(fieldsOf.fields) || !fieldsOf.fields.every((f) => typeof f === 'string')) {
      return legacyError(400, 'fields must be an array of strings');
    }
    fields = fieldsOf.fields;
  }
  const start = Math.max(0, pageStart);
  // O(page): only the requested items are generated and serialised.
  const items = ctx.tenant.boardItems(board.id, start, start + pageSize);
  const data =
    ctx.vocabulary === 'docs'
      ? items.map((item) => projectDocsBoardItem(item, meta.sprints, fields))
      : items.map((item) => projectBoardItem(item, fields));
  return { status: 200, body: { data } };
}
