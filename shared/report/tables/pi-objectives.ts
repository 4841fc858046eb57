import { statusCategoryText } from '../../core/format';
import { COMPLETION_TYPES, type Board, type CompletionType, type PiLinkedItem, type PiObjective, type PiObjectiveGroup, type PiSubItem, type PiTeamsAndSprints } from '../../planning-api/schemas';
import { trackerRef, type TrackerItemFields, type TrackerRef } from '../../planning-api/tracker-ref';
import { FieldAudit, type FieldShape } from '../field-audit';
import { RepeatedRecords } from '../repeated-records';
import { tableColumns, type ColumnName, type ColumnSpec } from '../../table/column-spec';
import { epochToCalendarDate } from '../dates';
import { inBatches, runDay, type Dataset, type DatasetContext, type DatasetEntry, type DatasetPlan, type PlanContext, type TableOutput } from '../dataset';
import type { CellValue, Column, TableRow } from '../../table/table';
import { planBoards } from './boards';
import { PiFigures } from '../summary/pi-figures';
import { link, listOf, titleOrText } from './columns';
import { boardSprints, piPhase, type PiPhase } from '../summary/pi-phase';
import { isClosedBoardState } from '../summary/vocabulary';
import { changeRules } from '../changes/change-rules';

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

/** Team and sprint facts of one item, computed once for the four columns that show them. */
export interface TeamSprintPlan {
  readonly teams: readonly string[] | null;
  readonly sprints: readonly string[] | null;
  readonly firstStart: CellValue;
  readonly lastEnd: CellValue;
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

const TEAM_SPRINT_TABLE = tableColumns<PiItemSource>()([
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
]);

/** Names of every column `pi-objective-items` may have (the team and sprint ones only with additionalColumns). */
export type PiItemColumnName = ColumnName<typeof PI_ITEM_TABLE> | ColumnName<typeof TEAM_SPRINT_TABLE>;

/** Columns of `pi-objective-items`: team and sprint columns exist exactly when additionalColumns is on. */
export function piObjectiveItemColumns(additionalColumns: boolean): readonly Column[] {
  return additionalColumns ? [...PI_ITEM_TABLE.columns, ...TEAM_SPRINT_TABLE.columns] : PI_ITEM_TABLE.columns;
}

/** Tracked columns of `pi-objective-items` in comparison order (those of absent columns are skipped when bound). */
export const PI_ITEM_TRACKED = [...PI_ITEM_TABLE.tracked, ...TEAM_SPRINT_TABLE.tracked];

function unique(values: (string | null | undefined)[]): string[] {
  return [...new Set(values.filter((v): v is string => !!v))];
}

export function teamSprintPlan(entries: readonly PiTeamsAndSprints[] | string | null | undefined, timeZone: string): TeamSprintPlan {
  // Text where the contract has a list: kept readable in the sprints column (the dataset counts a warning).
  if (typeof entries === 'string') return { teams: null, sprints: listOf([entries]), firstStart: null, lastEnd: null };
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
  };
}

/** The values of a `pi-objective-items` row, with or without the team and sprint columns. */
export function piItemValues(source: PiItemSource, additionalColumns: boolean): CellValue[] {
  const values = PI_ITEM_TABLE.values(source);
  if (additionalColumns) values.push(...TEAM_SPRINT_TABLE.values(source));
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

const STATUS = true;
/** Fields of a sub-item the item table reads (a status and a plan entry are references: their title is what is kept). */
export const PI_SUB_ITEM_SHAPE: FieldShape = {
  id: true, extAId: true, extAURL: true, extAItemTypeIcon: true, tfsId: true, tfsURL: true, tfsItemTypeIcon: true,
  extBId: true, extBKey: true, extBIssueTypeId: true, jiraId: true, jiraKey: true, jiraIssueTypeId: true, title: true,
  type: true, issueType: true, storyPoints: true, completion: true, status: STATUS,
  teamsAndSprints: { sequence: true, team: true, sprint: true },
};
/** A linked item: its sub-items have rows of their own (audited one by one). */
export const PI_LINKED_ITEM_SHAPE: FieldShape = { ...PI_SUB_ITEM_SHAPE, subItems: true };
/**
 * A board's objective groups with each objective once (its row's key is board and id) and each
 * objective's items once (objective, kind and id): the first kept, the rows of the others counted
 * as dropped. Unchanged records are handed back as they came.
 */
export function withoutRepeats(groups: readonly PiObjectiveGroup[], repeats: RepeatedRecords): PiObjectiveGroup[] {
  const objectiveIds = new Set<string>();
  return groups.map((group) => {
    if (!group.objectives) return group;
    const objectives = group.objectives.flatMap((objective) => {
      if (repeats.first(objectiveIds, objective.id, 'pi-objectives')) return [withoutRepeatedItems(objective, repeats)];
      // Its items are another table's rows.
      repeats.drop('pi-objective-items', itemRowsOf(objective));
      return [];
    });
    return objectives.length === group.objectives.length && objectives.every((o, i) => o === group.objectives![i]) ? group : { ...group, objectives };
  });
}

function withoutRepeatedItems(objective: PiObjective, repeats: RepeatedRecords): PiObjective {
  if (!objective.linkedItems) return objective;
  const seen = new Set<string>();
  let changed = false;
  const linkedItems = objective.linkedItems.flatMap((item) => {
    if (!repeats.first(seen, `item ${item.id}`, 'pi-objective-items', item.subItems?.length ?? 0)) {
      changed = true;
      return [];
    }
    if (!item.subItems) return [item];
    const subItems = item.subItems.filter((sub) => repeats.first(seen, `sub-item ${sub.id}`, 'pi-objective-items'));
    if (subItems.length === item.subItems.length) return [item];
    changed = true;
    return [{ ...item, subItems }];
  });
  return changed ? { ...objective, linkedItems } : objective;
}

/** The `pi-objective-items` rows of an objective: its linked items and their sub-items. */
function itemRowsOf(objective: PiObjective): number {
  return (objective.linkedItems ?? []).reduce((rows, item) => rows + 1 + (item.subItems?.length ?? 0), 0);
}

/** A board's PI phase (from its sprints) and its teams, for the Summary's predictability. */
async function piOf(ctx: DatasetContext, board: Board, groups: PiObjectiveGroup[]): Promise<{ board: Board; phase: PiPhase; teams: string[] }> {
  const [sprints, teams] = await Promise.all([ctx.source.listSprints(board.id), ctx.source.listTeams(board.id)]);
  const spans = boardSprints(sprints, groups, ctx.definition.timeZone);
  const phase = piPhase(board.title ?? board.id, spans, runDay(ctx), isClosedBoardState(titleOrText(board.state) ?? undefined));
  return { board, phase, teams: teams.flatMap((t) => [t.title, t.label].filter((n): n is string => !!n)) };
}

/** An objective group and its objectives; linked items are audited with the item table. */
export const PI_GROUP_SHAPE: FieldShape = {
  id: true, title: true, type: true, completion: true, bvPlan: true, bvActual: true, achievement: true, status: STATUS,
  objectives: {
    id: true, title: true, type: true, completion: true, bvPlan: true, bvActual: true, status: STATUS, linkedItems: true,
    // The rows keep the API's order, which is the sequence.
    sequence: true,
  },
};

/** The sheet's name: the Summary's links to an objective's row point into it. */
const PI_OBJECTIVES_TITLE = 'PI objectives';

/** The `pi-objectives` and `pi-objective-items` tables of `boards` (resolved by the run's plan, planPiObjectives). */
export function piObjectivesDataset(ctx: DatasetContext, boards: readonly Board[]): Dataset {
  const audit = new FieldAudit();
  const repeats = new RepeatedRecords();
  const selection = ctx.definition.datasets.piObjectives ?? { additionalColumns: false };
  const completionType = selection.completionType as CompletionType | undefined;
  const additionalColumns = selection.additionalColumns;
  const extBBrowseUrl = ctx.definition.links.extBBrowseUrl;
  const predictability = new PiFigures(PI_OBJECTIVES_TITLE, ctx.definition.links.piObjectiveUrl);
  const perBoard = new Map<string, { objectives: number; withCompletion: number; completionSum: number; notComputable: number }>();

  function itemRow(boardId: string, objective: PiObjective, item: PiLinkedItem | PiSubItem, parentId: string | null): TableRow {
    const ref = trackerRef(trackerFields(item), { extBBrowseUrl });
    audit.check('pi-objective-items', item, parentId ? PI_SUB_ITEM_SHAPE : PI_LINKED_ITEM_SHAPE);
    if (typeof item.teamsAndSprints === 'string') {
      audit.warn('pi-objective-items', 'teamsAndSprints', 'text where a list of { team, sprint } was expected; shown as is in sprints');
    }
    const plan = additionalColumns ? teamSprintPlan(item.teamsAndSprints, ctx.definition.timeZone) : undefined;
    const values = piItemValues({ boardId, objective, item, parentId, ref, plan }, additionalColumns);
    return { values, outlineLevel: parentId ? 1 : 0 };
  }

  async function* tables(): AsyncIterable<TableOutput> {
    for (const board of boards) {
      if (typeof board.state === 'string') audit.warn('pi-objectives', 'board.state', 'an id where { id, title } was expected; shown as is in board_state');
    }
    // One request per board returns the whole nested tree; both tables are built from it.
    const groupsByBoard: { board: Board; groups: PiObjectiveGroup[] }[] = await Promise.all(
      boards.map(async (board) => ({
        board,
        // Always with teams and sprints: their sprint dates place the PI's phase (columns follow the setting).
        groups: withoutRepeats(await ctx.source.listPiObjectiveGroups(board.id, { completionType, additionalColumns: true }), repeats),
      })),
    );
    for (const table of ['pi-objectives', 'pi-objective-items']) repeats.warn(ctx.log, table);
    // Asked at once, placed in board order: the Summary lists the PIs so, whichever answer came first.
    const placed = await Promise.all(groupsByBoard.map(({ board, groups }) => piOf(ctx, board, groups)));
    for (const { board, phase, teams } of placed) predictability.board(board, phase, teams);
    const typeName = completionType ? COMPLETION_TYPES[completionType] : 'board default (2; 6 on OKR-mode boards)';

    function* objectiveRows(): Iterable<TableRow> {
      /** Sheet row of the next row (the header is row 1), for the Summary's links. */
      let row = 2;
      for (const { board, groups } of groupsByBoard) {
        const stats = { objectives: 0, withCompletion: 0, completionSum: 0, notComputable: 0 };
        perBoard.set(board.id, stats);
        for (const group of groups) {
          audit.check('pi-objectives', group, PI_GROUP_SHAPE);
          for (const objective of group.objectives ?? []) {
            stats.objectives++;
            if (typeof objective.completion === 'number') {
              stats.withCompletion++;
              stats.completionSum += objective.completion;
            } else stats.notComputable++;
            predictability.add(board, group, objective, row++);
            yield { values: PI_OBJECTIVE_TABLE.values({ board, group, objective, completionType, typeName }) };
          }
        }
      }
    }
    yield { table: { name: 'pi-objectives', columns: PI_OBJECTIVE_COLUMNS }, batches: inBatches(objectiveRows()) };

    function* itemRows(): Iterable<TableRow> {
      for (const { board, groups } of groupsByBoard) {
        for (const group of groups) {
          for (const objective of group.objectives ?? []) {
            for (const item of objective.linkedItems ?? []) {
              yield itemRow(board.id, objective, item, null);
              for (const sub of item.subItems ?? []) yield itemRow(board.id, objective, sub, item.id);
            }
          }
        }
      }
    }
    yield {
      table: { name: 'pi-objective-items', columns: piObjectiveItemColumns(additionalColumns), outlineLevels: 1 },
      batches: inBatches(itemRows()),
    };
  }

  const average = (s: { withCompletion: number; completionSum: number }) =>
    s.withCompletion > 0 ? s.completionSum / s.withCompletion : null;

  return {
    name: 'piObjectives',
    tables,
    resolvedSelectors: () => ({
      boards: boards.map((b) => ({ id: b.id, title: b.title ?? null })),
      completionType: completionType ?? null,
      additionalColumns,
    }),
    summary: () => [
      ...predictability.sections(),
      {
        heading: 'PI objective completion (average per board)',
        role: 'detail',
        lines: boards.map((b) => ({
          label: b.title ?? b.id,
          value: average(perBoard.get(b.id) ?? { withCompletion: 0, completionSum: 0 }),
          type: 'percent' as const,
        })),
      },
      ...audit.sections(),
    ],
    figures: () => ({
      ...audit.figures(),
      ...repeats.figures(),
      ...predictability.figures(),
      piObjectives: Object.fromEntries(
        boards.map((b) => {
          const s = perBoard.get(b.id) ?? { objectives: 0, withCompletion: 0, completionSum: 0, notComputable: 0 };
          return [b.id, { title: b.title ?? null, objectives: s.objectives, averageCompletion: average(s), notComputable: s.notComputable }];
        }),
      ),
    }),
  };
}

/** The plan of the PI objectives: the boards named and those of the collections named, or every visible one. */
async function planPiObjectives(ctx: PlanContext): Promise<DatasetPlan> {
  const { boards, issues } = await planBoards(ctx, ctx.definition.datasets.piObjectives ?? {}, 'piObjectives');
  return {
    issues,
    reads: [{ noun: 'board', records: boards }],
    // One answer holds a board's whole tree of groups, objectives and items.
    estimate: { requests: 3 * boards.length, exact: true, how: 'the objective groups, the sprints and the teams of each board' },
    create: (dataset) => piObjectivesDataset(dataset, boards),
  };
}

export const PI_OBJECTIVES_DATASET: DatasetEntry = {
  name: 'piObjectives',
  selectors: ['boards', 'collections'],
  plan: planPiObjectives,
  tables: [
    {
      name: 'pi-objectives',
      title: PI_OBJECTIVES_TITLE,
      contract: { version: '1.1', columns: PI_OBJECTIVE_COLUMNS },
      changes: changeRules(PI_OBJECTIVE_TABLE.tracked, {
        key: [['board_id'], ['id']], display: ['id'], title: 'title', scope: 'board_id', settings: ['completionType'],
      }),
      docs: { intro: 'One row per PI objective on the selected boards (default: all visible boards).' },
    },
    {
      name: 'pi-objective-items',
      title: 'PI objective items',
      // With additionalColumns off, the team and sprint columns are absent from the file (null to a reader).
      contract: { version: '1.2', columns: piObjectiveItemColumns(true) },
      changes: changeRules<PiItemColumnName>(PI_ITEM_TRACKED, {
        key: [['objective_id'], ['kind'], ['item_id']], display: ['tracker_key', 'tracker_id', 'item_id'],
        title: 'title', link: 'tracker_link', scope: 'board_id', teams: 'teams',
      }),
      docs: {
        intro: 'One row per linked item and per sub-item of each PI objective; sub-items follow their item and are grouped under it in the worksheet.',
        optional: { when: '`additionalColumns: true`', columns: TEAM_SPRINT_TABLE.columns },
      },
    },
  ],
};
