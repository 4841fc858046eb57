import * as z from 'zod';
import { COMPLETION_TYPES, type Board, type CompletionType, type PiLinkedItem, type PiObjective, type PiObjectiveGroup, type PiSubItem } from '../../../planning-api/schemas';
import { trackerRef } from '../../../planning-api/tracker-ref';
import { RepeatedRecords } from '../../dataset/repeated-records';
import { PI_ITEM_TRACKED, PI_OBJECTIVE_COLUMNS, PI_OBJECTIVE_TABLE, TEAM_SPRINT_TABLE, piItemValues, piObjectiveItemColumns, teamSprintPlan, trackerFields, type PiItemColumnName } from './pi-objectives-columns';
import { PI_GROUP_SHAPE, PI_ITEM_NOT_EXPORTED, PI_OBJECTIVE_NOT_EXPORTED, piAudit } from './pi-objectives-audit';
import { withoutRepeats } from './pi-objective-repeats';
import { datasetOptions, inBatches, readerFormatOf, runDay, type Dataset, type DatasetContext, type DatasetEntry, type DatasetPlan, type PlanContext, type TableOutput } from '../../dataset/dataset';
import type { TableRow } from '../../../table/table';
import { BOARD_SELECTORS, BOARD_SHAPE, planBoardDataset, SLICED_BY_BOARDS } from '../boards';
import { PiFigures } from '../../summary/pi-figures';
import { titleOrText } from '../columns';
import { boardSprints, piPhase, type PiPhase } from '../../summary/pi-phase';
import { isClosedBoardState } from '../../summary/vocabulary';
import { changeRules } from '../../dataset/change-rules';
import { tableSheetName } from '../../sheet-names';

/** A board's PI phase (from its sprints) and its teams, for the Summary's predictability. */
async function piOf(ctx: DatasetContext, board: Board, groups: PiObjectiveGroup[]): Promise<{ board: Board; phase: PiPhase; teams: string[] }> {
  const [sprints, teams] = await Promise.all([ctx.source.listSprints(board.id), ctx.source.listTeams(board.id)]);
  const spans = boardSprints(sprints, groups, ctx.definition.timeZone);
  const format = readerFormatOf(ctx);
  const phaseNow = () => piPhase(board.title ?? board.id, spans, runDay(ctx), isClosedBoardState(titleOrText(board.state) ?? undefined), (d) => format.calendarDate(d), format.messages);
  // Its text is written when the Summary asks, in the language the run writes in then.
  const phase = { ...phaseNow(), get text() { return phaseNow().text; } };
  return { board, phase, teams: teams.flatMap((t) => [t.title, t.label].filter((n): n is string => !!n)) };
}

/** The sheet's name: the Summary's links to an objective's row point into it. */
const PI_OBJECTIVES_TITLE = 'PI objectives';

/** A board's objective tallies, for the Summary's completion per board and the run's figures. */
interface BoardStats {
  objectives: number;
  withCompletion: number;
  completionSum: number;
  notComputable: number;
}

const NO_STATS: BoardStats = { objectives: 0, withCompletion: 0, completionSum: 0, notComputable: 0 };

const average = (s: BoardStats): number | null => (s.withCompletion > 0 ? s.completionSum / s.withCompletion : null);

/** One board's tree of groups, objectives and items, as one request returns it. */
interface BoardTree {
  readonly board: Board;
  readonly groups: PiObjectiveGroup[];
}

/** What one walk of the boards gathers as its rows go by: the audit, repeats, the Summary's figures and each board's tallies. */
class PiObjectivesWalk {
  readonly repeats = new RepeatedRecords();
  readonly completionType: CompletionType | undefined;
  readonly additionalColumns: boolean;
  readonly shapes: ReturnType<typeof piAudit>;
  readonly predictability: PiFigures;
  readonly perBoard = new Map<string, BoardStats>();

  constructor(
    readonly ctx: DatasetContext,
    readonly boards: readonly Board[],
  ) {
    const selection = datasetOptions(ctx.definition, 'piObjectives', PI_OBJECTIVE_OPTIONS) ?? { additionalColumns: false };
    this.completionType = selection.completionType as CompletionType | undefined;
    this.additionalColumns = selection.additionalColumns;
    this.shapes = piAudit(this.additionalColumns);
    this.predictability = new PiFigures(tableSheetName('pi-objectives', PI_OBJECTIVES_TITLE, readerFormatOf(ctx).messages), readerFormatOf(ctx).messages, ctx.definition.links.piObjectiveUrl);
  }

  stats(board: Board): BoardStats {
    return this.perBoard.get(board.id) ?? NO_STATS;
  }
}

function itemRow(walk: PiObjectivesWalk, boardId: string, objective: PiObjective, item: PiLinkedItem | PiSubItem, parentId: string | null): TableRow {
  const { audit, subItemShape, linkedItemShape } = walk.shapes;
  const ref = trackerRef(trackerFields(item), { extBBrowseUrl: walk.ctx.definition.links.extBBrowseUrl });
  audit.check('pi-objective-items', item, parentId ? subItemShape : linkedItemShape);
  if (typeof item.teamsAndSprints === 'string') {
    audit.warn('pi-objective-items', 'teamsAndSprints', 'text where a list of { team, sprint } was expected; shown as is in sprints');
  }
  const plan = walk.additionalColumns ? teamSprintPlan(item.teamsAndSprints, walk.ctx.definition.timeZone) : undefined;
  const values = piItemValues({ boardId, objective, item, parentId, ref, plan }, walk.additionalColumns);
  return { values, outlineLevel: parentId ? 1 : 0 };
}

/** Each board's tree (one request per board returns it whole), and each board's PI phase placed for the Summary. */
async function loadBoards(walk: PiObjectivesWalk): Promise<BoardTree[]> {
  const { ctx, boards, repeats, shapes } = walk;
  for (const board of boards) {
    shapes.audit.check('pi-objectives', board, BOARD_SHAPE, 'board.');
    if (typeof board.state === 'string') shapes.audit.warn('pi-objectives', 'board.state', 'an id where { id, title } was expected; shown as is in board_state');
  }
  const trees = await Promise.all(
    boards.map(async (board) => ({
      board,
      // Always with teams and sprints: their sprint dates place the PI's phase (columns follow the setting).
      groups: withoutRepeats(await ctx.source.listPiObjectiveGroups(board.id, { completionType: walk.completionType, additionalColumns: true }), repeats),
    })),
  );
  for (const table of ['pi-objectives', 'pi-objective-items']) repeats.warn(ctx.log, table);
  // Asked at once, placed in board order: the Summary lists the PIs so, whichever answer came first.
  const placed = await Promise.all(trees.map(({ board, groups }) => piOf(ctx, board, groups)));
  for (const { board, phase, teams } of placed) walk.predictability.board(board, phase, teams);
  return trees;
}

function* objectiveRows(walk: PiObjectivesWalk, trees: readonly BoardTree[]): Iterable<TableRow> {
  const { completionType } = walk;
  const typeName = completionType ? COMPLETION_TYPES[completionType] : 'board default (2; 6 on OKR-mode boards)';
  /** Sheet row of the next row (the header is row 1), for the Summary's links. */
  let row = 2;
  for (const { board, groups } of trees) {
    const stats = { ...NO_STATS };
    walk.perBoard.set(board.id, stats);
    for (const group of groups) {
      walk.shapes.audit.check('pi-objectives', group, PI_GROUP_SHAPE);
      for (const objective of group.objectives ?? []) {
        stats.objectives++;
        if (typeof objective.completion === 'number') {
          stats.withCompletion++;
          stats.completionSum += objective.completion;
        } else stats.notComputable++;
        const work = walk.ctx.ownWork && { to: walk.ctx.ownWork, itemKeys: itemKeys(objective) };
        walk.predictability.add(board, group, objective, row++, work);
        yield { values: PI_OBJECTIVE_TABLE.values({ board, group, objective, completionType, typeName }) };
      }
    }
  }
}

/** The tracker keys and ids of every item and sub-item of an objective: what a risk's linked items are matched to (summary/own-work.ts). */
function itemKeys(objective: PiObjective): string[] {
  const items = (objective.linkedItems ?? []).flatMap((item): (PiLinkedItem | PiSubItem)[] => [item, ...(item.subItems ?? [])]);
  return items.flatMap((item) => {
    const ref = trackerRef(trackerFields(item));
    return [ref.key, ref.id].filter((k): k is string => k !== undefined);
  });
}

function* itemRows(walk: PiObjectivesWalk, trees: readonly BoardTree[]): Iterable<TableRow> {
  for (const { board, groups } of trees) {
    for (const objective of groups.flatMap((g) => g.objectives ?? [])) {
      for (const item of objective.linkedItems ?? []) {
        yield itemRow(walk, board.id, objective, item, null);
        for (const sub of item.subItems ?? []) yield itemRow(walk, board.id, objective, sub, item.id);
      }
    }
  }
}

async function* piTables(walk: PiObjectivesWalk): AsyncIterable<TableOutput> {
  const trees = await loadBoards(walk);
  yield { table: { name: 'pi-objectives', columns: PI_OBJECTIVE_COLUMNS }, batches: inBatches(objectiveRows(walk, trees)) };
  yield {
    table: { name: 'pi-objective-items', columns: piObjectiveItemColumns(walk.additionalColumns), outlineLevels: 1 },
    batches: inBatches(itemRows(walk, trees)),
  };
}

/** The `pi-objectives` and `pi-objective-items` tables of `boards` (resolved by the run's plan, planPiObjectives). */
export function piObjectivesDataset(ctx: DatasetContext, boards: readonly Board[]): Dataset {
  const walk = new PiObjectivesWalk(ctx, boards);
  const { predictability, shapes, repeats } = walk;
  return {
    name: 'piObjectives',
    tables: () => piTables(walk),
    resolvedSelectors: () => ({
      boards: boards.map((b) => ({ id: b.id, title: b.title ?? null })), completionType: walk.completionType ?? null, additionalColumns: walk.additionalColumns,
    }),
    attention: () => predictability.attentionItems(),
    summary: () => [
      ...predictability.sections(),
      {
        heading: readerFormatOf(ctx).messages.t('term.piObjectiveCompletion'),
        role: 'detail',
        lines: boards.map((b) => ({ label: b.title ?? b.id, value: average(walk.stats(b)), type: 'percent' as const })),
      },
    ],
    figures: () => ({
      ...shapes.audit.figures(),
      ...repeats.figures(),
      ...predictability.figures(),
      piObjectives: Object.fromEntries(
        boards.map((b) => {
          const s = walk.stats(b);
          return [b.id, { title: b.title ?? null, objectives: s.objectives, averageCompletion: average(s), notComputable: s.notComputable }];
        }),
      ),
    }),
  };
}

/** The plan of the PI objectives: the boards named and those of the collections named, or every visible one. */
async function planPiObjectives(ctx: PlanContext): Promise<DatasetPlan> {
  // One answer holds a board's whole tree of groups, objectives and items.
  const perBoard = { requests: 3, exact: true, how: 'the objective groups, the sprints and the teams of each board' };
  return planBoardDataset(ctx, 'piObjectives', datasetOptions(ctx.definition, 'piObjectives', PI_OBJECTIVE_OPTIONS) ?? {}, perBoard, piObjectivesDataset);
}

/** `datasets.piObjectives` in a definition. */
const PI_OBJECTIVE_OPTIONS = z.strictObject({
  ...BOARD_SELECTORS,
  completionType: z
    .number()
    .int()
    .min(1, 'completionType must be 1 to 6 (see docs/tables.md)')
    .max(6, 'completionType must be 1 to 6 (see docs/tables.md)')
    .optional(),
  additionalColumns: z.boolean().default(false),
});

export const PI_OBJECTIVES_DATASET: DatasetEntry<'piObjectives', typeof PI_OBJECTIVE_OPTIONS, keyof typeof SLICED_BY_BOARDS> = {
  name: 'piObjectives',
  options: PI_OBJECTIVE_OPTIONS,
  selectors: ['boards', 'collections'],
  slicedBy: SLICED_BY_BOARDS,
  apiGroup: 'pi-objectives',
  plan: planPiObjectives,
  tables: [
    {
      name: 'pi-objectives',
      title: PI_OBJECTIVES_TITLE,
      contract: { version: '1.2', columns: PI_OBJECTIVE_COLUMNS },
      notExported: PI_OBJECTIVE_NOT_EXPORTED,
      changes: changeRules(PI_OBJECTIVE_TABLE.tracked, {
        key: [['board_id'], ['id']], display: ['id'], title: 'title', scope: 'board_id', settings: ['completionType'], items: true,
      }),
      docs: {
        intro: 'One row per PI objective on the selected boards (default: all visible boards).',
        versions: { '1.2': "added `status_id` and `board_state_id`, the ids of the objective's status and the board's state" },
      },
    },
    {
      name: 'pi-objective-items',
      title: 'PI objective items',
      // With additionalColumns off, the team and sprint columns are absent from the file (null to a reader).
      contract: { version: '1.3', columns: piObjectiveItemColumns(true) },
      notExported: PI_ITEM_NOT_EXPORTED,
      changes: changeRules<PiItemColumnName>(PI_ITEM_TRACKED, {
        key: [['objective_id'], ['kind'], ['item_id']], display: ['tracker_key', 'tracker_id', 'item_id'],
        title: 'title', link: 'tracker_link', scope: 'board_id', teams: 'teams',
      }),
      docs: {
        intro: 'One row per linked item and per sub-item of each PI objective; sub-items follow their item and are grouped under it in the worksheet.',
        optional: { when: '`additionalColumns: true`', columns: TEAM_SPRINT_TABLE.columns },
        versions: {
          '1.3': 'added `team_ids`, `sprint_ids` and `is_ip_sprint` after the team and sprint columns, and `status_id` at the end of every file (with or without them)',
        },
      },
    },
  ],
};
