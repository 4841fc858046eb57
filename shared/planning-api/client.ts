import { PlanningApiError, SchemaMismatchError } from '../core/errors';
import type { Log } from '../core/logger';
import { timerSleep } from '../core/retry/retry';
import type { PlanningApiClientOptions } from './client-options';
import { API_BOARD_ITEMS_PAGE_SIZE } from './client-settings';
import { HttpTransport } from './transport/http-transport';
import { redactErrorsOf } from './redacting-errors';
import { pageOffset } from './paging';
import { parseRecord, readBareObject, readListEnvelope, readObjectEnvelope } from './parse';
import { PlanningApiRequester, type Call } from './transport/requester';
import { resolveRetryOptions } from './transport/retry';
import {
  boardItemSchema,
  boardRefSchema,
  boardRegisterSchema,
  boardSchema,
  boardStatusSchema,
  collectionSchema,
  COMPLETION_TYPES,
  keyResultSchema,
  okrObjectiveGroupSchema,
  okrObjectiveSchema,
  piObjectiveGroupSchema,
  portfolioThemeSchema,
  riskRegisterSchema,
  riskSchema,
  sprintSchema,
  strategicThemeSchema,
  teamSchema,
  themeProgressSchema,
  type Board,
  type BoardItem,
  type BoardRef,
  type BoardRegister,
  type BoardStatus,
  type Collection,
  type CompletionType,
  type KeyResult,
  type OkrObjective,
  type OkrObjectiveGroup,
  type PiObjectiveGroup,
  type PortfolioTheme,
  type Risk,
  type RiskRegister,
  type Sprint,
  type StrategicTheme,
  type Team,
  type ThemeProgress,
} from './schemas';

export type { PlanningApiClientOptions } from './client-options';
export { API_BOARD_ITEMS_PAGE_SIZE, MAX_PAGE_LIMIT } from './client-settings';

export interface ListBoardsOptions {
  collectionIds?: readonly string[];
}

export interface PiObjectiveGroupsOptions {
  /** Completion calculation 1 to 6, as the API numbers them; omitted: the board's default (2, or 6 in OKR mode). */
  completionType?: CompletionType | undefined;
  /** Adds `teamsAndSprints` to every linked item and sub-item. */
  additionalColumns?: boolean;
}

export interface BoardItemsOptions {
  /** Restricts item fields (e.g. ['children', 'createdOn']); omitted: the server's default fields. */
  fields?: readonly string[];
  /** Items per request. Default 50. */
  pageSize?: number;
}

/** One answer of a board's items: its features, and the size of the answer they came in. */
export interface BoardItemsPage {
  readonly items: readonly BoardItem[];
  /** Bytes of the answer (the read-ahead weighs what it holds by them). */
  readonly bytes: number;
}

/** Statuses of a board, both lists always present (a missing list is empty). */
export type BoardStatuses = {
  parentStatuses: BoardStatus[];
  childrenStatuses: BoardStatus[];
};


const seg = encodeURIComponent;

async function* itemsOf(pages: AsyncIterable<BoardItemsPage>): AsyncGenerator<BoardItem, void, undefined> {
  for await (const page of pages) yield* page.items;
}

/** How a call names what it reads: in the not-found message, and in its other failures. */
function about(noun: string, idOrKey: string): { notFound: string; subject: string } {
  const subject = `${noun} "${idOrKey}"`;
  return { notFound: `${subject} was not found`, subject };
}

/**
 * Typed client of the Work-Planning Reporting API (its operations are listed in docs/simulator.md). Lists that page are async
 * iterators that stream records in server order; lists that come in one response are arrays.
 * Every record is validated (schemas.ts) before it is returned.
 */
export class PlanningApiClient {
  readonly #requester: PlanningApiRequester;
  readonly #log: Log;
  readonly #boardItemsPageSize: number;
  /** Set once the server refused a board-items page size above the API's default with 400. */
  #boardItemsPageCap = Number.POSITIVE_INFINITY;
  readonly #concurrency: number;
  readonly #listLimits: { readonly maxPages: number; readonly maxBytes: number };

  /**
   * Requests the client lets be in flight at once (its limiter's limit, shared by the export). A
   * getter over a private field: the client object has no own enumerable properties at all.
   */
  get concurrency(): number {
    return this.#concurrency;
  }

  constructor(options: PlanningApiClientOptions) {
    const { timeoutMs, pageLimit, boardItemsPageSize, maxResponseBytes, maxListPages, maxListBytes } = options.settings;
    this.#listLimits = { maxPages: maxListPages, maxBytes: maxListBytes };
    this.#log = options.log;
    this.#boardItemsPageSize = boardItemsPageSize;
    const limiter = options.limiter;
    this.#concurrency = limiter.limit;
    // The credentials object is not kept: only the transport holds the key, in a private field.
    const transport = new HttpTransport({ credentials: options.credentials, fetch: options.fetch, timeoutMs, timeoutSignal: options.timeoutSignal, maxResponseBytes });
    // Whatever an error quotes from a response (a failing field of a 200 too) is redacted on the way out.
    redactErrorsOf(this, (text) => transport.redact(text));
    this.#requester = new PlanningApiRequester({
      transport,
      deadline: options.deadline,
      baseUrl: options.credentials.baseUrl,
      legacyBaseUrl: `${options.credentials.legacyBaseUrl.replace(/\/+$/, '')}/api/${seg(options.credentials.companyPrefix)}`,
      limiter,
      pace: options.pace,
      log: this.#log,
      retry: resolveRetryOptions(options.retry),
      pageLimit,
      sleep: options.sleep ?? timerSleep,
      random: options.random ?? Math.random,
      // Deadlines are on the door's clock, as epoch ms.
      now: () => options.clock().getTime(),
      onRequest: options.onRequest,
      listLimits: this.#listLimits,
    });
  }

  // ---------------------------------------------------------------- Risk (v1, envelope `data`)

  listRiskRegisters(): AsyncGenerator<RiskRegister, void, undefined> {
    return this.#requester.listV1('listRiskRegisters', 'riskregister', 'data', riskRegisterSchema, {});
  }

  listRisks(registerIdOrKey: string): AsyncGenerator<Risk, void, undefined> {
    return this.#requester.listV1('listRisks', `${seg(registerIdOrKey)}/risk`, 'data', riskSchema, about('risk register', registerIdOrKey));
  }

  getRisk(riskId: string): Promise<Risk> {
    return this.#requester.getV1('getRisk', `risk/${seg(riskId)}`, 'data', riskSchema, about('risk', riskId));
  }

  /** The register linked to a board (PI board, solution train, portfolio board...). */
  getBoardRegister(boardId: string): Promise<BoardRegister> {
    return this.#requester.getV1('getBoardRegister', `${seg(boardId)}/riskregister`, 'data', boardRegisterSchema, {
      notFound: `no risk register is linked to board "${boardId}"`,
      subject: `board "${boardId}"`,
    });
  }

  /** Boards linked to a register. This operation takes no `fields` parameter. */
  listRegisterBoards(registerIdOrKey: string): AsyncGenerator<BoardRef, void, undefined> {
    return this.#requester.listV1('listRegisterBoards', `${seg(registerIdOrKey)}/boards`, 'data', boardRefSchema, {
      ...about('risk register', registerIdOrKey),
      noFields: true,
    });
  }

  // ---------------------------------------------- Strategic Themes & OKRs (v1, envelope `Data`)

  listPortfolioThemes(): AsyncGenerator<PortfolioTheme, void, undefined> {
    return this.#requester.listV1('listPortfolioThemes', 'portfolio-themes', 'Data', portfolioThemeSchema, {});
  }

  getPortfolioTheme(keyOrId: string): Promise<PortfolioTheme> {
    return this.#requester.getV1('getPortfolioTheme', `portfolio-themes/${seg(keyOrId)}`, 'Data', portfolioThemeSchema, about('portfolio theme', keyOrId));
  }

  listStrategicThemes(): AsyncGenerator<StrategicTheme, void, undefined> {
    return this.#requester.listV1('listStrategicThemes', 'strategic-themes', 'Data', strategicThemeSchema, {});
  }

  /** Strategic Themes of one Portfolio Theme (the API shows only id, key and title here). */
  listPortfolioStrategicThemes(portfolioKeyOrId: string): AsyncGenerator<StrategicTheme, void, undefined> {
    return this.#requester.listV1(
      'listPortfolioStrategicThemes',
      `portfolio-themes/${seg(portfolioKeyOrId)}/strategic-themes`,
      'Data',
      strategicThemeSchema,
      about('portfolio theme', portfolioKeyOrId),
    );
  }

  getStrategicTheme(keyOrId: string): Promise<StrategicTheme> {
    return this.#requester.getV1('getStrategicTheme', `strategic-themes/${seg(keyOrId)}`, 'Data', strategicThemeSchema, about('strategic theme', keyOrId));
  }

  listObjectiveGroups(themeKeyOrId: string): AsyncGenerator<OkrObjectiveGroup, void, undefined> {
    return this.#requester.listV1(
      'listObjectiveGroups',
      `strategic-themes/${seg(themeKeyOrId)}/objective-groups`,
      'Data',
      okrObjectiveGroupSchema,
      about('strategic theme', themeKeyOrId),
    );
  }

  /** Progress of a Strategic Theme: `Data` is an object here, and neither `fields` nor paging apply. */
  async getThemeProgress(themeKeyOrId: string): Promise<ThemeProgress> {
    const operation = 'getThemeProgress';
    const body = await this.#requester.call({
      operation,
      api: 'v1',
      method: 'GET',
      path: `strategic-themes/${seg(themeKeyOrId)}/progress`,
      ...about('strategic theme', themeKeyOrId),
    });
    return parseRecord(themeProgressSchema, readObjectEnvelope(body, 'Data', operation), operation);
  }

  listObjectives(groupId: string): AsyncGenerator<OkrObjective, void, undefined> {
    return this.#requester.listV1('listObjectives', `objective-groups/${seg(groupId)}/objectives`, 'Data', okrObjectiveSchema, about('objective group', groupId));
  }

  getObjective(keyOrId: string): Promise<OkrObjective> {
    return this.#requester.getV1('getObjective', `objectives/${seg(keyOrId)}`, 'Data', okrObjectiveSchema, about('objective', keyOrId));
  }

  listKeyResults(objectiveKeyOrId: string): AsyncGenerator<KeyResult, void, undefined> {
    return this.#requester.listV1('listKeyResults', `objectives/${seg(objectiveKeyOrId)}/key-results`, 'Data', keyResultSchema, about('objective', objectiveKeyOrId));
  }

  getKeyResult(keyOrId: string): Promise<KeyResult> {
    return this.#requester.getV1('getKeyResult', `key-results/${seg(keyOrId)}`, 'Data', keyResultSchema, about('key result', keyOrId));
  }

  // ------------------------------------------ PI Objectives and PI Board Items (legacy address)

  listCollections(): Promise<Collection[]> {
    return this.#requester.listLegacy(
      { operation: 'listCollections', api: 'legacy', method: 'GET', path: 'collections' },
      collectionSchema,
    );
  }

  /**
   * Boards, optionally of some collections. The two legacy groups document different names for the
   * same filter: PI Objectives `collectionIds` (and it ignores the singular), PI Board Items
   * `collectionId`. Both are sent, so the filter applies whichever implementation serves the call.
   * The result cannot be checked on our side: a board record does not say which collection it is in.
   */
  listBoards(options: ListBoardsOptions = {}): Promise<Board[]> {
    const ids = options.collectionIds?.length ? options.collectionIds.join(',') : undefined;
    return this.#requester.listLegacy(
      {
        operation: 'listBoards',
        api: 'legacy',
        method: 'GET',
        path: 'boards',
        query: { collectionIds: ids, collectionId: ids },
      },
      boardSchema,
    );
  }

  /** PI Objective groups of a board, with their objectives, linked items and sub-items. */
  async listPiObjectiveGroups(boardId: string, options: PiObjectiveGroupsOptions = {}): Promise<PiObjectiveGroup[]> {
    const { completionType, additionalColumns } = options;
    // The server silently falls back to a default for a value it does not know, which would put a
    // different calculation in the report than the one asked for; so reject it here (as a rejected
    // promise, like every other failure of this method).
    if (completionType !== undefined && !Object.hasOwn(COMPLETION_TYPES, completionType)) {
      throw new RangeError(`completionType must be one of 1 to 6, got ${String(completionType)}`);
    }
    return this.#requester.listLegacy(
      {
        operation: 'listPiObjectiveGroups',
        api: 'legacy',
        method: 'GET',
        path: 'objective-groups',
        query: {
          boardId,
          completionType: completionType === undefined ? undefined : String(completionType),
          additionalColumns: additionalColumns ? '1' : undefined,
        },
        ...about('board', boardId),
      },
      piObjectiveGroupSchema,
    );
  }

  /**
   * Features (with their stories when `fields` asks for `children`) of a program board, an answer
   * at a time. Pages until an empty page: the API reports no total, and a page shorter than
   * `pageSize` is not the end because a server may cap the page size without saying so. (POST, but
   * a read: retrying it is safe.) A 400 for a page size above the API's default 50 is taken as "too
   * large": that page is asked for again with 50, and so is every later page of this client.
   * Handed over a page at a time because a portfolio has millions of rows: an await per feature
   * through the layers above cost more CPU than parsing the feature.
   */
  listBoardItemPages(boardId: string, options: BoardItemsOptions = {}): AsyncGenerator<BoardItemsPage, void, undefined> {
    const operation = 'listBoardItems';
    const pageSize = options.pageSize ?? this.#boardItemsPageSize;
    if (!Number.isInteger(pageSize) || pageSize < 1) {
      throw new RangeError(`pageSize must be a positive integer, got ${String(pageSize)}`);
    }
    const fields = options.fields ? [...options.fields] : undefined;
    return pageOffset<BoardItem, BoardItemsPage>({
      operation,
      pageSize,
      recordsOf: (page) => page.items,
      bytesOf: (page) => page.bytes,
      idOf: (item) => item.id,
      limits: { ...this.#listLimits, subject: about('board', boardId).subject },
      fetchPage: async (pageStart, size) => {
        let bytes = 0;
        const page = (asked: number) =>
          this.#requester.call({
            operation,
            api: 'legacy',
            method: 'POST',
            path: 'items',
            body: { boardId, fields, pageStart, pageSize: asked },
            ...about('board', boardId),
            onAnswer: (n) => (bytes = n),
          });
        const asked = Math.min(size, this.#boardItemsPageCap);
        let body: unknown;
        try {
          body = await page(asked);
        } catch (error) {
          if (!(error instanceof PlanningApiError) || error.status !== 400 || asked <= API_BOARD_ITEMS_PAGE_SIZE) throw error;
          this.#boardItemsPageCap = API_BOARD_ITEMS_PAGE_SIZE;
          this.#log.warn('the planning API refused the board-items page size; using the default from now on', {
            operation,
            pageSize: asked,
            fallback: API_BOARD_ITEMS_PAGE_SIZE,
          });
          body = await page(API_BOARD_ITEMS_PAGE_SIZE);
        }
        const { records } = readListEnvelope(body, 'data', operation);
        const items = records.map((raw, i) => parseRecord(boardItemSchema, raw, operation, { index: pageStart + i }));
        return { items, bytes };
      },
    });
  }

  /** The features of a board one by one: listBoardItemPages flattened, for callers that want few. */
  listBoardItems(boardId: string, options: BoardItemsOptions = {}): AsyncGenerator<BoardItem, void, undefined> {
    return itemsOf(this.listBoardItemPages(boardId, options));
  }

  listSprints(boardId: string): Promise<Sprint[]> {
    return this.#requester.listLegacy(this.#boardMetadataCall('listSprints', 'sprints', boardId), sprintSchema);
  }

  listTeams(boardId: string): Promise<Team[]> {
    return this.#requester.listLegacy(this.#boardMetadataCall('listTeams', 'teams', boardId), teamSchema);
  }

  /** Statuses of a board's parent and child items. This response has no `data` key. */
  async getStatuses(boardId: string): Promise<BoardStatuses> {
    const call = this.#boardMetadataCall('getStatuses', 'statuses', boardId);
    const object = readBareObject(await this.#requester.call(call), call.operation);
    const read = (key: 'parentStatuses' | 'childrenStatuses'): BoardStatus[] => {
      const value = object[key];
      if (value === undefined || value === null) return [];
      if (!Array.isArray(value)) {
        throw new SchemaMismatchError(`${call.operation}: response field ${key}: expected array`, {
          operation: call.operation,
          path: key,
        });
      }
      return value.map((raw: unknown, index) =>
        parseRecord(boardStatusSchema, raw, call.operation, { index, pathPrefix: `${key}[${index}]` }),
      );
    };
    return { parentStatuses: read('parentStatuses'), childrenStatuses: read('childrenStatuses') };
  }

  // ------------------------------------------------------------------------------ internals

  #boardMetadataCall(operation: string, path: string, boardId: string): Call {
    return {
      operation,
      api: 'legacy',
      method: 'POST',
      path,
      body: { boardId },
      ...about('board', boardId),
    };
  }

}
