/**
 * What a key may read: each of the four API groups is asked one cheap question, and everything the
 * groups that answer list (collections, boards, registers, themes) is gathered for the tables and the
 * starter report definition of `npm run discover`.
 */
import { AuthenticationError, DeadlineExceededError, errorMessage, PlanningApiError, PlanningApiUnreachableError, RequestTimeoutError } from '../shared/core/errors';
import type { PlanningApiClient } from '../shared/planning-api';
import { toArray, type Board, type Collection, type PortfolioTheme, type RiskRegister, type StrategicTheme } from '../shared/planning-api';
import { GROUP_TITLES, type ApiGroupName } from '../shared/planning-api/api-groups';
import type { Credentials } from '../shared/planning-api/credentials';
import { countOf } from './words';

/** How one API group answered. */
export interface GroupCheck {
  readonly group: ApiGroupName;
  readonly ok: boolean;
  /** What it answered: counts when it answered, the status when it refused (e.g. `403`). */
  readonly detail: string;
  /** Why it refused, with what to do; undefined when it answered. */
  readonly reason?: string | undefined;
  /** The HTTP status of the refusal, when the server answered one. */
  readonly status?: number | undefined;
  /** True when the group's address gave no answer at all (refused connection, unknown host, timeout). */
  readonly unanswered?: boolean | undefined;
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
    const status = result.error instanceof PlanningApiError ? result.error.status : undefined;
    const unanswered = [PlanningApiUnreachableError, RequestTimeoutError, DeadlineExceededError].some((kind) => result.error instanceof kind);
    return { group, ok: false, detail: unanswered ? 'no answer' : refusalStatus(result.error), reason: refusalReason(result.error), status, unanswered };
  }
  return { group, ok: true, detail: describe(result.value) };
}

const plural = (n: number, word: string): string => countOf(n, word);

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

/** Whether an async list yields anything: the first page is the question, the rest is not fetched. */
async function answers(list: AsyncIterable<unknown>): Promise<string> {
  for await (const _ of list) return 'answered';
  return 'answered (nothing listed)';
}

/**
 * One cheap question per group (what `npm run preflight` asks): whether each group answers this key,
 * not everything it lists; the same checks, reasons and statuses as `discover`.
 */
export async function probeGroups(client: PlanningApiClient): Promise<GroupCheck[]> {
  const risk = await attempt(() => answers(client.listRiskRegisters()));
  const okr = await attempt(() => answers(client.listStrategicThemes()));
  const boards = await attempt(() => client.listBoards());
  const probe = boards.value?.[0];
  // Each legacy group is asked about the first board (a tenant without boards answers the list alone).
  const onBoard = (ask: (boardId: string) => Promise<unknown>): Promise<Attempt<string>> => {
    if (!boards.value) return Promise.resolve({ error: boards.error });
    const text = `${plural(boards.value.length, 'board')}, answered`;
    return attempt(async () => {
      if (probe) await ask(probe.id);
      return text;
    });
  };
  const same = (text: string) => text;
  return [
    check('risk', risk, same),
    check('okr', okr, same),
    check('pi-objectives', await onBoard((id) => client.listPiObjectiveGroups(id)), same),
    check('pi-board-items', await onBoard((id) => firstItem(client, id)), same),
  ];
}

/**
 * What the servers say about the company prefix in a 404, in either vocabulary ("Invalid company
 * prefix in URL." documented, "Unknown company prefix"): the legacy address's answer to a path whose
 * prefix it does not know.
 */
const PREFIX_ANSWER = /(invalid|unknown) company prefix/i;
const V1_GROUPS: readonly ApiGroupName[] = ['risk', 'okr'];
const LEGACY_GROUPS: readonly ApiGroupName[] = ['pi-objectives', 'pi-board-items'];

/** A problem with the addresses or the prefix of the credentials, which no group can be read past. */
export interface AddressProblem {
  readonly kind: 'prefix' | 'swapped' | 'base-url';
  /** What is wrong and what to change in the credentials document. */
  readonly hint: string;
}

/**
 * Tells from the groups' refusals whether the addresses or the prefix are wrong rather than the key
 * or a permission: the legacy groups' 404 naming the company prefix is a wrong `companyPrefix`; the
 * v1 groups getting that answer means `baseUrl` is the legacy address, and with the legacy groups'
 * paths unknown too the two URLs are swapped. Undefined when the refusals say nothing of the kind.
 */
export function addressProblem(groups: readonly GroupCheck[], credentials: Pick<Credentials, 'baseUrl' | 'legacyBaseUrl' | 'companyPrefix'>): AddressProblem | undefined {
  const of = (names: readonly ApiGroupName[]) => groups.filter((g) => names.includes(g.group));
  const prefixAnswer = (g: GroupCheck) => !g.ok && g.status === 404 && PREFIX_ANSWER.test(g.reason ?? '');
  const v1 = of(V1_GROUPS);
  const legacy = of(LEGACY_GROUPS);
  if (v1.length > 0 && v1.every(prefixAnswer)) {
    if (legacy.every((g) => !g.ok && g.status === 404 && !prefixAnswer(g))) {
      return {
        kind: 'swapped',
        hint:
          `baseUrl and legacyBaseUrl look swapped: baseUrl ${credentials.baseUrl} answers the v1 paths (/api/v1/…) with the legacy address's ` +
          `company-prefix error, and legacyBaseUrl ${credentials.legacyBaseUrl} does not know the legacy paths (/api/${credentials.companyPrefix}/…). ` +
          `Swap the two URLs in the credentials document.`,
      };
    }
    return {
      kind: 'base-url',
      hint:
        `baseUrl ${credentials.baseUrl} answers like the legacy address (a company-prefix error for the v1 paths /api/v1/…): ` +
        "set baseUrl to your company's own address (https://<company>.…), as your administrator gives it.",
    };
  }
  if (legacy.some(prefixAnswer)) {
    return {
      kind: 'prefix',
      hint:
        `the legacy address ${credentials.legacyBaseUrl} does not know the company prefix "${credentials.companyPrefix}", so PI Objectives and PI Board Items cannot be read: ` +
        "set companyPrefix in the credentials document to your company's prefix (the first part of its login address, https://<companyPrefix>.…).",
    };
  }
  return undefined;
}

/**
 * The groups whose address gave no answer at all, told in a few lines: unlike a refusal, that says
 * nothing about what the key may read (a mistyped address looks just like it), so a starter definition
 * without those groups would drop their data silently. Undefined when every group answered something.
 */
export function unansweredProblem(groups: readonly GroupCheck[]): string | undefined {
  const silent = groups.filter((g) => g.unanswered);
  if (silent.length === 0) return undefined;
  return (
    `${silent.map((g) => GROUP_TITLES[g.group]).join(', ')} gave no answer at all (not a refusal: nothing came back from the address):\n` +
    silent.map((g) => `  ${GROUP_TITLES[g.group]}: ${g.reason ?? 'no answer'}\n`).join('') +
    'Check baseUrl and legacyBaseUrl in the credentials document, and that this machine can reach them (proxy, VPN, firewall).'
  );
}
