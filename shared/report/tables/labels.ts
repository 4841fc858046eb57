import type { Column, TableDefinition } from '../../table/table';

/**
 * Words for people: the sheet name and the column headers of the workbook. The snake_case keys stay
 * the contract of the CSV (and of the machine formats); these labels are what a Release Train
 * Engineer reads. Kept apart from the column definitions so each table's contract (key, type,
 * description) and its presentation can change independently.
 */

/** Sheet names by table name (Excel allows 31 characters and no `[]:*?/\`). */
export const SHEET_TITLES: Readonly<Record<string, string>> = {
  risks: 'Risks',
  'strategic-themes': 'Strategic themes',
  okrs: 'OKRs',
  'pi-objectives': 'PI objectives',
  'pi-objective-items': 'PI objective items',
  'board-items': 'Board items',
};

/** Column labels by table name, then column key. A column missing here is headed by its key. */
export const COLUMN_LABELS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  risks: {
    register_key: 'Register',
    register_title: 'Register title',
    key: 'Risk',
    id: 'Risk id',
    title: 'Title',
    status: 'Status',
    impact: 'Impact',
    probability: 'Probability',
    risk_level: 'Risk level',
    risk_level_color: 'Level colour',
    raised_date: 'Raised',
    resolution_date: 'Resolution date',
    responsible: 'Owner',
    created_by: 'Created by',
    watchers: 'Watchers',
    linked_items: 'Linked items',
    teams: 'Teams',
    sprints: 'Sprints',
    description: 'Description',
    mitigation: 'Mitigation',
  },
  'strategic-themes': {
    portfolio_theme_keys: 'Portfolio themes',
    portfolio_theme_titles: 'Portfolio theme titles',
    key: 'Theme',
    id: 'Theme id',
    title: 'Title',
    status: 'Status',
    owners: 'Owners',
    theme_progress: 'Progress',
  },
  okrs: {
    strategic_theme_key: 'Theme',
    level: 'Level',
    type: 'Type',
    id: 'Id',
    key: 'Key',
    parent_id: 'Parent id',
    parent_title: 'Parent',
    title: 'Title',
    completion: 'Completion',
    time_period: 'Time period',
    status: 'Status',
    bv_plan: 'Planned BV',
    bv_actual: 'Actual BV',
    completion_criteria: 'Completion criteria',
    criteria: 'Criteria',
    metric_baseline: 'Baseline',
    metric_target: 'Target',
    metric_current: 'Current',
    metric_unit: 'Unit',
  },
  'pi-objectives': {
    board_id: 'Board id',
    board_title: 'Board',
    group_id: 'Group id',
    group_title: 'Team / group',
    group_type: 'Group type',
    id: 'Objective id',
    title: 'Objective',
    type: 'Type',
    completion: 'Completion',
    completion_type: 'Completion type',
    completion_type_name: 'Completion calculation',
    bv_plan: 'Planned BV',
    bv_actual: 'Actual BV',
    status: 'Status',
    status_category: 'Status category',
    linked_items: 'Linked items',
  },
  'pi-objective-items': {
    board_id: 'Board id',
    objective_id: 'Objective id',
    objective_title: 'Objective',
    kind: 'Kind',
    item_id: 'Item id',
    parent_item_id: 'Parent item id',
    tracker_family: 'Tracker',
    tracker_id: 'Tracker id',
    tracker_key: 'Tracker key',
    tracker_link: 'Item',
    title: 'Title',
    type: 'Type',
    issue_type: 'Issue type',
    story_points: 'Story points',
    completion: 'Completion',
    status: 'Status',
    status_category: 'Status category',
    teams: 'Teams',
    sprints: 'Sprints',
    first_sprint_start: 'First sprint starts',
    last_sprint_end: 'Last sprint ends',
  },
  'board-items': {
    board_id: 'Board id',
    board_title: 'Board',
    kind: 'Kind',
    id: 'Item id',
    parent_id: 'Feature id',
    parent_title: 'Feature',
    external_key: 'Key',
    external_link: 'Item',
    summary: 'Summary',
    item_type: 'Item type',
    card_type: 'Card type',
    status: 'Status',
    status_category: 'Status category',
    sprints: 'Sprints',
    teams: 'Teams',
    estimates: 'Estimate',
    completion_by_status: 'Done by status',
    completion_by_estimate: 'Done by estimate',
    created_on: 'Created',
    created_by: 'Created by',
    updated_on: 'Updated',
    updated_by: 'Updated by',
    iteration_path: 'Iteration path',
    area_path: 'Area path',
  },
};

/**
 * Columns kept for the contract but hidden in the workbook: internal ids a person never types into
 * the planning tool, and colour codes already shown as the cell's fill.
 */
export const HIDDEN_COLUMNS: Readonly<Record<string, readonly string[]>> = {
  risks: ['id', 'risk_level_color'],
  'strategic-themes': ['id'],
  okrs: ['id', 'parent_id'],
  'pi-objectives': ['board_id', 'group_id', 'group_type', 'completion_type'],
  'pi-objective-items': ['board_id', 'objective_id', 'item_id', 'parent_item_id', 'tracker_id'],
  'board-items': ['board_id', 'id', 'parent_id'],
};

/** Titles of a hierarchy, indented by their level in the workbook. */
export const INDENTED_COLUMNS: Readonly<Record<string, readonly string[]>> = {
  okrs: ['title'],
};

/** Ids, keys and codes: one line, never wrapped mid-number. */
function isIdentifier(key: string): boolean {
  return /(^|_)(id|key|keys)$/.test(key) || key === 'kind' || key === 'level';
}

/** A column with its label and presentation flags from the maps above; a label already set (custom fields) wins. */
export function labelColumn(table: string, column: Column): Column {
  const label = column.label ?? COLUMN_LABELS[table]?.[column.key];
  const hidden = HIDDEN_COLUMNS[table]?.includes(column.key) ?? false;
  const indent = INDENTED_COLUMNS[table]?.includes(column.key) ?? false;
  return {
    ...column,
    ...(label !== undefined && { label }),
    ...(hidden && { hidden }),
    ...(column.type === 'text' && isIdentifier(column.key) && { nowrap: true }),
    ...(indent && { indentByLevel: true }),
  };
}

/** A table definition as the workbook should present it: sheet title and labelled columns. */
export function labelled(table: TableDefinition): TableDefinition {
  const title = table.title ?? SHEET_TITLES[table.name];
  return {
    ...table,
    ...(title !== undefined && { title }),
    columns: table.columns.map((c) => labelColumn(table.name, c)),
  };
}
