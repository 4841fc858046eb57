/**
 * The columns of `pi-objectives` and `pi-objective-items`: the tables' contract (docs/tables.md),
 * each column's source and how a row's values are read (pi-objectives.ts makes the rows).
 */
import { statusCategoryText } from '../../../core/format';
import { type Board, type CompletionType, type PiLinkedItem, type PiObjective, type PiObjectiveGroup, type PiSubItem, type PiTeamsAndSprints } from '../../../planning-api/schemas';
import { type TrackerItemFields, type TrackerRef } from '../../../planning-api/tracker-ref';
import { tableColumns, type ColumnName, type ColumnSpec } from '../../../table/column-spec';
import { epochToCalendarDate } from '../../dataset/dates';
import type { CellValue, Column } from '../../../table/table';
import { boardStateIdColumn } from '../boards';
import { link, listOf, titleOrText } from '../columns';

/** What a `pi-objectives` row is read from. */
export interface PiObjectiveSource {
  readonly board: Board;
  readonly group: PiObjectiveGroup;
  readonly objective: PiObjective;
  readonly completionType: CompletionType | undefined;
  readonly typeName: string;
}

/** Objectives and items carry the same legacy status record. */
type RowStatus = PiObjective['status'];

/**
 * The status columns of both tables: the status title, compared between runs at `order`, and its
 * category. Only the source of the status, the comparison order and the category's note differ.
 */
function statusColumns<S>(
  statusOf: (source: S) => RowStatus,
  order: number,
  categoryDescription: string,
): ColumnSpec<S, 'status' | 'status_category'>[] {
  return [
    {
      name: 'status', type: 'text', label: 'Status', width: 14, description: 'Status title', change: { label: 'Status', order },
      read: (s) => statusOf(s)?.title ?? null,
    },
    {
      name: 'status_category', type: 'text', label: 'Status category', width: 12, description: categoryDescription,
      inWords: statusCategoryText,
      read: (s) => statusOf(s)?.category ?? null,
    },
  ];
}

/** The id of the row's status: after the columns of earlier versions, so their positions stay. */
function statusIdColumn<S>(statusOf: (source: S) => RowStatus): ColumnSpec<S, 'status_id'> {
  return { name: 'status_id', type: 'text', label: 'Status id', width: 10, hidden: true, description: 'Id of the status', read: (s) => statusOf(s)?.id ?? null };
}

export const PI_OBJECTIVE_TABLE = tableColumns<PiObjectiveSource>()([
  { name: 'board_id', type: 'text', label: 'Board id', width: 12, hidden: true, description: 'Board id', read: (s) => s.board.id },
  { name: 'board_title', type: 'text', label: 'Board', width: 24, description: 'Board title', read: (s) => s.board.title ?? null },
  { name: 'group_id', type: 'text', label: 'Group id', width: 12, hidden: true, description: 'Objective group id', read: (s) => s.group.id },
  {
    name: 'group_title', type: 'text', label: 'Team / group', width: 24, description: 'Objective group title (usually a team)',
    read: (s) => s.group.title ?? null,
  },
  {
    name: 'group_type', type: 'text', label: 'Group type', width: 12, hidden: true, description: 'Objective group type, e.g. TeamGroup',
    read: (s) => s.group.type ?? null,
  },
  { name: 'id', type: 'text', label: 'Objective id', width: 14, description: 'Objective id', read: (s) => s.objective.id },
  { name: 'title', type: 'text', label: 'Objective', width: 44, description: 'Objective title', read: (s) => s.objective.title ?? null },
  {
    name: 'type', type: 'text', label: 'Type', width: 20, description: 'Objective type, e.g. Objective-Committed',
    read: (s) => s.objective.type ?? null,
  },
  {
    name: 'completion', type: 'percent', label: 'Completion',
    description: 'Completion percent by the completion type used; empty when not computable (null)',
    change: { label: 'Completion', order: 1 }, read: (s) => s.objective.completion ?? null,
  },
  {
    name: 'completion_type', type: 'integer', label: 'Completion type', width: 8, hidden: true,
    description: 'completionType requested (1-6); empty when the board default was used', read: (s) => s.completionType ?? null,
  },
  {
    name: 'completion_type_name', type: 'text', label: 'Completion calculation', width: 28,
    description: 'Name of the calculation, or "board default (2; 6 on OKR-mode boards)"', read: (s) => s.typeName,
  },
  {
    name: 'bv_plan', type: 'number', label: 'Planned BV', description: 'Planned business value',
    change: { label: 'Planned BV', order: 3 }, read: (s) => s.objective.bvPlan ?? null,
  },
  {
    name: 'bv_actual', type: 'number', label: 'Actual BV', description: 'Actual business value',
    change: { label: 'Actual BV', order: 4 }, read: (s) => s.objective.bvActual ?? null,
  },
  ...statusColumns<PiObjectiveSource>((s) => s.objective.status, 2, 'Status category, e.g. ToDo'),
  {
    name: 'linked_items', type: 'integer', label: 'Linked items', width: 8, description: 'Number of linked items',
    read: (s) => s.objective.linkedItems?.length ?? 0,
  },
  {
    name: 'group_completion', type: 'percent', label: 'Group completion', description: 'Completion of the objective group, rolled up from its objectives',
    read: (s) => s.group.completion ?? null,
  },
  { name: 'group_bv_plan', type: 'number', label: 'Group planned BV', description: 'Planned business value of the whole group', read: (s) => s.group.bvPlan ?? null },
  { name: 'group_bv_actual', type: 'number', label: 'Group actual BV', description: 'Actual business value of the whole group', read: (s) => s.group.bvActual ?? null },
  {
    name: 'group_achievement', type: 'percent', label: 'Group BV achievement',
    description: 'Actual over planned business value of the group (only on boards with BV achievement enabled)', read: (s) => s.group.achievement ?? null,
  },
  {
    name: 'board_state', type: 'text', label: 'Board state', width: 12, description: 'State of the board, e.g. Planning or Tracking',
    read: (s) => titleOrText(s.board.state),
  },
  // Since 1.2, the ids of what a row refers to, for joins: a title can change, an id does not.
  statusIdColumn<PiObjectiveSource>((s) => s.objective.status),
  boardStateIdColumn,
]);

export const PI_OBJECTIVE_COLUMNS: readonly Column[] = PI_OBJECTIVE_TABLE.columns;

/** What a `pi-objective-items` row is read from: a linked item, or a sub-item under one. */
export interface PiItemSource {
  readonly boardId: string;
  readonly objective: PiObjective;
  readonly item: PiLinkedItem | PiSubItem;
  /** The linked item above a sub-item; null for a linked item. */
  readonly parentId: string | null;
  readonly ref: TrackerRef;
  /** The item's plan, earliest first (read only when the team and sprint columns are on). */
  readonly plan: TeamSprintPlan | undefined;
}

/** Team and sprint facts of one item, computed once for the columns that show them. */
export interface TeamSprintPlan {
  readonly teams: readonly string[] | null;
  readonly sprints: readonly string[] | null;
  readonly firstStart: CellValue;
  readonly lastEnd: CellValue;
  readonly teamIds: readonly string[] | null;
  readonly sprintIds: readonly string[] | null;
  /** True when one of the sprints is the IP sprint, false when none is, null when none says. */
  readonly ipSprint: boolean | null;
}

const PI_ITEM_TABLE = tableColumns<PiItemSource>()([
  { name: 'board_id', type: 'text', label: 'Board id', width: 12, hidden: true, description: 'Board id', read: (s) => s.boardId },
  {
    name: 'objective_id', type: 'text', label: 'Objective id', width: 14, hidden: true, description: 'Objective the item is linked to',
    read: (s) => s.objective.id,
  },
  {
    name: 'objective_title', type: 'text', label: 'Objective', width: 30, description: 'Title of that objective',
    read: (s) => s.objective.title ?? null,
  },
  {
    name: 'kind', type: 'text', label: 'Kind', width: 9, description: '"item" (linked item) or "sub-item"',
    read: (s) => (s.parentId ? 'sub-item' : 'item'),
  },
  { name: 'item_id', type: 'text', label: 'Item id', width: 12, hidden: true, description: 'Id of the item', read: (s) => s.item.id },
  {
    name: 'parent_item_id', type: 'text', label: 'Parent item id', width: 12, hidden: true,
    description: 'For sub-items: id of the linked item above it', read: (s) => s.parentId,
  },
  {
    name: 'tracker_family', type: 'text', label: 'Tracker', width: 8,
    description: '"extA" or "extB": which tracker family the board is connected to',
    read: (s) => (s.ref.family === 'unknown' ? null : s.ref.family),
  },
  {
    name: 'tracker_id', type: 'text', label: 'Tracker id', width: 12, hidden: true, description: 'Item id in the tracker (extAId or extBId)',
    read: (s) => s.ref.id,
  },
  {
    name: 'tracker_key', type: 'text', label: 'Tracker key', width: 12, description: 'Item key in the tracker (extBKey; empty for extA)',
    read: (s) => s.ref.key,
  },
  {
    name: 'tracker_link', type: 'link', label: 'Item', width: 40,
    description: 'Link to the item in the tracker (extAURL, or built from extBKey)',
    read: (s) => link(s.ref.key ?? s.item.title ?? s.ref.id, s.ref.url),
  },
  { name: 'title', type: 'text', label: 'Title', width: 44, description: 'Item title', read: (s) => s.item.title ?? null },
  { name: 'type', type: 'text', label: 'Type', width: 12, description: 'Item type, e.g. Feature or UserStory', read: (s) => s.item.type ?? null },
  {
    name: 'issue_type', type: 'text', label: 'Issue type', width: 12, description: 'Tracker issue type, e.g. Story',
    read: (s) => s.item.issueType ?? null,
  },
  {
    name: 'story_points', type: 'number', label: 'Story points', description: 'Story points',
    change: { label: 'Story points', order: 3 }, read: (s) => s.item.storyPoints ?? null,
  },
  {
    name: 'completion', type: 'percent', label: 'Completion', description: 'Completion percent (linked items)',
    change: { label: 'Completion', order: 2 }, read: (s) => s.item.completion ?? null,
  },
  ...statusColumns<PiItemSource>((s) => s.item.status, 1, 'Status category'),
  {
    name: 'tracker_item_type_icon', type: 'text', label: 'Item type icon', width: 20, hidden: true,
    description: 'Address of the item-type icon (first family: extAItemTypeIcon; tfsItemTypeIcon in the public docs)',
    read: (s) => s.item.extAItemTypeIcon ?? s.item.tfsItemTypeIcon ?? null,
  },
  {
    name: 'tracker_issue_type_id', type: 'text', label: 'Issue type id', width: 10, hidden: true,
    description: 'Issue-type id in the tracker (second family: extBIssueTypeId; jiraIssueTypeId in the public docs)',
    read: (s) => s.item.extBIssueTypeId ?? s.item.jiraIssueTypeId ?? null,
  },
]);

export const TEAM_SPRINT_TABLE = tableColumns<PiItemSource>()([
  {
    name: 'teams', type: 'list', label: 'Teams', width: 20, description: 'Teams the item is planned for (additionalColumns only)',
    change: { label: 'Teams', order: 4 }, read: (s) => s.plan?.teams ?? null,
  },
  {
    name: 'sprints', type: 'list', label: 'Sprints', width: 20, description: 'Sprints the item is planned in (additionalColumns only)',
    change: { label: 'Sprints', order: 5 }, read: (s) => s.plan?.sprints ?? null,
  },
  {
    name: 'first_sprint_start', type: 'date', label: 'First sprint starts',
    description: 'Start date of the earliest sprint (additionalColumns only)', read: (s) => s.plan?.firstStart ?? null,
  },
  {
    name: 'last_sprint_end', type: 'date', label: 'Last sprint ends', description: 'End date of the latest sprint (additionalColumns only)',
    read: (s) => s.plan?.lastEnd ?? null,
  },
  // Since 1.3: the ids of those teams and sprints, for joins, and whether one of the sprints is the IP sprint.
  {
    name: 'team_ids', type: 'list', label: 'Team ids', width: 16, hidden: true, description: 'Ids of those teams (additionalColumns only)',
    read: (s) => s.plan?.teamIds ?? null,
  },
  {
    name: 'sprint_ids', type: 'list', label: 'Sprint ids', width: 16, hidden: true, description: 'Ids of those sprints (additionalColumns only)',
    read: (s) => s.plan?.sprintIds ?? null,
  },
  {
    name: 'is_ip_sprint', type: 'boolean', label: 'IP sprint', width: 8,
    description: 'Whether one of those sprints is the IP (innovation and planning) sprint; empty without sprints (additionalColumns only)',
    read: (s) => s.plan?.ipSprint ?? null,
  },
]);

/** Columns every file of the table ends with, after the team and sprint columns when they are on: added since 1.3. */
const PI_ITEM_TAIL = tableColumns<PiItemSource>()([statusIdColumn<PiItemSource>((s) => s.item.status)]);

/** Names of every column `pi-objective-items` may have (the team and sprint ones only with additionalColumns). */
export type PiItemColumnName = ColumnName<typeof PI_ITEM_TABLE> | ColumnName<typeof TEAM_SPRINT_TABLE> | ColumnName<typeof PI_ITEM_TAIL>;

/** Columns of `pi-objective-items`: team and sprint columns exist exactly when additionalColumns is on. */
export function piObjectiveItemColumns(additionalColumns: boolean): readonly Column[] {
  return [...PI_ITEM_TABLE.columns, ...(additionalColumns ? TEAM_SPRINT_TABLE.columns : []), ...PI_ITEM_TAIL.columns];
}

/** Tracked columns of `pi-objective-items` in comparison order (those of absent columns are skipped when bound). */
export const PI_ITEM_TRACKED = [...PI_ITEM_TABLE.tracked, ...TEAM_SPRINT_TABLE.tracked, ...PI_ITEM_TAIL.tracked];

function unique(values: (string | null | undefined)[]): string[] {
  return [...new Set(values.filter((v): v is string => !!v))];
}

export function teamSprintPlan(entries: readonly PiTeamsAndSprints[] | string | null | undefined, timeZone: string): TeamSprintPlan {
  // Text where the contract has a list: kept readable in the sprints column (the dataset counts a warning).
  if (typeof entries === 'string') {
    return { teams: null, sprints: listOf([entries]), firstStart: null, lastEnd: null, teamIds: null, sprintIds: null, ipSprint: null };
  }
  const list = [...(entries ?? [])].sort((a, b) => (a.sequence ?? 0) - (b.sequence ?? 0));
  const starts = list.map((e) => e.sprint?.startDate).filter((n): n is number => typeof n === 'number');
  const ends = list.map((e) => e.sprint?.endDate).filter((n): n is number => typeof n === 'number');
  // Sprint boundaries are instants; the calendar date in the report's zone is what planners read.
  const day = (ms: number) => epochToCalendarDate(ms, timeZone) ?? null;
  return {
    teams: listOf(unique(list.map((e) => e.team?.title))),
    sprints: listOf(unique(list.map((e) => e.sprint?.title))),
    firstStart: starts.length > 0 ? day(Math.min(...starts)) : null,
    lastEnd: ends.length > 0 ? day(Math.max(...ends)) : null,
    teamIds: listOf(unique(list.map((e) => e.team?.id))),
    sprintIds: listOf(unique(list.map((e) => e.sprint?.id))),
    ipSprint: list.some((e) => e.sprint?.isIPSprint === true) ? true : list.some((e) => e.sprint?.isIPSprint === false) ? false : null,
  };
}

/** The values of a `pi-objective-items` row, with or without the team and sprint columns. */
export function piItemValues(source: PiItemSource, additionalColumns: boolean): CellValue[] {
  const values = PI_ITEM_TABLE.values(source);
  if (additionalColumns) values.push(...TEAM_SPRINT_TABLE.values(source));
  values.push(...PI_ITEM_TAIL.values(source));
  return values;
}

/** The tracker fields under either vocabulary: the contract's extA and extB, or the docs' tfs and jira names. */
export function trackerFields(item: PiLinkedItem | PiSubItem): TrackerItemFields {
  return {
    extAId: item.extAId ?? item.tfsId,
    extAURL: item.extAURL ?? item.tfsURL,
    extBId: item.extBId ?? item.jiraId,
    extBKey: item.extBKey ?? item.jiraKey,
  };
}

