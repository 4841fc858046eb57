/**
 * What a key may read: each of the four API groups is asked one cheap question, and everything the
 * groups that answer list (collections, boards, registers, themes) is gathered for the tables and the
 * starter report definition of `npm run discover`.
 */
import { AuthenticationError, errorMessage, PlanningApiError } from '../shared/core/errors';
import type { PlanningApiClient } from '../shared/planning-api';
import { toArray, type Board, type Collection, type PortfolioTheme, type RiskRegister, type StrategicTheme } from '../shared/planning-api';

export type ApiGroupName = 'risk' | 'okr' | 'pi-objectives' | 'pi-board-items';

export const GROUP_TITLES: Readonly<Record<ApiGroupName, string>> = {
  risk: 'Risk',
  okr: 'Strategic Themes & OKRs',
  'pi-objectives': 'PI Objectives',
  'pi-board-items': 'PI Board Items',
};

/** How one API group answered. */
export interface GroupCheck {
  readonly group: ApiGroupName;
  readonly ok: boolean;
  /** What it answered: counts when it answered, the status when it refused (e.g. `403`). */
  readonly detail: string;
  /** Why it refused, with what to do; undefined when it answered. */
  readonly reason?: string | undefined;
}

/** Tracker family of a board, told by the field names of its items in either vocabulary. */
export type BoardTracker = 'extA' | 'extB' | 'unknown';

export interface DiscoveredBoard {
  readonly board: Board;
  readonly collections: readonly Collection[];
  readonly tracker: BoardTracker;
}

export interface DiscoveredRegister {
  readonly register: RiskRegister;
  /** Titles (or ids) of the boards linked to the register that the user may see. */
  readonly boards: readonly string[];
}

export interface DiscoveredTheme {
  readonly theme: StrategicTheme;
  readonly portfolios: readonly PortfolioTheme[];
}

export interface Discovery {
  readonly groups: readonly GroupCheck[];
  readonly collections: readonly Collection[];
  readonly boards: readonly DiscoveredBoard[];
  readonly registers: readonly DiscoveredRegister[];
  readonly portfolioThemes: readonly PortfolioTheme[];
  readonly strategicThemes: readonly DiscoveredTheme[];
}

/** Why a group refused, in a line: the client's error without the operation name it starts with. */
export function refusalReason(error: unknown): string {
  const text = errorMessage(error).replace(/^[A-Za-z]+: /, '');
  if (error instanceof PlanningApiError && error.status === 403) return `this user may not read this group: ${text}`;
  return text;
}

/** The short form of a refusal for the table: its HTTP status, or what kind of failure it was. */
export function refusalStatus(error: unknown): string {
  if (error instanceof PlanningApiError && error.status !== undefined) {
    const what = error instanceof AuthenticationError || error.status === 403 ? 'refused' : 'failed';
    return `${what} (${error.status})`;
  }
  return 'failed';
}

const FIRST_FAMILY = ['extAId', 'extAURL', 'extCId', 'tfsId', 'tfsURL', 'azureId'];
const SECOND_FAMILY = ['extBId', 'extBKey', 'jiraId', 'jiraKey'];

/** The tracker family a record's fields show, in the contract's or the docs' names. */
export function trackerOfRecord(record: object): BoardTracker {
  const fields = record as Record<string, unknown>;
  const has = (names: readonly string[]) => names.some((n) => fields[n] !== undefined && fields[n] !== null && fields[n] !== '');
  if (has(FIRST_FAMILY)) return 'extA';
  if (has(SECOND_FAMILY)) return 'extB';
  return 'unknown';
}

interface Attempt<T> {
  value?: T;
  error?: unknown;
}

async function attempt<T>(fn: () => Promise<T>): Promise<Attempt<T>> {
  try {
    return { value: await fn() };
  } catch (error) {
    return { error };
  }
}

function check<T>(group: ApiGroupName, result: Attempt<T>, describe: (value: T) => string): GroupCheck {
  if (result.error !== undefined || result.value === undefined) {
    return { group, ok: false, detail: refusalStatus(result.error), reason: refusalReason(result.error) };
  }
  return { group, ok: true, detail: describe(result.value) };
}

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

/** The first item of a board, asked for with only the fields that tell the tracker family. */
async function firstItem(client: PlanningApiClient, boardId: string): Promise<object | undefined> {
  for await (const item of client.listBoardItems(boardId, { fields: ['extCId', 'azureId', 'kendisId'], pageSize: 1 })) return item;
  return undefined;
}

async function trackerOfBoard(client: PlanningApiClient, boardId: string, canReadObjectives: boolean): Promise<BoardTracker> {
  if (canReadObjectives) {
    const groups = await client.listPiObjectiveGroups(boardId).catch(() => []);
    for (const group of groups) {
      for (const objective of group.objectives ?? []) {
        for (const item of objective.linkedItems ?? []) {
          const tracker = trackerOfRecord(item);
          if (tracker !== 'unknown') return tracker;
        }
      }
    }
  }
  const item = await firstItem(client, boardId).catch(() => undefined);
  // Only the first family names a board item's tracker id (extCId / azureId); a board whose items
  // carry none may still be of the first family with unplanned items, so it stays unknown.
  return item && trackerOfRecord(item) === 'extA' ? 'extA' : 'unknown';
}

async function legacyInventory(client: PlanningApiClient): Promise<{
  legacy: Attempt<{ collections: Collection[]; boards: Board[] }>;
  objectives: Attempt<number>;
  items: Attempt<number>;
  boards: DiscoveredBoard[];
}> {
  const legacy = await attempt(async () => ({ collections: await client.listCollections(), boards: await client.listBoards() }));
  if (!legacy.value) return { legacy, objectives: { error: legacy.error }, items: { error: legacy.error }, boards: [] };
  const { collections, boards } = legacy.value;
  const probe = boards[0];
  const objectives = await attempt(async () => (probe ? (await client.listPiObjectiveGroups(probe.id)).length : 0));
  const items = await attempt(async () => (probe ? ((await firstItem(client, probe.id)) ? 1 : 0) : 0));
  const membership = new Map<string, Collection[]>();
  for (const collection of collections) {
    for (const board of await client.listBoards({ collectionIds: [collection.id] })) {
      membership.set(board.id, [...(membership.get(board.id) ?? []), collection]);
    }
  }
  const found: DiscoveredBoard[] = [];
  for (const board of boards) {
    const tracker = objectives.value !== undefined || items.value !== undefined ? await trackerOfBoard(client, board.id, objectives.value !== undefined) : 'unknown';
    found.push({ board, collections: membership.get(board.id) ?? [], tracker });
  }
  return { legacy, objectives, items, boards: found };
}

async function riskInventory(client: PlanningApiClient): Promise<Attempt<DiscoveredRegister[]>> {
  return attempt(async () => {
    const registers = await toArray(client.listRiskRegisters());
    const out: DiscoveredRegister[] = [];
    for (const register of registers) {
      const boards = await toArray(client.listRegisterBoards(register.id));
      out.push({ register, boards: boards.map((b) => b.title ?? b.id) });
    }
    return out;
  });
}

async function okrInventory(client: PlanningApiClient): Promise<Attempt<{ portfolios: PortfolioTheme[]; themes: DiscoveredTheme[] }>> {
  return attempt(async () => {
    const portfolios = await toArray(client.listPortfolioThemes());
    const themes = await toArray(client.listStrategicThemes());
    const owners = new Map<string, PortfolioTheme[]>();
    for (const portfolio of portfolios) {
      for (const theme of await toArray(client.listPortfolioStrategicThemes(portfolio.id))) {
        owners.set(theme.id, [...(owners.get(theme.id) ?? []), portfolio]);
      }
    }
    return { portfolios, themes: themes.map((theme) => ({ theme, portfolios: owners.get(theme.id) ?? [] })) };
  });
}

/** Asks every group, then gathers what the groups that answered list. Never throws for a refusal. */
export async function discover(client: PlanningApiClient): Promise<Discovery> {
  const risk = await riskInventory(client);
  const okr = await okrInventory(client);
  const legacy = await legacyInventory(client);
  const boardsText = (n: number) => `${plural(legacy.legacy.value?.boards.length ?? 0, 'board')}, ${n > 0 ? 'answered for the first board' : 'nothing on the first board'}`;
  return {
    groups: [
      check('risk', risk, (r) => plural(r.length, 'risk register')),
      check('okr', okr, (o) => `${plural(o.portfolios.length, 'portfolio theme')}, ${plural(o.themes.length, 'strategic theme')}`),
      check('pi-objectives', legacy.objectives, boardsText),
      check('pi-board-items', legacy.items, boardsText),
    ],
    collections: legacy.legacy.value?.collections ?? [],
    boards: legacy.boards,
    registers: risk.value ?? [],
    portfolioThemes: okr.value?.portfolios ?? [],
    strategicThemes: okr.value?.themes ?? [],
  };
}
