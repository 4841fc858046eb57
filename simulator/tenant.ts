/**
 * Tenant generation: every record the simulator serves, plus lookup and visibility helpers that
 * tests use to compute expected results independently of the client under test.
 *
 * Everything is deterministic for a given (seed, shape, companyPrefix). Registers, risks, OKRs,
 * collections and boards are generated eagerly (small); board items are generated on demand per
 * index (a board of 100,000 items costs nothing until pages are requested); PI objectives are
 * generated on first use per board and cached. Generated records are deep-frozen: a test that
 * mutates one by accident gets a TypeError instead of silently changing what the server serves.
 */
import { buildBoardMeta, buildBoards, buildCollections, type BoardMeta, type SimBoard } from './boards';
import { generateBoardItem, type BoardItemContext } from './board-items';
import { deepFreeze } from './numbers';
import { buildOkrs, type OkrTree } from './okrs';
import {
  generatePiBoard,
  projectPiGroups,
  resolveCompletionType,
  type CompletionTypeValue,
  type RawPiBoard,
} from './pi-objectives';
import type {
  BoardItemRecord,
  CollectionRecord,
  KeyResultRecord,
  OkrObjectiveGroupRecord,
  OkrObjectiveRecord,
  PiObjectiveGroupRecord,
  PortfolioThemeRecord,
  RiskMatrix,
  RiskRecord,
  RiskRegisterRecord,
  SprintRecord,
  StatusesRecord,
  StrategicThemeRecord,
  TeamRecord,
  ThemeProgressRecord,
} from './records';
import { buildRegisters, buildRisks } from './risks';
import { TEST_STORY } from './dates';
import type { SimUser, TenantShape, TenantStory } from './types';
import { buildUsers, visibilityRule } from './users';

/**
 * What one user may see (contract rule 1). Lists keep tenant order. A record that is not visible is
 * answered as 404 on get operations and left out of list operations.
 */
export interface TenantView {
  readonly user: SimUser;
  /** Visible registers (and therefore their risks). */
  readonly registers: readonly RiskRegisterRecord[];
  /** Visible boards (legacy List boards without filter). */
  readonly boards: readonly SimBoard[];
  /** Collections with at least one visible board (admin: all collections). */
  readonly collections: readonly CollectionRecord[];
  /** Portfolio themes with at least one visible strategic theme (admin: all). */
  readonly portfolioThemes: readonly PortfolioThemeRecord[];
  /** Visible strategic themes (and therefore their groups, objectives and key results). */
  readonly strategicThemes: readonly StrategicThemeRecord[];
  canSeeRegister(idOrKey: string): boolean;
  canSeeRisk(id: string): boolean;
  canSeeBoard(id: string): boolean;
  canSeeCollection(id: string): boolean;
  canSeePortfolioTheme(keyOrId: string): boolean;
  canSeeStrategicTheme(keyOrId: string): boolean;
  canSeeObjectiveGroup(id: string): boolean;
  canSeeObjective(keyOrId: string): boolean;
  canSeeKeyResult(keyOrId: string): boolean;
}

/**
 * The generated tenant. Record-returning members give the records exactly as served with
 * `fields=all` (v1) or in full (legacy; board items including `stories`). Lookups by id/key return
 * undefined for unknown records; board accessors throw for an unknown board id.
 */
export interface Tenant {
  readonly seed: number;
  readonly shape: Readonly<TenantShape>;
  readonly companyPrefix: string;
  /** Admin first, then the two restricted users (see users.ts). */
  readonly users: readonly SimUser[];
  /** User by e-mail. */
  user(email: string): SimUser | undefined;
  /** Everything `email` may see; throws for an unknown user. Cached. */
  visibleTo(email: string): TenantView;

  // ---- Risk API
  /** All registers in served order. */
  readonly registers: readonly RiskRegisterRecord[];
  /** Register by id or key. */
  register(idOrKey: string): RiskRegisterRecord | undefined;
  /** The impact x probability matrix of a register (not served by the API). */
  registerMatrix(idOrKey: string): RiskMatrix | undefined;
  /** Risks of a register (by id or key) in served order; empty for an unknown register. */
  risks(registerIdOrKey: string): readonly RiskRecord[];
  /** All risks of all registers. */
  readonly allRisks: readonly RiskRecord[];
  /** Risk by id. */
  risk(id: string): RiskRecord | undefined;
  /** Boards linked to a register (all of them; the API lists the visible ones). */
  boardsOfRegister(registerIdOrKey: string): readonly SimBoard[];
  /** Register linked to a board, or undefined (Get register of a board answers 404). */
  registerOfBoard(boardId: string): RiskRegisterRecord | undefined;

  // ---- Strategic Themes & OKRs
  readonly portfolioThemes: readonly PortfolioThemeRecord[];
  portfolioTheme(keyOrId: string): PortfolioThemeRecord | undefined;
  /** All strategic themes (as served by List all Strategic Themes with fields=all). */
  readonly strategicThemes: readonly StrategicThemeRecord[];
  strategicTheme(keyOrId: string): StrategicThemeRecord | undefined;
  /** Strategic themes of a portfolio theme (served there as id, key, title only). */
  strategicThemesOf(portfolioKeyOrId: string): readonly StrategicThemeRecord[];
  /** Portfolio theme that owns a strategic theme. */
  portfolioThemeOf(strategicKeyOrId: string): PortfolioThemeRecord | undefined;
  objectiveGroupsOf(strategicKeyOrId: string): readonly OkrObjectiveGroupRecord[];
  objectiveGroup(id: string): OkrObjectiveGroupRecord | undefined;
  /** Strategic theme that owns an objective group. */
  strategicThemeOfGroup(groupId: string): StrategicThemeRecord | undefined;
  themeProgress(strategicKeyOrId: string): ThemeProgressRecord | undefined;
  objectivesOf(groupId: string): readonly OkrObjectiveRecord[];
  objective(keyOrId: string): OkrObjectiveRecord | undefined;
  /** Objective group that owns an objective. */
  groupOfObjective(keyOrId: string): OkrObjectiveGroupRecord | undefined;
  keyResultsOf(objectiveKeyOrId: string): readonly KeyResultRecord[];
  keyResult(keyOrId: string): KeyResultRecord | undefined;
  /** Objective that owns a key result. */
  objectiveOfKeyResult(keyOrId: string): OkrObjectiveRecord | undefined;

  // ---- Legacy groups
  readonly collections: readonly CollectionRecord[];
  /** All boards with their metadata (trackerFamily, okrMode, hasTeamMappings, collectionId, registerId). */
  readonly boards: readonly SimBoard[];
  board(id: string): SimBoard | undefined;
  /** Sprints (5 + IP sprint) of a board. */
  sprints(boardId: string): readonly SprintRecord[];
  /** Teams of a board; empty on boards without team mappings. */
  teams(boardId: string): readonly TeamRecord[];
  statuses(boardId: string): StatusesRecord;
  /** Sprint dates etc. of a board. */
  boardMeta(boardId: string): BoardMeta;
  /** Number of board items of a board. */
  boardItemCount(boardId: string): number;
  /** Item `index` with every field including `stories`; undefined past the end. Generated on each call. */
  boardItem(boardId: string, index: number): BoardItemRecord | undefined;
  /** Items [start, end) with every field including `stories` (defaults: the whole board). Generated on each call. */
  boardItems(boardId: string, start?: number, end?: number): BoardItemRecord[];
  /** The completionType the server uses for a requested value (rules 1-5 of section 4.4). */
  effectiveCompletionType(boardId: string, requested?: string | number | null): CompletionTypeValue;
  /**
   * Objective groups exactly as served by List objective groups for that request:
   * `completionType` as sent (resolved with effectiveCompletionType), `additionalColumns` true for `1`.
   */
  piObjectiveGroups(boardId: string, completionType?: string | number | null, additionalColumns?: boolean): PiObjectiveGroupRecord[];
}

function indexBy<T>(items: readonly T[], ...keys: ((item: T) => string | undefined)[]): Map<string, number> {
  const map = new Map<string, number>();
  items.forEach((item, i) => {
    for (const key of keys) {
      const k = key(item);
      if (k !== undefined && !map.has(k)) map.set(k, i);
    }
  });
  return map;
}

/** Generates a tenant. */
export function generateTenant(
  shape: TenantShape,
  seed: number,
  companyPrefix: string,
  story: TenantStory = TEST_STORY,
): Tenant {
  const users = buildUsers(companyPrefix, seed);
  const generatedRegisters = buildRegisters(shape, seed, story.flavour);
  const registers = generatedRegisters.map((r) => r.record);
  const collections = buildCollections(shape);
  const boards = buildBoards(shape, collections, registers, story.flavour);
  const metas = new Map<string, BoardMeta>();
  const metaOf = (board: SimBoard): BoardMeta => {
    let meta = metas.get(board.id);
    if (!meta) {
      meta = deepFreeze(buildBoardMeta(board, seed, story));
      metas.set(board.id, meta);
    }
    return meta;
  };
  const risksByRegister = buildRisks(shape, seed, generatedRegisters, boards, metaOf, story);
  const allRisks = risksByRegister.flat();
  const okr: OkrTree = buildOkrs(shape, seed, boards, story);

  const registerIndex = indexBy(registers, (r) => r.id, (r) => r.key);
  const riskIndex = indexBy(allRisks, (r) => r.id);
  const riskRegister = new Map<string, number>();
  risksByRegister.forEach((list, r) => list.forEach((risk) => riskRegister.set(risk.id, r)));
  const boardIndex = indexBy(boards, (b) => b.id);
  const collectionIndex = indexBy(collections, (c) => c.id);
  const portfolioIndex = indexBy(okr.portfolioThemes, (t) => t.id, (t) => t.key);
  const themeIndex = indexBy(okr.strategicThemes, (t) => t.id, (t) => t.key);
  const groupIndex = indexBy(okr.groups, (g) => g.id);
  const objectiveIndex = indexBy(okr.objectives, (o) => o.id, (o) => o.key);
  const keyResultIndex = indexBy(okr.keyResults, (k) => k.id, (k) => k.key);

  /** For each parent index, the indexes of its children (parents[i] is the parent of child i). */
  const groupChildren = (parents: readonly number[], parentCount: number): number[][] => {
    const out: number[][] = Array.from({ length: parentCount }, () => []);
    parents.forEach((p, i) => out[p]?.push(i));
    return out;
  };
  const themesOfPortfolio = groupChildren(okr.themePortfolio, okr.portfolioThemes.length);
  const groupsOfTheme = groupChildren(okr.groupTheme, okr.strategicThemes.length);
  const objectivesOfGroup = groupChildren(okr.objectiveGroup, okr.groups.length);
  const keyResultsOfObjective = groupChildren(okr.keyResultObjective, okr.objectives.length);
  const childrenOf = (children: readonly number[][], parent: number | undefined): number[] =>
    parent === undefined ? [] : (children[parent] ?? []);
  const pick = <T>(items: readonly T[], indexes: readonly number[]): T[] =>
    indexes.map((i) => items[i]).filter((x): x is T => x !== undefined);
  const at = <T>(items: readonly T[], i: number | undefined): T | undefined => (i === undefined ? undefined : items[i]);

  const boardOrThrow = (id: string): SimBoard => {
    const b = at(boards, boardIndex.get(id));
    if (!b) throw new Error(`Unknown board id '${id}'`);
    return b;
  };
  const itemContexts = new Map<string, BoardItemContext>();
  const itemContext = (board: SimBoard): BoardItemContext => {
    let ctx = itemContexts.get(board.id);
    if (!ctx) {
      ctx = { seed, companyPrefix, board, meta: metaOf(board), story };
      itemContexts.set(board.id, ctx);
    }
    return ctx;
  };
  const piBoards = new Map<string, RawPiBoard>();
  const piBoard = (board: SimBoard): RawPiBoard => {
    let raw = piBoards.get(board.id);
    if (!raw) {
      raw = deepFreeze(generatePiBoard(board, metaOf(board), shape, seed, companyPrefix, story));
      piBoards.set(board.id, raw);
    }
    return raw;
  };

  deepFreeze([users, generatedRegisters, collections, boards, risksByRegister, okr]);
  const views = new Map<string, TenantView>();
  const tenant: Tenant = {
    seed,
    shape: Object.freeze({ ...shape }),
    companyPrefix,
    users,
    user: (email) => users.find((u) => u.email === email),
    visibleTo(email) {
      const cached = views.get(email);
      if (cached) return cached;
      const user = users.find((u) => u.email === email);
      if (!user) throw new Error(`Unknown user '${email}'`);
      const view = buildView(user);
      views.set(email, view);
      return view;
    },

    registers,
    register: (k) => at(registers, registerIndex.get(k)),
    registerMatrix: (k) => at(generatedRegisters, registerIndex.get(k))?.matrix,
    risks: (k) => at(risksByRegister, registerIndex.get(k)) ?? [],
    allRisks,
    risk: (id) => at(allRisks, riskIndex.get(id)),
    boardsOfRegister(k) {
      const reg = at(registers, registerIndex.get(k));
      return reg ? boards.filter((b) => b.registerId === reg.id) : [];
    },
    registerOfBoard(boardId) {
      const b = at(boards, boardIndex.get(boardId));
      return b?.registerId ? at(registers, registerIndex.get(b.registerId)) : undefined;
    },

    portfolioThemes: okr.portfolioThemes,
    portfolioTheme: (k) => at(okr.portfolioThemes, portfolioIndex.get(k)),
    strategicThemes: okr.strategicThemes,
    strategicTheme: (k) => at(okr.strategicThemes, themeIndex.get(k)),
    strategicThemesOf: (k) => pick(okr.strategicThemes, childrenOf(themesOfPortfolio, portfolioIndex.get(k))),
    portfolioThemeOf: (k) => at(okr.portfolioThemes, at(okr.themePortfolio, themeIndex.get(k))),
    objectiveGroupsOf: (k) => pick(okr.groups, childrenOf(groupsOfTheme, themeIndex.get(k))),
    objectiveGroup: (id) => at(okr.groups, groupIndex.get(id)),
    strategicThemeOfGroup: (id) => at(okr.strategicThemes, at(okr.groupTheme, groupIndex.get(id))),
    themeProgress: (k) => at(okr.progress, themeIndex.get(k)),
    objectivesOf: (id) => pick(okr.objectives, childrenOf(objectivesOfGroup, groupIndex.get(id))),
    objective: (k) => at(okr.objectives, objectiveIndex.get(k)),
    groupOfObjective: (k) => at(okr.groups, at(okr.objectiveGroup, objectiveIndex.get(k))),
    keyResultsOf: (k) => pick(okr.keyResults, childrenOf(keyResultsOfObjective, objectiveIndex.get(k))),
    keyResult: (k) => at(okr.keyResults, keyResultIndex.get(k)),
    objectiveOfKeyResult: (k) => at(okr.objectives, at(okr.keyResultObjective, keyResultIndex.get(k))),

    collections,
    boards,
    board: (id) => at(boards, boardIndex.get(id)),
    sprints: (id) => metaOf(boardOrThrow(id)).sprints,
    teams: (id) => metaOf(boardOrThrow(id)).teams,
    statuses: (id) => metaOf(boardOrThrow(id)).statuses,
    boardMeta: (id) => metaOf(boardOrThrow(id)),
    boardItemCount: (id) => boardOrThrow(id).itemCount,
    boardItem(id, index) {
      const board = boardOrThrow(id);
      if (!Number.isInteger(index) || index < 0 || index >= board.itemCount) return undefined;
      return generateBoardItem(itemContext(board), index);
    },
    boardItems(id, start = 0, end) {
      const board = boardOrThrow(id);
      const from = Math.max(0, Math.floor(start));
      const to = Math.min(board.itemCount, end === undefined ? board.itemCount : Math.floor(end));
      const ctx = itemContext(board);
      const out: BoardItemRecord[] = [];
      for (let i = from; i < to; i++) out.push(generateBoardItem(ctx, i));
      return out;
    },
    effectiveCompletionType: (id, requested) => resolveCompletionType(boardOrThrow(id).okrMode, requested),
    piObjectiveGroups(id, completionType, additionalColumns = false) {
      const board = boardOrThrow(id);
      return projectPiGroups(piBoard(board), resolveCompletionType(board.okrMode, completionType), additionalColumns);
    },
  };

  function buildView(user: SimUser): TenantView {
    const rule = visibilityRule(user.role);
    const all = user.role === 'admin';
    const regOk = registers.map((_, i) => rule.register(i));
    const boardOk = boards.map((_, i) => rule.board(i));
    const themeOk = okr.strategicThemes.map((_, i) => rule.strategicTheme(i));
    const portfolioOk = okr.portfolioThemes.map((_, p) => all || okr.themePortfolio.some((tp, t) => tp === p && themeOk[t]));
    const collectionOk = collections.map((c) => all || boards.some((b, i) => boardOk[i] && b.collectionId === c.id));
    const ok = (flags: readonly boolean[], i: number | undefined): boolean => i !== undefined && flags[i] === true;
    return {
      user,
      registers: registers.filter((_, i) => regOk[i]),
      boards: boards.filter((_, i) => boardOk[i]),
      collections: collections.filter((_, i) => collectionOk[i]),
      portfolioThemes: okr.portfolioThemes.filter((_, i) => portfolioOk[i]),
      strategicThemes: okr.strategicThemes.filter((_, i) => themeOk[i]),
      canSeeRegister: (k) => ok(regOk, registerIndex.get(k)),
      canSeeRisk: (id) => ok(regOk, riskRegister.get(id)),
      canSeeBoard: (id) => ok(boardOk, boardIndex.get(id)),
      canSeeCollection: (id) => ok(collectionOk, collectionIndex.get(id)),
      canSeePortfolioTheme: (k) => ok(portfolioOk, portfolioIndex.get(k)),
      canSeeStrategicTheme: (k) => ok(themeOk, themeIndex.get(k)),
      canSeeObjectiveGroup: (id) => ok(themeOk, at(okr.groupTheme, groupIndex.get(id))),
      canSeeObjective: (k) => ok(themeOk, at(okr.groupTheme, at(okr.objectiveGroup, objectiveIndex.get(k)))),
      canSeeKeyResult: (k) =>
        ok(themeOk, at(okr.groupTheme, at(okr.objectiveGroup, at(okr.keyResultObjective, keyResultIndex.get(k))))),
    };
  }

  return tenant;
}
