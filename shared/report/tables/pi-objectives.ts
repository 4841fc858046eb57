import { COMPLETION_TYPES, type Board, type CompletionType, type PiLinkedItem, type PiObjective, type PiObjectiveGroup, type PiSubItem, type PiTeamsAndSprints } from '../../planning-api/schemas';
import { trackerRef } from '../../planning-api/tracker-ref';
import { epochToCalendarDate } from '../dates';
import { runDay, type Dataset, type DatasetContext, type TableOutput } from '../dataset';
import type { CellValue, Column, TableRow } from '../../table/table';
import { selectBoards } from './boards';
import { PiFigures } from '../summary/pi-figures';
import { boardSprints, piPhase } from '../summary/pi-phase';
import { isClosedBoardState } from '../summary/vocabulary';
import { col, link, listOf } from './columns';
import { SHEET_TITLES } from './labels';

export const PI_OBJECTIVE_COLUMNS: readonly Column[] = [
  col('board_id', 'text', 'Board id', 12),
  col('board_title', 'text', 'Board title', 24),
  col('group_id', 'text', 'Objective group id', 12),
  col('group_title', 'text', 'Objective group title (usually a team)', 24),
  col('group_type', 'text', 'Objective group type, e.g. TeamGroup', 12),
  col('id', 'text', 'Objective id', 14),
  col('title', 'text', 'Objective title', 44),
  col('type', 'text', 'Objective type, e.g. Objective-Committed', 20),
  col('completion', 'percent', 'Completion percent by the completion type used; empty when not computable (null)'),
  col('completion_type', 'integer', 'completionType requested (1-6); empty when the board default was used', 8),
  col('completion_type_name', 'text', 'Name of the calculation, or "board default (2; 6 on OKR-mode boards)"', 28),
  col('bv_plan', 'number', 'Planned business value'),
  col('bv_actual', 'number', 'Actual business value'),
  col('status', 'text', 'Status title', 14),
  col('status_category', 'text', 'Status category, e.g. ToDo', 12),
  col('linked_items', 'integer', 'Number of linked items', 8),
];

const ITEM_COLUMNS: readonly Column[] = [
  col('board_id', 'text', 'Board id', 12),
  col('objective_id', 'text', 'Objective the item is linked to', 14),
  col('objective_title', 'text', 'Title of that objective', 30),
  col('kind', 'text', '"item" (linked item) or "sub-item"', 9),
  col('item_id', 'text', 'Id of the item', 12),
  col('parent_item_id', 'text', 'For sub-items: id of the linked item above it', 12),
  col('tracker_family', 'text', '"extA" or "extB": which tracker family the board is connected to', 8),
  col('tracker_id', 'text', 'Item id in the tracker (extAId or extBId)', 12),
  col('tracker_key', 'text', 'Item key in the tracker (extBKey; empty for extA)', 12),
  col('tracker_link', 'link', 'Link to the item in the tracker (extAURL, or built from extBKey)', 40),
  col('title', 'text', 'Item title', 44),
  col('type', 'text', 'Item type, e.g. Feature or UserStory', 12),
  col('issue_type', 'text', 'Tracker issue type, e.g. Story', 12),
  col('story_points', 'number', 'Story points'),
  col('completion', 'percent', 'Completion percent (linked items)'),
  col('status', 'text', 'Status title', 14),
  col('status_category', 'text', 'Status category', 12),
];

const TEAM_SPRINT_COLUMNS: readonly Column[] = [
  col('teams', 'list', 'Teams the item is planned for (additionalColumns only)', 20),
  col('sprints', 'list', 'Sprints the item is planned in (additionalColumns only)', 20),
  col('first_sprint_start', 'date', 'Start date of the earliest sprint (additionalColumns only)'),
  col('last_sprint_end', 'date', 'End date of the latest sprint (additionalColumns only)'),
];

/** Columns of `pi-objective-items`: team and sprint columns exist exactly when additionalColumns is on. */
export function piObjectiveItemColumns(additionalColumns: boolean): readonly Column[] {
  return additionalColumns ? [...ITEM_COLUMNS, ...TEAM_SPRINT_COLUMNS] : ITEM_COLUMNS;
}

function unique(values: (string | null | undefined)[]): string[] {
  return [...new Set(values.filter((v): v is string => !!v))];
}

function teamSprintValues(entries: readonly PiTeamsAndSprints[] | null | undefined, timeZone: string): CellValue[] {
  const list = [...(entries ?? [])].sort((a, b) => (a.sequence ?? 0) - (b.sequence ?? 0));
  const starts = list.map((e) => e.sprint?.startDate).filter((n): n is number => typeof n === 'number');
  const ends = list.map((e) => e.sprint?.endDate).filter((n): n is number => typeof n === 'number');
  // Sprint boundaries are instants; the calendar date in the report's zone is what planners read.
  const day = (ms: number) => epochToCalendarDate(ms, timeZone) ?? null;
  return [
    listOf(unique(list.map((e) => e.team?.title))),
    listOf(unique(list.map((e) => e.sprint?.title))),
    starts.length > 0 ? day(Math.min(...starts)) : null,
    ends.length > 0 ? day(Math.max(...ends)) : null,
  ];
}

export function piObjectivesDataset(ctx: DatasetContext): Dataset {
  const selection = ctx.definition.datasets.piObjectives ?? { additionalColumns: false };
  const completionType = selection.completionType as CompletionType | undefined;
  const additionalColumns = selection.additionalColumns;
  const extBBrowseUrl = ctx.definition.links.extBBrowseUrl;
  let boards: Board[] = [];
  const predictability = new PiFigures(SHEET_TITLES['pi-objectives'] ?? 'pi-objectives');
  const perBoard = new Map<string, { objectives: number; withCompletion: number; completionSum: number; notComputable: number }>();

  function itemRow(boardId: string, objective: PiObjective, item: PiLinkedItem | PiSubItem, parentId: string | null): TableRow {
    const ref = trackerRef(item, { extBBrowseUrl });
    const values: CellValue[] = [
      boardId, objective.id, objective.title ?? null, parentId ? 'sub-item' : 'item', item.id, parentId,
      ref.family === 'unknown' ? null : ref.family, ref.id, ref.key, link(ref.key ?? item.title ?? ref.id, ref.url), item.title ?? null, item.type ?? null, item.issueType ?? null,
      item.storyPoints ?? null, item.completion ?? null, item.status?.title ?? null, item.status?.category ?? null,
    ];
    if (additionalColumns) values.push(...teamSprintValues(item.teamsAndSprints, ctx.definition.timeZone));
    return { values, outlineLevel: parentId ? 1 : 0 };
  }

  /** The board's PI phase (from its sprints) and its teams, for the Summary's predictability. */
  async function placePi(board: Board, groups: PiObjectiveGroup[]): Promise<void> {
    const [sprints, teams] = await Promise.all([ctx.source.listSprints(board.id), ctx.source.listTeams(board.id)]);
    const spans = boardSprints(sprints, groups, ctx.definition.timeZone);
    const phase = piPhase(board.title ?? board.id, spans, runDay(ctx), isClosedBoardState(board.state?.title));
    predictability.board(board, phase, teams.flatMap((t) => [t.title, t.label].filter((n): n is string => !!n)));
  }

  async function* tables(): AsyncIterable<TableOutput> {
    boards = await selectBoards(ctx.source, selection, 'piObjectives', ctx.log);
    // One request per board returns the whole nested tree; both tables are built from it.
    const groupsByBoard: { board: Board; groups: PiObjectiveGroup[] }[] = await Promise.all(
      boards.map(async (board) => ({
        board,
        // Always with teams and sprints: their sprint dates place the PI's phase (columns follow the setting).
        groups: await ctx.source.listPiObjectiveGroups(board.id, { completionType, additionalColumns: true }),
      })),
    );
    await Promise.all(groupsByBoard.map(({ board, groups }) => placePi(board, groups)));
    const typeName = completionType ? COMPLETION_TYPES[completionType] : 'board default (2; 6 on OKR-mode boards)';

    async function* objectiveRows(): AsyncIterable<TableRow> {
      /** Sheet row of the next row (the header is row 1), for the Summary's links. */
      let row = 2;
      for (const { board, groups } of groupsByBoard) {
        const stats = { objectives: 0, withCompletion: 0, completionSum: 0, notComputable: 0 };
        perBoard.set(board.id, stats);
        for (const group of groups) {
          for (const objective of group.objectives ?? []) {
            stats.objectives++;
            if (typeof objective.completion === 'number') {
              stats.withCompletion++;
              stats.completionSum += objective.completion;
            } else stats.notComputable++;
            predictability.add(board, group, objective, row++);
            yield {
              values: [
                board.id, board.title ?? null, group.id, group.title ?? null, group.type ?? null, objective.id,
                objective.title ?? null, objective.type ?? null, objective.completion ?? null, completionType ?? null,
                typeName, objective.bvPlan ?? null, objective.bvActual ?? null, objective.status?.title ?? null,
                objective.status?.category ?? null, objective.linkedItems?.length ?? 0,
              ],
            };
          }
        }
      }
    }
    yield { table: { name: 'pi-objectives', columns: PI_OBJECTIVE_COLUMNS }, rows: objectiveRows() };

    async function* itemRows(): AsyncIterable<TableRow> {
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
      rows: itemRows(),
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
    ],
    figures: () => ({
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
