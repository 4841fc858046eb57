/**
 * The columns of the `strategic-themes` and `okrs` tables, what each row is read from, the fields they
 * audit and what they leave out on purpose; okrs.ts walks the themes and fills them.
 */
import type { KeyResult, OkrObjective, OkrObjectiveGroup, PortfolioTheme, StrategicTheme } from '../../../planning-api/schemas';
import type { Column } from '../../../table/table';
import { tableColumns } from '../../../table/column-spec';
import type { FieldShape, NotExported } from '../../dataset/field-audit';
import { listOf } from '../columns';

/** What a `strategic-themes` row is read from. */
export interface ThemeSource {
  readonly theme: StrategicTheme;
  /** Portfolio themes the theme belongs to, in portfolio order. */
  readonly portfolios: readonly PortfolioTheme[];
  readonly owners: readonly string[] | null;
  readonly progress: number | null;
}

export const STRATEGIC_THEME_TABLE = tableColumns<ThemeSource>()([
  {
    name: 'portfolio_theme_keys', type: 'list', label: 'Portfolio themes', width: 16,
    description: 'Keys of the portfolio themes the strategic theme belongs to', read: (s) => listOf(s.portfolios.map((p) => p.key)),
  },
  {
    name: 'portfolio_theme_titles', type: 'list', label: 'Portfolio theme titles', width: 28, description: 'Titles of those portfolio themes',
    read: (s) => listOf(s.portfolios.map((p) => p.title)),
  },
  { name: 'key', type: 'text', label: 'Theme', width: 12, description: 'Strategic theme key', read: (s) => s.theme.key ?? null },
  { name: 'id', type: 'text', label: 'Theme id', width: 12, hidden: true, description: 'Internal strategic theme id', read: (s) => s.theme.id },
  { name: 'title', type: 'text', label: 'Title', width: 40, description: 'Strategic theme title', read: (s) => s.theme.title ?? null },
  {
    name: 'status', type: 'text', label: 'Status', width: 14, description: 'Status', change: { label: 'Status', order: 1 },
    read: (s) => s.theme.status?.status ?? null,
  },
  {
    name: 'owners', type: 'list', label: 'Owners', width: 24,
    description: 'Owners: display names where a risk of the same run names the user, else user ids', read: (s) => s.owners,
  },
  {
    name: 'theme_progress', type: 'percent', label: 'Progress', description: 'Theme progress (percent) from the progress operation',
    change: { label: 'Progress', order: 2 }, read: (s) => s.progress,
  },
  { name: 'summary', type: 'text', label: 'Summary', width: 40, description: 'Short summary of the theme', read: (s) => s.theme.summary ?? null },
  { name: 'description', type: 'text', label: 'Description', width: 50, longText: true, description: 'Description of the theme (multi-line)', read: (s) => s.theme.description ?? null },
  { name: 'color', type: 'text', label: 'Colour', width: 10, hidden: true, description: 'Colour of the theme (hex)', read: (s) => s.theme.color ?? null },
  // Since 1.3, the ids of what a theme refers to, for joins: a title can change, an id does not.
  { name: 'status_id', type: 'text', label: 'Status id', width: 10, hidden: true, description: 'Id of the status', read: (s) => s.theme.status?.id ?? null },
  {
    name: 'portfolio_theme_ids', type: 'list', label: 'Portfolio theme ids', width: 16, hidden: true,
    description: 'Ids of the portfolio themes the strategic theme belongs to', read: (s) => listOf(s.portfolios.map((p) => p.id)),
  },
  // `owners` shows names where the run knows them: the ids stay here.
  { name: 'owner_ids', type: 'list', label: 'Owner ids', width: 16, hidden: true, description: 'User ids of the owners', read: (s) => listOf(s.theme.owners) },
  // Since 1.4: the portfolio themes' own states, served with every portfolio theme and shown nowhere before.
  {
    name: 'portfolio_theme_statuses', type: 'list', label: 'Portfolio theme statuses', width: 20, hidden: true,
    description: 'Status titles of those portfolio themes, in the order of `portfolio_theme_keys` (a theme without a status is left out)',
    read: (s) => listOf(s.portfolios.map((p) => p.status?.status)),
  },
]);

const V1_STATUS: FieldShape = { status: true, id: true };

export const THEME_SHAPE: FieldShape = {
  id: true, key: true, title: true, status: V1_STATUS, owners: true, summary: true, description: true, color: true,
};
/** The fields the portfolio columns read (audited under `portfolioTheme.`, once per portfolio theme of a row). */
export const PORTFOLIO_THEME_SHAPE: FieldShape = { id: true, key: true, title: true, status: { status: true } };

/** What `strategic-themes` leaves out on purpose. */
export const STRATEGIC_THEME_NOT_EXPORTED: NotExported = {
  'portfolioTheme.description': "A portfolio theme's description: the table describes strategic themes (theirs is `description`)",
  'portfolioTheme.status.id': "Id of a portfolio theme's own state",
};

export const OKR_GROUP_SHAPE: FieldShape = {
  id: true, type: true, title: true, completionPct: true, status: V1_STATUS, bvPlan: true, bvActual: true, completionCriteria: true,
  level: true,
};
export const OKR_OBJECTIVE_SHAPE: FieldShape = {
  id: true, type: true, key: true, title: true, completionPct: true, timePeriod: true, endTimePeriod: true, objType: true,
  status: V1_STATUS, bvPlan: true, bvActual: true, completionCriteria: true, level: true, linkedItems: { id: true },
  // The owning group's title, which parent_title holds.
  groupName: true,
};
export const KEY_RESULT_SHAPE: FieldShape = {
  id: true, type: true, key: true, title: true, completionPct: true, criteria: true, timePeriod: true, status: V1_STATUS,
  metric: { baseline: true, target: true, unit: true, current: true }, level: true,
};

/** What `okrs` leaves out on purpose: the hierarchy's order and counts are the rows themselves. */
export const OKR_NOT_EXPORTED: NotExported = {
  sequence: "An objective group's place among its theme's groups: the rows keep the API's order",
  objectivesCount: "A group's number of objectives: its objective rows follow it",
  keyResultsCount: "An objective's number of key results: its key-result rows follow it",
  'linkedItems[].linkType': 'Kind of each link of an objective (the contract shows only backLogItem); the ids are in `linked_item_ids`',
};

export const STRATEGIC_THEME_COLUMNS: readonly Column[] = STRATEGIC_THEME_TABLE.columns;

/** What an `okrs` row is read from: a group (level 1), one of its objectives (2) or a key result (3). */
export type OkrSource =
  | { readonly level: 1; readonly themeKey: string; readonly group: OkrObjectiveGroup; readonly groupProgress: number | null }
  | { readonly level: 2; readonly themeKey: string; readonly group: OkrObjectiveGroup; readonly objective: OkrObjective }
  | { readonly level: 3; readonly themeKey: string; readonly objective: OkrObjective; readonly keyResult: KeyResult };

const DEFAULT_OKR_TYPES = { 1: 'Objective Group', 2: 'Objective', 3: 'Key Result' } as const;

function okrNode(s: OkrSource): OkrObjectiveGroup | OkrObjective | KeyResult {
  return s.level === 1 ? s.group : s.level === 2 ? s.objective : s.keyResult;
}

/** The row's parent: the group of an objective, the objective of a key result. */
function okrParent(s: OkrSource): { readonly id: string; readonly title?: string | null | undefined } | null {
  return s.level === 1 ? null : s.level === 2 ? s.group : s.objective;
}

const metric = (s: OkrSource) => (s.level === 3 ? s.keyResult.metric : undefined);

export const OKR_TABLE = tableColumns<OkrSource>()([
  { name: 'strategic_theme_key', type: 'text', label: 'Theme', width: 12, description: 'Key of the strategic theme the row belongs to', read: (s) => s.themeKey },
  { name: 'level', type: 'integer', label: 'Level', width: 6, description: '1 objective group, 2 objective, 3 key result', read: (s) => s.level },
  {
    name: 'type', type: 'text', label: 'Type', width: 16, description: '"Objective Group", "Objective" or "Key Result"',
    read: (s) => okrNode(s).type ?? DEFAULT_OKR_TYPES[s.level],
  },
  { name: 'id', type: 'text', label: 'Id', width: 12, hidden: true, description: 'Internal id', read: (s) => okrNode(s).id },
  {
    name: 'key', type: 'text', label: 'Key', width: 12, description: 'Key (objectives and key results)',
    read: (s) => (s.level === 1 ? null : (okrNode(s) as OkrObjective | KeyResult).key ?? null),
  },
  {
    name: 'parent_id', type: 'text', label: 'Parent id', width: 12, hidden: true,
    description: 'Id of the group (for objectives) or objective (for key results)', read: (s) => okrParent(s)?.id ?? null,
  },
  { name: 'parent_title', type: 'text', label: 'Parent', width: 30, description: 'Title of that group or objective', read: (s) => okrParent(s)?.title ?? null },
  { name: 'title', type: 'text', label: 'Title', width: 44, indent: true, description: 'Title', read: (s) => okrNode(s).title ?? null },
  {
    name: 'completion', type: 'percent', label: 'Completion', description: 'Completion percent', change: { label: 'Progress', order: 1 },
    read: (s) => (s.level === 1 ? (s.group.completionPct ?? s.groupProgress) : (okrNode(s).completionPct ?? null)),
  },
  {
    name: 'time_period', type: 'text', label: 'Time period', width: 14, description: 'Time period label',
    read: (s) => (s.level === 1 ? null : (okrNode(s) as OkrObjective | KeyResult).timePeriod ?? null),
  },
  {
    name: 'status', type: 'text', label: 'Status', width: 14, description: 'Status', change: { label: 'Status', order: 2 },
    read: (s) => okrNode(s).status?.status ?? null,
  },
  {
    name: 'bv_plan', type: 'number', label: 'Planned BV', description: 'Planned business value (objectives)',
    change: { label: 'Planned BV', order: 3 }, read: (s) => (s.level === 3 ? null : (okrNode(s) as OkrObjective).bvPlan ?? null),
  },
  {
    name: 'bv_actual', type: 'number', label: 'Actual BV', description: 'Actual business value (objectives)',
    change: { label: 'Actual BV', order: 4 }, read: (s) => (s.level === 3 ? null : (okrNode(s) as OkrObjective).bvActual ?? null),
  },
  {
    name: 'completion_criteria', type: 'text', label: 'Completion criteria', width: 18,
    description: 'Completion criteria of an objective, e.g. ROLLUP_BY_STATUS',
    read: (s) => (s.level === 3 ? null : (okrNode(s) as OkrObjective).completionCriteria ?? null),
  },
  {
    name: 'criteria', type: 'text', label: 'Criteria', width: 12, description: 'Criteria of a key result, e.g. "By Items" or "Target"',
    read: (s) => (s.level === 3 ? (s.keyResult.criteria ?? null) : null),
  },
  { name: 'metric_baseline', type: 'number', label: 'Baseline', description: 'Key-result metric baseline', read: (s) => metric(s)?.baseline ?? null },
  { name: 'metric_target', type: 'number', label: 'Target', description: 'Key-result metric target', read: (s) => metric(s)?.target ?? null },
  {
    name: 'metric_current', type: 'number', label: 'Current', description: 'Key-result metric current value',
    change: { label: 'Current value', order: 5 }, read: (s) => metric(s)?.current ?? null,
  },
  { name: 'metric_unit', type: 'text', label: 'Unit', width: 10, description: 'Key-result metric unit', read: (s) => metric(s)?.unit ?? null },
  {
    name: 'objective_kind', type: 'text', label: 'Objective kind', width: 14, description: 'Kind of an objective as the tool names it (objType)',
    read: (s) => (s.level === 2 ? (s.objective.objType ?? null) : null),
  },
  {
    name: 'end_time_period', type: 'text', label: 'End period', width: 14, description: 'Last time period of an objective that spans several',
    read: (s) => (s.level === 2 ? (s.objective.endTimePeriod ?? null) : null),
  },
  // Since 1.3, the ids of what a row refers to, for joins: a title can change, an id does not.
  { name: 'status_id', type: 'text', label: 'Status id', width: 10, hidden: true, description: 'Id of the status', read: (s) => okrNode(s).status?.id ?? null },
  {
    name: 'linked_item_ids', type: 'list', label: 'Linked item ids', width: 16, hidden: true, description: 'Ids of the items linked to an objective',
    read: (s) => (s.level === 2 ? listOf(s.objective.linkedItems?.map((l) => l.id)) : null),
  },
]);

export const OKR_COLUMNS: readonly Column[] = OKR_TABLE.columns;
