/** Risk registers and risks (Risk API). */
import type { BoardMeta, SimBoard } from './boards';
import { boardItemId, boardItemKey } from './board-items';
import { piLinkedItemCount, piLinkedItemRef } from './pi-objectives';
import { dateBase, DAY_MS, formatIsoDate, formatRiskDate, TEST_STORY } from './dates';
import { specialSlot } from './numbers';
import { Rng } from './random';
import type { RiskCustomField, RiskMatrix, RiskRecord, RiskRegisterRecord } from './records';
import {
  AWKWARD_TITLES,
  CONTROL_CHAR_TEXT,
  INJECTION_TITLES,
  PEOPLE,
  actionList,
  longText,
  multiLine,
  riskTitle,
} from './text';
import type { TenantShape, TenantStory } from './types';

const REGISTER_NAMES = [
  ['ENT', 'Enterprise risks'],
  ['OPS', 'Operations & delivery risks'],
  ['SEC', 'Security <and> privacy risks'],
  ['FIN', 'Finance risks'],
  ['PPL', 'People risks'],
  ['ITR', 'IT risks'],
  ['LEG', 'Legal & compliance risks'],
  ['MKT', 'Market risks'],
] as const;

const LEVELS: RiskMatrix['levels'] = [
  { title: 'Low', color: '#36B37E', maxScore: 16 },
  { title: 'Medium', color: '#FFAB00', maxScore: 36 },
  { title: 'High', color: '#FF5630', maxScore: 64 },
  { title: 'Critical', color: '#BF2600', maxScore: 100 },
];

const MATRIX_5: RiskMatrix = {
  impacts: ['Insignificant', 'Minor', 'Moderate', 'Major', 'Severe'],
  probabilities: ['Rare', 'Unlikely', 'Possible', 'Likely', 'Almost certain'],
  levels: LEVELS,
};
const MATRIX_3: RiskMatrix = {
  impacts: ['Low', 'Medium', 'High'],
  probabilities: ['Unlikely', 'Possible', 'Likely'],
  levels: LEVELS,
};

const RISK_STATUSES = [
  { status: 'Open', id: '1' },
  { status: 'In Progress', id: '2' },
  { status: 'Mitigated', id: '3' },
  { status: 'Closed', id: '4' },
] as const;

/** Custom field definitions shared by all registers. */
export const RISK_CUSTOM_FIELDS = [
  { id: 'cf-101', title: 'Category', type: 'singleselect' },
  { id: 'cf-102', title: 'Risk owner', type: 'userpicker' },
  { id: 'cf-103', title: 'Cost impact (k€)', type: 'number' },
  { id: 'cf-104', title: 'Review date', type: 'date' },
  { id: 'cf-105', title: 'Affected areas', type: 'multiselect' },
  { id: 'cf-106', title: 'Notes', type: 'text' },
] as const;

const CATEGORIES = ['Technical', 'Schedule', 'Financial', 'Compliance', 'Resourcing'];
const AREAS = ['Backend', 'Mobile', 'Data', 'Legal', 'Operations', 'Sales'];

/**
 * Level of a risk: score = round(100 x impact rank x probability rank / (impact levels x
 * probability levels)), ranks 1-based (1..100); the first level whose maxScore >= score
 * (Low <= 16, Medium <= 36, High <= 64, else Critical).
 */
export function riskLevelFor(matrix: RiskMatrix, impact: string, probability: string): { title: string; color: string } {
  const i = matrix.impacts.indexOf(impact) + 1;
  const p = matrix.probabilities.indexOf(probability) + 1;
  const score = Math.round((100 * i * p) / (matrix.impacts.length * matrix.probabilities.length));
  const level = matrix.levels.find((l) => score <= l.maxScore) ?? matrix.levels[matrix.levels.length - 1];
  return { title: level?.title ?? 'Unknown', color: level?.color ?? '#000000' };
}

/** A register with its (unserved) matrix. */
export interface GeneratedRegister {
  record: RiskRegisterRecord;
  matrix: RiskMatrix;
}

/** Builds the registers. Even positions use a 5x5 matrix, odd ones 3x3. */
export function buildRegisters(shape: TenantShape, seed: number, flavour: TenantStory['flavour'] = 'test'): GeneratedRegister[] {
  const out: GeneratedRegister[] = [];
  for (let r = 0; r < shape.registers; r++) {
    const rng = Rng.for(seed, 61, r);
    const [baseKey, trapTitle] = REGISTER_NAMES[r % REGISTER_NAMES.length] ?? ['REG', 'Register'];
    // The markup in a register name is a test trap (escaping); a demo reads like a real company.
    const baseTitle = flavour === 'demo' ? trapTitle.replace(' <and> ', ' & ') : trapTitle;
    const round = Math.floor(r / REGISTER_NAMES.length);
    const record: RiskRegisterRecord = {
      key: round === 0 ? baseKey : `${baseKey}${round + 1}`,
      title: round === 0 ? baseTitle : `${baseTitle} ${round + 1}`,
      id: String(90_000 + r),
      createdBy: rng.pick(PEOPLE).login,
      status: r % 4 === 3 ? { status: 'Archived', id: '2' } : { status: 'Active', id: '1' },
    };
    if (r % 2 === 0) record.matrixSize = '5x5';
    out.push({ record, matrix: r % 2 === 0 ? MATRIX_5 : MATRIX_3 });
  }
  return out;
}

/** Builds the risks of every register, in register order. */
export function buildRisks(
  shape: TenantShape,
  seed: number,
  registers: readonly GeneratedRegister[],
  boards: readonly SimBoard[],
  metaOf: (board: SimBoard) => BoardMeta,
  story: TenantStory = TEST_STORY,
): RiskRecord[][] {
  const demo = story.flavour === 'demo';
  const raisedBase = dateBase(story, 420);
  const total = shape.registers * shape.risksPerRegister;
  const out: RiskRecord[][] = [];
  let global = 0;
  registers.forEach((reg, r) => {
    const linkedBoards = boards.filter((b) => b.registerId === reg.record.id);
    const risks: RiskRecord[] = [];
    for (let n = 0; n < shape.risksPerRegister; n++, global++) {
      const rng = Rng.for(seed, 62, r, n);
      const impact = rng.pick(reg.matrix.impacts);
      const probability = rng.pick(reg.matrix.probabilities);
      const status = rng.pick(RISK_STATUSES);
      const raised = raisedBase + rng.int(0, 420) * DAY_MS;
      let resolved = status.id === '3' || status.id === '4' ? raised + rng.int(5, 90) * DAY_MS : undefined;
      if (demo) {
        // A demo reads like this week's register: nothing resolved in the future, and most open risks
        // carry a target date, some already passed (overdue). Drawn from their own stream so the
        // main one (and with it every other field) stays as in the test flavour.
        const target = Rng.for(seed, 63, r, n);
        if (resolved !== undefined) resolved = Math.min(resolved, story.todayMs - DAY_MS);
        else if (target.chance(0.75)) resolved = story.todayMs + target.int(-40, 70) * DAY_MS;
      }

      let title = riskTitle(rng);
      let riskDesc: string | undefined = rng.chance(0.9) ? multiLine(rng, 1, 4, story.flavour) : undefined;
      let mitigationActions: string | undefined = rng.chance(0.8) ? actionList(rng) : undefined;
      const slot = demo ? -1 : specialSlot(global, total, 8, 5);
      if (slot >= 0 && slot < INJECTION_TITLES.length) title = INJECTION_TITLES[slot] ?? title;
      if (slot >= INJECTION_TITLES.length) title = AWKWARD_TITLES[slot - INJECTION_TITLES.length] ?? title;
      if (slot === 0) riskDesc = CONTROL_CHAR_TEXT;
      if (slot === 1) riskDesc = longText(40_000);
      if (slot === 2) riskDesc = 'Standort Zürich: Lieferverzug möglich.\n日本語の説明: 納期遅延のリスク。\nEmoji check 🚀✅ & <tags> "quotes", commas; semicolons';
      if (slot === 6) mitigationActions = '1. Call the vendor\u0002\n2. Re-plan the sprint';

      const record: RiskRecord = {
        key: `${reg.record.key}-${n + 1}`,
        title,
        id: String(300_000 + global),
        ...(riskDesc === undefined ? {} : { riskDesc }),
        ...(mitigationActions === undefined ? {} : { mitigationActions }),
        createdBy: rng.pick(PEOPLE).login,
        impact,
        probability,
        riskLevel: riskLevelFor(reg.matrix, impact, probability),
        raisedDate: formatRiskDate(raised),
        ...(resolved === undefined ? {} : { resolutionDate: formatRiskDate(resolved) }),
        status: { status: status.status, id: status.id },
        riskRegister: { riskRegister: reg.record.title, id: reg.record.id },
      };

      const board = linkedBoards.length > 0 ? rng.pick(linkedBoards) : undefined;
      if (board) {
        const meta = metaOf(board);
        const nItems = board.itemCount > 0 ? rng.int(0, 3) : 0;
        if (nItems > 0) {
          const indexes = new Set<number>();
          for (let k = 0; k < nItems; k++) indexes.add(rng.int(0, board.itemCount - 1));
          record.linkedItems = [...indexes].map((i) => ({ key: boardItemKey(board, i), id: boardItemId(board, i) }));
        }
        // A demo's risks also threaten PI objectives: half of them are linked to a feature an objective of
        // the board carries, so a risk owner's e-mail can say what business value rides on their risks.
        // Drawn from their own stream: every other field stays as in the test flavour.
        const toObjective = Rng.for(seed, 64, r, n);
        const features = piLinkedItemCount(shape);
        if (demo && features > 0 && toObjective.chance(0.5)) record.linkedItems = [...(record.linkedItems ?? []), piLinkedItemRef(board, toObjective.int(0, features - 1))];
        const teams = rng.sample(meta.teams, rng.int(0, 2));
        if (teams.length > 0) record.boardTeams = teams.map((t) => ({ teamTitle: t.title, teamId: t.id }));
        const sprints = rng.sample(meta.sprints, rng.int(0, 2));
        if (sprints.length > 0) record.boardSprints = sprints.map((s) => ({ sprintTitle: s.title, sprintId: s.id }));
      }

      const customFields: RiskCustomField[] = [
        { id: 'cf-101', title: 'Category', type: 'singleselect', value: rng.pick(CATEGORIES) },
      ];
      if (rng.chance(0.7)) {
        const p = rng.pick(PEOPLE);
        customFields.push({ id: 'cf-102', title: 'Risk owner', type: 'userpicker', value: { id: p.id, fullName: p.displayName } });
      }
      if (rng.chance(0.6)) customFields.push({ id: 'cf-103', title: 'Cost impact (k€)', type: 'number', value: rng.int(1, 5000) / 10 });
      if (rng.chance(0.5)) {
        customFields.push({ id: 'cf-104', title: 'Review date', type: 'date', value: formatIsoDate(raised + rng.int(7, 120) * DAY_MS) });
      }
      if (rng.chance(0.5)) customFields.push({ id: 'cf-105', title: 'Affected areas', type: 'multiselect', value: rng.sample(AREAS, rng.int(1, 3)) });
      if (rng.chance(0.3)) customFields.push({ id: 'cf-106', title: 'Notes', type: 'text', value: multiLine(rng, 1, 2, story.flavour) });
      record.customFields = customFields;

      const watchers = rng.sample(PEOPLE, rng.int(0, 3));
      if (watchers.length > 0) record.watcherList = watchers.map((p) => ({ Watcher: p.displayName, id: p.id }));
      if (rng.chance(0.85)) {
        const p = rng.pick(PEOPLE);
        record.responsible = { user: p.displayName, id: p.id };
      }
      if (global % 3 === 0) {
        record.score = (reg.matrix.impacts.indexOf(impact) + 1) * (reg.matrix.probabilities.indexOf(probability) + 1);
      }
      risks.push(record);
    }
    out.push(risks);
  });
  return out;
}
