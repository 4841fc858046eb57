import * as z from 'zod';
import { toArray } from '../../../core/async-iterables';
import type { Risk, RiskRegister } from '../../../planning-api/schemas';
import { parseApiDate } from '../../dataset/dates';
import { daysBetween, isClosedRiskStatus } from '../../summary/vocabulary';
import { datasetOptions, inBatches, readerFormatOf, runDay, type Dataset, type DatasetContext, type DatasetEntry, type DatasetPlan, type PlanContext, type TableOutput } from '../../dataset/dataset';
import { RiskFigures } from '../../summary/risk-figures';
import { RiskHeatMap } from '../../summary/risk-heat-map';
import { selectAll } from '../../dataset/selector-titles';
import { DEFINITION_LIMITS, idList } from '../../dataset/definition-limits';
import { BY_KEY_OR_ID, changeRules } from '../../dataset/change-rules';
import type { Column, TableDefinition, TableRow } from '../../../table/table';
import type { PeopleDirectory } from '../../dataset/people';
import { col, columnSlug, dateOrText, listOf } from '../columns';
import { customColumnType, customValue, customValueText, isFreeTextField } from './risk-custom-values';
import { riskFieldRows, RISK_CUSTOM_FIELDS_ENTRY } from './risk-custom-fields';
import { tableColumns } from '../../../table/column-spec';
import { FieldAudit, type FieldShape, type NotExported } from '../../dataset/field-audit';
import { RepeatedRecords } from '../../dataset/repeated-records';
import { tableSheetName } from '../../sheet-names';

/** What a `risks` row is read from. */
export interface RiskSource {
  readonly register: RiskRegister;
  readonly risk: Risk;
  /** The run's calendar day at 00:00 UTC: what overdue is judged against. */
  readonly today: Date;
}

/** Days a risk is past its resolution date on `today`, or null when it is closed, has none or is not yet due (the Summary's rule). */
export function riskDaysOverdue(risk: Risk, today: Date): number | null {
  if (isClosedRiskStatus(risk.status?.status ?? '(no status)')) return null;
  const due = parseApiDate(risk.resolutionDate);
  return due && due < today ? daysBetween(due, today) : null;
}

/** Fixed columns of the `risks` table; custom-field columns (`cf_...`) follow them. */
export const RISK_TABLE = tableColumns<RiskSource>()([
  { name: 'register_key', type: 'text', label: 'Register', width: 12, description: 'Key of the risk register', read: (s) => s.register.key ?? null },
  {
    name: 'register_title', type: 'text', label: 'Register title', width: 24, description: 'Title of the risk register',
    read: (s) => s.register.title ?? s.risk.riskRegister?.riskRegister ?? null,
  },
  { name: 'key', type: 'text', label: 'Risk', width: 12, description: 'Risk key (register key, hyphen, number)', read: (s) => s.risk.key ?? null },
  { name: 'id', type: 'text', label: 'Risk id', width: 12, hidden: true, description: 'Internal risk id', read: (s) => s.risk.id },
  { name: 'title', type: 'text', label: 'Title', width: 40, description: 'Risk title', read: (s) => s.risk.title ?? null },
  {
    name: 'status', type: 'text', label: 'Status', width: 14, description: 'Risk status', change: { label: 'Status', order: 1 },
    read: (s) => s.risk.status?.status ?? null,
  },
  {
    name: 'impact', type: 'text', label: 'Impact', width: 12, description: 'Impact level from the register matrix',
    change: { label: 'Impact', order: 3 }, read: (s) => s.risk.impact ?? null,
  },
  {
    name: 'probability', type: 'text', label: 'Probability', width: 12, description: 'Probability level from the register matrix',
    change: { label: 'Probability', order: 4 }, read: (s) => s.risk.probability ?? null,
  },
  {
    name: 'risk_level', type: 'text', label: 'Risk level', width: 14,
    description: 'Computed risk level; the worksheet cell is filled with the level colour',
    change: { label: 'Risk level', order: 2, severity: true }, read: (s) => s.risk.riskLevel?.title ?? null,
  },
  {
    name: 'risk_level_color', type: 'text', label: 'Level colour', width: 10, hidden: true, description: 'Hex colour of the risk level',
    read: (s) => s.risk.riskLevel?.color ?? null,
  },
  { name: 'raised_date', type: 'date', label: 'Raised', description: 'Date the risk was raised', read: (s) => dateOrText(s.risk.raisedDate, parseApiDate) },
  {
    name: 'resolution_date', type: 'date', label: 'Resolution date', description: 'Resolution date (empty when not resolved)',
    change: { label: 'Resolution date', order: 6 }, read: (s) => dateOrText(s.risk.resolutionDate, parseApiDate),
  },
  {
    name: 'responsible', type: 'text', label: 'Owner', width: 20, description: 'Display name of the responsible user',
    change: { label: 'Owner', order: 5 }, read: (s) => s.risk.responsible?.user ?? null,
  },
  { name: 'created_by', type: 'text', label: 'Created by', width: 20, description: 'Login of the user who created the risk', read: (s) => s.risk.createdBy ?? null },
  {
    name: 'watchers', type: 'list', label: 'Watchers', width: 24, description: 'Display names of watchers',
    read: (s) => listOf(s.risk.watcherList?.map((w) => w.Watcher)),
  },
  {
    name: 'linked_items', type: 'list', label: 'Linked items', width: 20, description: 'Keys of linked board items',
    read: (s) => listOf(s.risk.linkedItems?.map((l) => l.key ?? l.id)),
  },
  { name: 'teams', type: 'list', label: 'Teams', width: 20, description: 'Board teams', read: (s) => listOf(s.risk.boardTeams?.map((t) => t.teamTitle)) },
  {
    name: 'sprints', type: 'list', label: 'Sprints', width: 20, description: 'Board sprints',
    read: (s) => listOf(s.risk.boardSprints?.map((b) => b.sprintTitle)),
  },
  { name: 'description', type: 'text', label: 'Description', width: 50, longText: true, description: 'Risk description (multi-line)', read: (s) => s.risk.riskDesc ?? null },
  { name: 'mitigation', type: 'text', label: 'Mitigation', width: 50, longText: true, description: 'Mitigation actions (multi-line)', read: (s) => s.risk.mitigationActions ?? null },
  // Since 1.1, the ids of what a risk refers to, for joins: a title can change, an id does not. At the end, so positions stay.
  { name: 'register_id', type: 'text', label: 'Register id', width: 12, hidden: true, description: 'Id of the risk register', read: (s) => s.register.id },
  { name: 'status_id', type: 'text', label: 'Status id', width: 10, hidden: true, description: 'Id of the risk status', read: (s) => s.risk.status?.id ?? null },
  {
    name: 'responsible_id', type: 'text', label: 'Owner id', width: 12, hidden: true, description: 'User id of the responsible user',
    read: (s) => s.risk.responsible?.id ?? null,
  },
  {
    name: 'watcher_ids', type: 'list', label: 'Watcher ids', width: 16, hidden: true, description: 'User ids of the watchers',
    read: (s) => listOf(s.risk.watcherList?.map((w) => w.id)),
  },
  {
    name: 'linked_item_ids', type: 'list', label: 'Linked item ids', width: 16, hidden: true, description: 'Ids of the linked board items',
    read: (s) => listOf(s.risk.linkedItems?.map((l) => l.id)),
  },
  { name: 'team_ids', type: 'list', label: 'Team ids', width: 16, hidden: true, description: 'Ids of the board teams', read: (s) => listOf(s.risk.boardTeams?.map((t) => t.teamId)) },
  {
    name: 'sprint_ids', type: 'list', label: 'Sprint ids', width: 16, hidden: true, description: 'Ids of the board sprints',
    read: (s) => listOf(s.risk.boardSprints?.map((b) => b.sprintId)),
  },
  // Since 1.2: the register's own state, served with every register and shown nowhere before.
  {
    name: 'register_status', type: 'text', label: 'Register status', width: 14, hidden: true,
    description: 'Status title of the risk register itself (e.g. Active, Archived); its risks are exported whatever it is', read: (s) => s.register.status?.status ?? null,
  },
  // Since 1.3: the Summary's judgements per risk, so the Risks sheet filters to what "Needs attention" counts.
  {
    name: 'is_open', type: 'boolean', label: 'Open', width: 8,
    description: 'Whether the risk still needs action: its status is not closed, mitigated, resolved, done, cancelled, archived or accepted',
    read: (s) => !isClosedRiskStatus(s.risk.status?.status ?? '(no status)'),
  },
  {
    name: 'is_overdue', type: 'boolean', label: 'Overdue', width: 9, description: 'Whether the risk is open and its resolution date is before the run\'s day',
    read: (s) => riskDaysOverdue(s.risk, s.today) !== null,
  },
  {
    name: 'days_overdue', type: 'integer', label: 'Days overdue', width: 9,
    description: 'Calendar days from the resolution date to the run\'s day, for an overdue risk (empty otherwise)', read: (s) => riskDaysOverdue(s.risk, s.today),
  },
]);

export const RISK_COLUMNS: readonly Column[] = RISK_TABLE.columns;

const RISK_LEVEL_COLUMN = RISK_TABLE.indexOf('risk_level');

/**
 * The fields the risk columns read; a custom field's value goes into its own column (a user by name),
 * and each custom field, id, title, type and value, into a row of `risk-custom-fields`.
 */
export const RISK_SHAPE: FieldShape = {
  id: true, key: true, title: true, riskDesc: true, mitigationActions: true, createdBy: true, impact: true, probability: true,
  riskLevel: { title: true, color: true }, raisedDate: true, resolutionDate: true, linkedItems: { key: true, id: true },
  boardTeams: { teamTitle: true, teamId: true }, boardSprints: { sprintTitle: true, sprintId: true },
  customFields: { id: true, title: true, type: true, value: { fullName: true, id: true } }, status: { status: true, id: true },
  // The register the risk was listed under: its id is register_id, its title register_title's fallback.
  riskRegister: { riskRegister: true, id: true },
  watcherList: { Watcher: true, id: true }, responsible: { user: true, id: true },
};

/** The fields the register columns read (audited under `register.`). */
export const REGISTER_SHAPE: FieldShape = { id: true, key: true, title: true, status: { status: true } };

/** What `risks` leaves out on purpose (docs/tables.md lists it; the manifest with these reasons). */
export const RISK_NOT_EXPORTED: NotExported = {
  'register.createdBy': 'Who created the register, not the risk (`created_by` is the risk\'s creator)',
  'register.status.id': "Id of the register's own state",
};

interface CustomColumn {
  readonly title: string;
  readonly column: Column;
}

/** Custom-field columns in a stable order (by title), keys `cf_<slug>` made unique. */
export function customColumns(risks: readonly Risk[]): CustomColumn[] {
  const byTitle = new Map<string, string | null | undefined>();
  for (const risk of risks) {
    for (const field of risk.customFields ?? []) {
      const title = field.title ?? field.id;
      if (title && !byTitle.has(title)) byTitle.set(title, field.type);
    }
  }
  const taken = new Set(RISK_COLUMNS.map((c) => c.key));
  return [...byTitle.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([title, type]) => {
      const base = `cf_${columnSlug(title)}`;
      let key = base;
      for (let n = 2; taken.has(key); n++) key = `${base}_${n}`;
      taken.add(key);
      return { title, column: customColumn(key, title, type) };
    });
}

/** A custom field's column; its own title heads it in the workbook, the key stays the CSV contract. */
function customColumn(key: string, title: string, type: string | null | undefined): Column {
  const column = { ...col(key, customColumnType(type), `Custom field "${title}" (${type ?? 'unknown type'})`, 20), label: title };
  // Free text (notes) wraps at 16 letters a line in 20 characters: a two-line note made a row ten lines tall.
  return isFreeTextField(type) ? { ...column, width: 40, longText: true } : column;
}

/** Every id → name pair a risk mentions: responsible person, watchers, user-picker fields. */
function learnPeople(risk: Risk, people: PeopleDirectory): void {
  people.learn(risk.responsible?.id, risk.responsible?.user);
  for (const w of risk.watcherList ?? []) people.learn(w.id, w.Watcher);
  for (const field of risk.customFields ?? []) {
    const v = field.value as { id?: unknown; fullName?: unknown } | null | undefined;
    if (v && typeof v === 'object' && typeof v.id === 'string' && typeof v.fullName === 'string') people.learn(v.id, v.fullName);
  }
}

export function riskRow(register: RiskRegister, risk: Risk, custom: readonly CustomColumn[], today: Date): TableRow {
  const values = RISK_TABLE.values({ register, risk, today });
  const fields = new Map((risk.customFields ?? []).map((f) => [f.title ?? f.id, f] as const));
  for (const c of custom) {
    const field = fields.get(c.title);
    values.push(field ? customValue(field, c.column.type) : null);
  }
  const color = risk.riskLevel?.color;
  return color ? { values, fill: { column: RISK_LEVEL_COLUMN, color } } : { values };
}

/**
 * Who owns a risk, by name: its responsible person (the Owner column), or the custom field the
 * definition names (`ownerField`, matched by title without regard to case); null when there is none.
 */
export function riskOwner(risk: Risk, ownerField: string | undefined): string | null {
  if (ownerField === undefined) return risk.responsible?.user || risk.responsible?.id || null;
  const wanted = ownerField.toLowerCase();
  const field = risk.customFields?.find((f) => (f.title ?? '').toLowerCase() === wanted);
  return customValueText(field?.value) || null;
}

/** The sheet's name: the Summary's links to a risk's row point into it. */
const RISKS_TITLE = 'Risks';

/**
 * The `risks` dataset of `registers` (resolved by the run's plan, planRisks). Risks are collected
 * before the table starts because the custom-field columns are only known once every risk has been
 * seen (a stable header needs them all); a register holds hundreds to a few thousand risks, so this
 * is small next to board items.
 */
export function risksDataset(ctx: DatasetContext, registers: readonly RiskRegister[]): Dataset {
  const ownerField = datasetOptions(ctx.definition, 'risks', RISK_OPTIONS)?.ownerField;
  const today = runDay(ctx);
  const messages = readerFormatOf(ctx).messages;
  const figures = new RiskFigures(today, tableSheetName('risks', RISKS_TITLE, messages), { of: (risk) => riskOwner(risk, ownerField), field: ownerField }, messages, ctx.definition.links.riskUrl);
  const heatMap = new RiskHeatMap(messages, (risk) => riskOwner(risk, ownerField), customValueText);
  let total = 0;
  const audit = new FieldAudit({ risks: RISK_NOT_EXPORTED });
  const repeats = new RepeatedRecords();

  async function* tables(): AsyncIterable<TableOutput> {
    for (const register of registers) audit.check('risks', register, REGISTER_SHAPE, 'register.');
    const fetched = await Promise.all(
      registers.map(async (register) => ({ register, risks: await toArray(ctx.source.listRisks(register.id)) })),
    );
    // Each risk once (a risk belongs to one register, its id is the row's): the first kept.
    const riskIds = new Set<string>();
    const perRegister = fetched.map(({ register, risks }) => ({ register, risks: risks.filter((risk) => repeats.first(riskIds, risk.id, 'risks')) }));
    repeats.warn(ctx.log, 'risks');
    const custom = customColumns(perRegister.flatMap((r) => r.risks));
    const table: TableDefinition = { name: 'risks', columns: [...RISK_COLUMNS, ...custom.map((c) => c.column)] };
    function* rows(): Iterable<TableRow> {
      for (const { register, risks } of perRegister) {
        for (const risk of risks) {
          total++;
          if (ctx.people) learnPeople(risk, ctx.people);
          figures.add(register, risk, total + 1, ctx.ownWork);
          heatMap.add(register, risk);
          audit.check('risks', risk, RISK_SHAPE);
          yield riskRow(register, risk, custom, today);
        }
      }
    }
    yield { table, batches: inBatches(rows()) };
    // The same risks' custom fields as rows (risk-custom-fields.ts), after the risks were audited and counted.
    const fieldRows = perRegister.flatMap(({ register, risks }) => risks.flatMap((risk) => riskFieldRows(register, risk)));
    yield { table: { name: RISK_CUSTOM_FIELDS_ENTRY.name, columns: RISK_CUSTOM_FIELDS_ENTRY.contract.columns }, batches: inBatches(fieldRows) };
  }

  return {
    name: 'risks',
    tables,
    resolvedSelectors: () => ({
      registers: registers.map((r) => ({ id: r.id, key: r.key ?? null, title: r.title ?? null })),
    }),
    attention: () => figures.attentionItems(),
    summary: () => [...figures.sections(), ...heatMap.sections()],
    figures: () => ({ ...audit.figures(), ...repeats.figures(), ...figures.figures() }),
  };
}

/**
 * The plan of the risks: the registers named (ids, keys or titles, in the order named), or every
 * visible one, from the run's list of registers.
 */
async function planRisks(ctx: PlanContext): Promise<DatasetPlan> {
  const selectors = datasetOptions(ctx.definition, 'risks', RISK_OPTIONS)?.registers;
  const visible = await ctx.lists.registers();
  const { records: registers, issues } = selectors
    ? selectAll(visible, selectors, 'datasets.risks.registers', { noun: 'risk register', keyed: true })
    : { records: [...visible], issues: [] };
  return {
    issues,
    reads: [{ noun: 'risk register', records: registers }],
    estimate: { requests: registers.length, exact: false, how: 'the risks of each register, a page per 50 risks' },
    create: (dataset) => risksDataset(dataset, registers),
  };
}

/** `datasets.risks` in a definition. */
const RISK_OPTIONS = z.strictObject({
  registers: idList('register id, key or title'),
  /**
   * Title of a custom field that holds a risk's owner (a user picker such as "Risk owner"),
   * for registers that keep the owner there rather than in `responsible`.
   */
  ownerField: z
    .string()
    .trim()
    .min(1, 'ownerField names a custom field: give its title, e.g. "Risk owner"')
    .max(DEFINITION_LIMITS.name, `a custom field's title has at most ${DEFINITION_LIMITS.name} characters`)
    .optional(),
});

export const RISKS_DATASET: DatasetEntry<'risks', typeof RISK_OPTIONS, 'registers'> = {
  name: 'risks',
  options: RISK_OPTIONS,
  selectors: ['registers'],
  slicedBy: { registers: 'registers' },
  apiGroup: 'risk',
  plan: planRisks,
  tables: [{
    name: 'risks',
    title: RISKS_TITLE,
    // The cf_<title> custom-field columns that follow vary with the tenant: written (typed), not part of the contract.
    contract: { version: '1.3', columns: RISK_COLUMNS },
    notExported: RISK_NOT_EXPORTED,
    changes: changeRules(RISK_TABLE.tracked, { ...BY_KEY_OR_ID, scope: 'register_key', teams: 'teams', items: true }),
    docs: {
      intro: 'One row per risk of the selected registers (default: every visible register).',
      outro: 'Then one column per custom field title found in the exported registers, sorted by title, named `cf_<title in snake_case>` ' +
        '(a suffix `_2`, `_3` keeps names unique); in the workbook the field\'s own title heads the column. `singleselect` values are the option text, `userpicker` values the user\'s full ' +
        'name, number and date fields are typed cells, and any other type is rendered as readable text (lists joined with `; `). The same values, keyed by ' +
        'field id whatever the titles, are the rows of `risk-custom-fields`.',
      versions: {
        '1.1': 'added `register_id`, `status_id`, `responsible_id`, `watcher_ids`, `linked_item_ids`, `team_ids` and `sprint_ids`, the ids of what a risk refers to (after `mitigation`, before the custom-field columns)',
        '1.2': 'added `register_status`, the status title of the register itself (before the custom-field columns)',
        '1.3': 'added `is_open`, `is_overdue` and `days_overdue`, the Summary\'s judgements of each risk against the run\'s day (before the custom-field columns)',
      },
    },
  }, RISK_CUSTOM_FIELDS_ENTRY],
};
