/**
 * Moving the tenant forward between two exports: close and reopen risks, change statuses, levels
 * and owners, add and remove risks and board items, move items between teams and sprints, change
 * OKR progress and PI objectives' completion and business value. Every change is explicit (no
 * randomness), so a test knows exactly what the next export must report. The generated tenant is
 * never touched: the evolving tenant answers with edited copies of its records.
 */
import { boardItemId, boardItemKey, generateBoardItem } from './board-items';
import { formatRiskDate } from './dates';
import { deepFreeze } from './numbers';
import type {
  BoardItemRecord,
  KeyResultRecord,
  OkrObjectiveRecord,
  PiObjectiveGroupRecord,
  RiskRecord,
  StatusCategory,
} from './records';
import { riskLevelFor } from './risks';
import type { Tenant, TenantView } from './tenant';

/** The risk statuses of the generated tenant, by title. */
const RISK_STATUS_IDS: Readonly<Record<string, string>> = { Open: '1', 'In Progress': '2', Mitigated: '3', Closed: '4' };

export interface RiskChange {
  readonly id: string;
  /** A status title: Open, In Progress, Mitigated or Closed. */
  readonly status?: string;
  /** Shorthand: status Closed with a resolution date (default: the date given to advance). */
  readonly close?: boolean;
  /** Shorthand: status Open, no resolution date. */
  readonly reopen?: boolean;
  /** New impact and/or probability: the risk level is recomputed from the register's matrix. */
  readonly impact?: string;
  readonly probability?: string;
  /** Display name, or null for nobody. */
  readonly responsible?: string | null;
  /** DD-Mon-YYYY, or null for none. */
  readonly resolutionDate?: string | null;
}

export interface NewRisk {
  /** Register id or key. */
  readonly register: string;
  readonly title: string;
  readonly status?: string;
  readonly impact?: string;
  readonly probability?: string;
}

export interface OkrChange {
  /** Key or id of an objective or key result. */
  readonly keyOrId: string;
  readonly completionPct?: number;
  /** A status title. */
  readonly status?: string;
  readonly bvPlan?: number;
  readonly bvActual?: number;
}

export interface PiObjectiveChange {
  readonly boardId: string;
  readonly id: string;
  readonly completion?: number | null;
  readonly bvPlan?: number;
  readonly bvActual?: number;
  /** A status title and its category. */
  readonly status?: { readonly title: string; readonly category: StatusCategory };
}

export interface BoardItemChange {
  readonly boardId: string;
  readonly id: string;
  /** A parent status title, or its id (the items operation may send either; the exporter shows the title). */
  readonly status?: string;
  /** Team and sprint titles: replaces the item's plan with one entry. */
  readonly team?: string;
  readonly sprint?: string;
  readonly estimates?: number | null;
}

export interface TenantAdvance {
  /** The day the changes happen (resolution dates of closed risks); default 2026-11-20. */
  readonly date?: Date;
  readonly risks?: readonly RiskChange[];
  readonly addRisks?: readonly NewRisk[];
  readonly removeRisks?: readonly string[];
  readonly okrs?: readonly OkrChange[];
  /** Strategic theme key or id → theme progress percent. */
  readonly themeProgress?: Readonly<Record<string, number>>;
  readonly piObjectives?: readonly PiObjectiveChange[];
  readonly boardItems?: readonly BoardItemChange[];
  /** Items appended to a board (generated like the board's others, with a summary if given). */
  readonly addBoardItems?: readonly { readonly boardId: string; readonly summary?: string }[];
  readonly removeBoardItems?: readonly { readonly boardId: string; readonly id: string }[];
}

export interface EvolvingTenant {
  readonly tenant: Tenant;
  /** Applies changes; they are visible to the next request. Throws for an unknown record. */
  advance(changes: TenantAdvance): void;
}

export function evolveTenant(base: Tenant): EvolvingTenant {
  const riskEdits = new Map<string, RiskRecord>();
  const removedRisks = new Set<string>();
  const addedRisks = new Map<string, RiskRecord[]>();
  const addedRiskRegister = new Map<string, string>();
  const okrEdits = new Map<string, Partial<OkrChange>>();
  const progressEdits = new Map<string, number>();
  const piEdits = new Map<string, PiObjectiveChange>();
  const itemEdits = new Map<string, BoardItemChange>();
  const removedItems = new Map<string, Set<number>>();
  const addedItems = new Map<string, BoardItemRecord[]>();
  let riskSerial = 0;

  const risk = (id: string): RiskRecord | undefined => {
    if (removedRisks.has(id)) return undefined;
    return riskEdits.get(id) ?? base.risk(id) ?? [...addedRisks.values()].flat().find((r) => r.id === id);
  };
  const risksOf = (registerIdOrKey: string): RiskRecord[] => {
    const reg = base.register(registerIdOrKey);
    const own = base.risks(registerIdOrKey).filter((r) => !removedRisks.has(r.id)).map((r) => riskEdits.get(r.id) ?? r);
    const extra = reg ? (addedRisks.get(reg.id) ?? []).filter((r) => !removedRisks.has(r.id)).map((r) => riskEdits.get(r.id) ?? r) : [];
    return [...own, ...extra];
  };
  const itemIndex = (boardId: string, id: string): number => {
    const board = base.board(boardId);
    if (!board) throw new Error(`Unknown board id '${boardId}'`);
    return Number(id) - (board.index + 1) * 10_000_000;
  };
  const itemCount = (boardId: string): number =>
    base.boardItemCount(boardId) - (removedItems.get(boardId)?.size ?? 0) + (addedItems.get(boardId)?.length ?? 0);
  /** Items [start, end) of the board as it is now: the generated ones minus removed, then added. */
  const itemsOf = (boardId: string, start = 0, end?: number): BoardItemRecord[] => {
    const removed = [...(removedItems.get(boardId) ?? [])].sort((a, b) => a - b);
    const generated = base.boardItemCount(boardId) - removed.length;
    const to = Math.min(itemCount(boardId), end ?? Number.MAX_SAFE_INTEGER);
    const out: BoardItemRecord[] = [];
    for (let logical = Math.max(0, start); logical < to; logical++) {
      if (logical >= generated) {
        out.push(addedItems.get(boardId)![logical - generated]!);
        continue;
      }
      let index = logical;
      for (const r of removed) if (r <= index) index++;
      out.push(base.boardItem(boardId, index)!);
    }
    return out.map((item) => editItem(boardId, item));
  };
  const editItem = (boardId: string, item: BoardItemRecord): BoardItemRecord => {
    const edit = itemEdits.get(`${boardId}/${item.id}`);
    if (!edit) return item;
    const copy: BoardItemRecord = { ...item };
    if (edit.status !== undefined) copy.status = edit.status;
    if (edit.team !== undefined || edit.sprint !== undefined) {
      const first = item.teamsAndSprints?.[0];
      copy.teamsAndSprints = [{ team: edit.team ?? first?.team ?? '', sprint: edit.sprint ?? first?.sprint ?? '' }];
    }
    if (edit.estimates !== undefined) {
      if (edit.estimates === null) delete copy.estimates;
      else copy.estimates = edit.estimates;
    }
    return copy;
  };
  const editOkr = <T extends OkrObjectiveRecord | KeyResultRecord>(record: T | undefined): T | undefined => {
    if (!record) return record;
    const edit = okrEdits.get(record.id);
    if (!edit) return record;
    const copy = { ...record };
    if (edit.completionPct !== undefined) copy.completionPct = edit.completionPct;
    if (edit.status !== undefined) copy.status = { status: edit.status, id: copy.status?.id ?? '1' };
    if ('bvPlan' in copy && edit.bvPlan !== undefined) copy.bvPlan = edit.bvPlan;
    if ('bvPlan' in copy && edit.bvActual !== undefined) copy.bvActual = edit.bvActual;
    return copy;
  };
  const editPi = (boardId: string, groups: PiObjectiveGroupRecord[]): PiObjectiveGroupRecord[] =>
    groups.map((group) => ({
      ...group,
      objectives: group.objectives.map((objective) => {
        const edit = piEdits.get(`${boardId}/${objective.id}`);
        if (!edit) return objective;
        return {
          ...objective,
          ...(edit.completion !== undefined && { completion: edit.completion }),
          ...(edit.bvPlan !== undefined && { bvPlan: edit.bvPlan }),
          ...(edit.bvActual !== undefined && { bvActual: edit.bvActual }),
          ...(edit.status && { status: { id: `${objective.status.id}x`, title: edit.status.title, category: edit.status.category } }),
        };
      }),
    }));
  const viewOf = (view: TenantView): TenantView => ({
    ...view,
    canSeeRisk: (id) => {
      const register = addedRiskRegister.get(id);
      return register !== undefined ? !removedRisks.has(id) && view.canSeeRegister(register) : !removedRisks.has(id) && view.canSeeRisk(id);
    },
  });

  const tenant: Tenant = {
    ...base,
    visibleTo: (email) => viewOf(base.visibleTo(email)),
    risks: risksOf,
    get allRisks() {
      return base.registers.flatMap((r) => risksOf(r.id));
    },
    risk,
    themeProgress(k) {
      const progress = base.themeProgress(k);
      const theme = base.strategicTheme(k);
      const edit = theme ? progressEdits.get(theme.id) : undefined;
      return progress && edit !== undefined ? { ...progress, themeProgress: edit } : progress;
    },
    objectivesOf: (groupId) => base.objectivesOf(groupId).map((o) => editOkr(o)!),
    objective: (k) => editOkr(base.objective(k)),
    keyResultsOf: (k) => base.keyResultsOf(k).map((kr) => editOkr(kr)!),
    keyResult: (k) => editOkr(base.keyResult(k)),
    boardItemCount: itemCount,
    boardItem: (boardId, index) => itemsOf(boardId, index, index + 1)[0],
    boardItems: itemsOf,
    piObjectiveGroups: (boardId, completionType, additionalColumns) =>
      editPi(boardId, base.piObjectiveGroups(boardId, completionType, additionalColumns)),
  };

  function advance(changes: TenantAdvance): void {
    const day = formatRiskDate((changes.date ?? new Date(Date.UTC(2026, 10, 20))).getTime());
    for (const change of changes.risks ?? []) {
      const current = risk(change.id);
      if (!current) throw new Error(`Unknown risk id '${change.id}'`);
      const copy: RiskRecord = { ...current };
      const status = change.close ? 'Closed' : change.reopen ? 'Open' : change.status;
      if (status !== undefined) copy.status = { status, id: RISK_STATUS_IDS[status] ?? '9' };
      if (change.close) copy.resolutionDate = change.resolutionDate ?? day;
      if (change.reopen) delete copy.resolutionDate;
      if (change.resolutionDate === null) delete copy.resolutionDate;
      else if (change.resolutionDate !== undefined) copy.resolutionDate = change.resolutionDate;
      if (change.impact !== undefined || change.probability !== undefined) {
        copy.impact = change.impact ?? copy.impact;
        copy.probability = change.probability ?? copy.probability;
        const matrix = base.registerMatrix(copy.riskRegister.id);
        if (matrix) copy.riskLevel = riskLevelFor(matrix, copy.impact, copy.probability);
      }
      if (change.responsible === null) delete copy.responsible;
      else if (change.responsible !== undefined) copy.responsible = { user: change.responsible, id: `u-${change.responsible}` };
      riskEdits.set(change.id, deepFreeze(copy));
    }
    for (const add of changes.addRisks ?? []) {
      const register = base.register(add.register);
      const matrix = base.registerMatrix(add.register);
      if (!register || !matrix) throw new Error(`Unknown register '${add.register}'`);
      const list = addedRisks.get(register.id) ?? [];
      const impact = add.impact ?? matrix.impacts[0]!;
      const probability = add.probability ?? matrix.probabilities[0]!;
      const status = add.status ?? 'Open';
      const record: RiskRecord = deepFreeze({
        key: `${register.key}-${base.risks(register.id).length + list.length + 1}`,
        title: add.title,
        id: String(900_000 + ++riskSerial),
        createdBy: 'admin',
        impact,
        probability,
        riskLevel: riskLevelFor(matrix, impact, probability),
        raisedDate: day,
        status: { status, id: RISK_STATUS_IDS[status] ?? '9' },
        riskRegister: { riskRegister: register.title, id: register.id },
      });
      list.push(record);
      addedRisks.set(register.id, list);
      addedRiskRegister.set(record.id, register.id);
    }
    for (const id of changes.removeRisks ?? []) {
      if (!risk(id)) throw new Error(`Unknown risk id '${id}'`);
      removedRisks.add(id);
    }
    for (const change of changes.okrs ?? []) {
      const record = base.objective(change.keyOrId) ?? base.keyResult(change.keyOrId);
      if (!record) throw new Error(`Unknown objective or key result '${change.keyOrId}'`);
      okrEdits.set(record.id, { ...okrEdits.get(record.id), ...change });
    }
    for (const [k, value] of Object.entries(changes.themeProgress ?? {})) {
      const theme = base.strategicTheme(k);
      if (!theme) throw new Error(`Unknown strategic theme '${k}'`);
      progressEdits.set(theme.id, value);
    }
    for (const change of changes.piObjectives ?? []) {
      const key = `${change.boardId}/${change.id}`;
      piEdits.set(key, { ...piEdits.get(key), ...change });
    }
    for (const change of changes.boardItems ?? []) {
      const key = `${change.boardId}/${change.id}`;
      itemEdits.set(key, { ...itemEdits.get(key), ...change });
    }
    for (const add of changes.addBoardItems ?? []) {
      const board = base.board(add.boardId);
      if (!board) throw new Error(`Unknown board id '${add.boardId}'`);
      const list = addedItems.get(board.id) ?? [];
      const index = board.itemCount + list.length;
      const generated = generateBoardItem({ seed: base.seed, companyPrefix: base.companyPrefix, board, meta: base.boardMeta(board.id) }, index);
      list.push(deepFreeze({
        ...generated,
        id: boardItemId(board, index),
        externalKey: boardItemKey(board, index),
        ...(add.summary !== undefined && { summary: add.summary }),
      }));
      addedItems.set(board.id, list);
    }
    for (const remove of changes.removeBoardItems ?? []) {
      const index = itemIndex(remove.boardId, remove.id);
      const board = base.board(remove.boardId)!;
      if (!(index >= 0 && index < board.itemCount)) throw new Error(`Item '${remove.id}' is not a generated item of board '${remove.boardId}'`);
      const set = removedItems.get(board.id) ?? new Set<number>();
      set.add(index);
      removedItems.set(board.id, set);
    }
  }

  return { tenant, advance };
}
