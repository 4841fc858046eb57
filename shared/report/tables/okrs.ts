import * as z from 'zod';
import { toArray } from '../../core/async-iterables';
import { NotFoundError } from '../../core/errors';
import type {
  KeyResult,
  OkrObjective,
  OkrObjectiveGroup,
  PortfolioTheme,
  StrategicTheme,
  ThemeProgress,
} from '../../planning-api/schemas';
import { selectAll } from '../plan/selector-titles';
import { idList } from '../definition/definition-limits';
import { inBatches, readerFormatOf, type Dataset, type DatasetContext, type DatasetEntry, type DatasetPlan, type PlanContext, type TableOutput } from '../dataset/dataset';
import type { Column, TableRow } from '../../table/table';
import { OkrFigures } from '../summary/okr-figures';
import { term } from '../../core/glossary';
import { listOf } from './columns';
import { tableColumns } from '../../table/column-spec';
import { FieldAudit, type FieldShape, type NotExported } from '../dataset/field-audit';
import { RepeatedRecords } from '../dataset/repeated-records';
import { BY_KEY_OR_ID, changeRules } from '../changes/change-rules';

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
  { name: 'description', type: 'text', label: 'Description', width: 50, description: 'Description of the theme (multi-line)', read: (s) => s.theme.description ?? null },
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

interface ThemeTree {
  readonly theme: StrategicTheme;
  readonly groups: readonly {
    readonly group: OkrObjectiveGroup;
    readonly objectives: readonly { readonly objective: OkrObjective; readonly keyResults: readonly KeyResult[] }[];
  }[];
}

/** The OKR sheet's name: the Summary's links to an objective's row point into it. */
const OKRS_TITLE = 'OKRs';

/** What the plan resolved for the OKRs (planOkrs): the themes to export and the portfolios they belong to. */
export interface OkrSelection {
  readonly portfolios: readonly PortfolioTheme[];
  /** The portfolio themes of each strategic theme, by its id. */
  readonly membership: ReadonlyMap<string, readonly PortfolioTheme[]>;
  /** In the API's order. */
  readonly themes: readonly StrategicTheme[];
}

/** A theme's owners by name where the run knows them (people.ts), else by id. */
function ownerNames(theme: StrategicTheme, ctx: DatasetContext): string[] {
  return (theme.owners ?? []).flatMap((id) => (id ? [ctx.people ? ctx.people.name(id) : id] : []));
}

/** The `strategic-themes` and `okrs` tables, from one walk of the hierarchy of the themes the plan chose. */
export function okrsDataset(ctx: DatasetContext, selection: OkrSelection): Dataset {
  const { portfolios, membership, themes } = selection;
  const progress = new Map<string, ThemeProgress>();
  const counts = { groups: 0, objectives: 0, keyResults: 0 };
  const format = readerFormatOf(ctx);
  const health = new OkrFigures(OKRS_TITLE, (p) => format.percent(p), format.messages, ctx.definition.links.okrUrl);
  const audit = new FieldAudit({ 'strategic-themes': STRATEGIC_THEME_NOT_EXPORTED, okrs: OKR_NOT_EXPORTED });
  const repeats = new RepeatedRecords();
  let objectiveCompletionSum = 0;
  let objectivesWithCompletion = 0;

  async function loadTree(theme: StrategicTheme): Promise<ThemeTree> {
    const groups = await toArray(ctx.source.listObjectiveGroups(theme.id));
    return {
      theme,
      groups: await Promise.all(
        groups.map(async (group) => {
          const objectives = await toArray(ctx.source.listObjectives(group.id));
          return {
            group,
            objectives: await Promise.all(
              objectives.map(async (objective) => ({
                objective,
                keyResults: await toArray(ctx.source.listKeyResults(objective.id)),
              })),
            ),
          };
        }),
      ),
    };
  }

  async function progressOf(theme: StrategicTheme): Promise<ThemeProgress | undefined> {
    try {
      return await ctx.source.getThemeProgress(theme.id);
    } catch (error) {
      // A theme without progress data is reported as empty progress, not a failed export.
      if (error instanceof NotFoundError) return undefined;
      throw error;
    }
  }

  async function* tables(): AsyncIterable<TableOutput> {
    await Promise.all(
      themes.map(async (theme) => {
        const p = await progressOf(theme);
        if (p) progress.set(theme.id, p);
      }),
    );

    function* themeRows(): Iterable<TableRow> {
      const audited = new Set<string>();
      for (const theme of themes) {
        audit.check('strategic-themes', theme, THEME_SHAPE);
        // Portfolio order for the membership columns, independent of which request finished first.
        const owners = portfolios.filter((p) => (membership.get(theme.id) ?? []).some((m) => m.id === p.id));
        for (const p of owners.filter((o) => !audited.has(o.id))) {
          audited.add(p.id);
          audit.check('strategic-themes', p, PORTFOLIO_THEME_SHAPE, 'portfolioTheme.');
        }
        yield {
          values: STRATEGIC_THEME_TABLE.values({
            theme,
            portfolios: owners,
            owners: listOf(theme.owners?.map((id) => (id && ctx.people ? ctx.people.name(id) : id))),
            progress: progress.get(theme.id)?.themeProgress ?? null,
          }),
        };
      }
    }
    yield { table: { name: 'strategic-themes', columns: STRATEGIC_THEME_COLUMNS }, batches: inBatches(themeRows()) };

    for (const theme of themes) health.theme(theme, progress.get(theme.id)?.themeProgress ?? null, ownerNames(theme, ctx));
    /** A batch per theme: its tree arrives in one piece. */
    async function* okrBatches(): AsyncIterable<Iterable<TableRow>> {
      /** Sheet row of the next row (the header is row 1), for the Summary's links. */
      let row = 2;
      /** Level and id of every row written (a row's key): a record sent again is written once, with what is under it. */
      const written = new Set<string>();
      // The next theme's tree loads while this one's rows are written.
      let next = themes.length > 0 ? loadTree(themes[0]!) : undefined;
      for (let i = 0; i < themes.length; i++) {
        const tree = await next!;
        next = i + 1 < themes.length ? loadTree(themes[i + 1]!) : undefined;
        const themeKey = tree.theme.key ?? tree.theme.id;
        const groupsProgress = progress.get(tree.theme.id)?.groupsProgress ?? {};
        const rows: TableRow[] = [];
        for (const { group, objectives } of tree.groups) {
          if (!repeats.first(written, `1 ${group.id}`, 'okrs', objectives.reduce((n, o) => n + 1 + o.keyResults.length, 0))) continue;
          counts.groups++;
          row++;
          audit.check('okrs', group, OKR_GROUP_SHAPE);
          rows.push({
            outlineLevel: 0,
            values: OKR_TABLE.values({ level: 1, themeKey, group, groupProgress: groupsProgress[group.id] ?? null }),
          });
          for (const { objective, keyResults } of objectives) {
            if (!repeats.first(written, `2 ${objective.id}`, 'okrs', keyResults.length)) continue;
            counts.objectives++;
            if (typeof objective.completionPct === 'number') {
              objectiveCompletionSum += objective.completionPct;
              objectivesWithCompletion++;
            }
            health.objective(tree.theme, objective, row++);
            audit.check('okrs', objective, OKR_OBJECTIVE_SHAPE);
            rows.push({ outlineLevel: 1, values: OKR_TABLE.values({ level: 2, themeKey, group, objective }) });
            for (const kr of keyResults) {
              if (!repeats.first(written, `3 ${kr.id}`, 'okrs')) continue;
              counts.keyResults++;
              row++;
              audit.check('okrs', kr, KEY_RESULT_SHAPE);
              rows.push({ outlineLevel: 2, values: OKR_TABLE.values({ level: 3, themeKey, objective, keyResult: kr }) });
            }
          }
        }
        if (rows.length > 0) yield rows;
      }
      repeats.warn(ctx.log, 'okrs');
    }
    yield { table: { name: 'okrs', columns: OKR_COLUMNS, outlineLevels: 2 }, batches: okrBatches() };
  }

  const averageObjectiveCompletion = () =>
    objectivesWithCompletion > 0 ? objectiveCompletionSum / objectivesWithCompletion : null;

  return {
    name: 'okrs',
    tables,
    resolvedSelectors: () => ({
      strategicThemes: themes.map((t) => ({ id: t.id, key: t.key ?? null, title: t.title ?? null })),
    }),
    summary: () => [
      ...health.sections(),
      {
        heading: term('okrs'),
        role: 'detail',
        lines: [
          { label: term('objectiveGroups'), value: counts.groups, type: 'integer' },
          { label: term('objectives'), value: counts.objectives, type: 'integer' },
          { label: term('keyResults'), value: counts.keyResults, type: 'integer' },
        ],
      },
    ],
    figures: () => ({
      ...audit.figures(),
      ...repeats.figures(),
      okr: {
        ...counts,
        averageObjectiveCompletion: averageObjectiveCompletion(),
        themeProgress: Object.fromEntries(themes.map((t) => [t.key ?? t.id, progress.get(t.id)?.themeProgress ?? null])),
      },
      ...health.figures(),
    }),
  };
}

/**
 * The plan of the OKRs: the strategic themes named, and those of the portfolio themes named (keys,
 * ids or titles), or every visible one, in the API's order, from the run's theme lists.
 */
async function planOkrs(ctx: PlanContext): Promise<DatasetPlan> {
  const named = ctx.definition.datasets.okrs ?? {};
  const [portfolios, membership, all] = await Promise.all([ctx.lists.portfolioThemes(), ctx.lists.membership(), ctx.lists.strategicThemes()]);
  const ofPortfolios = selectAll(portfolios, named.portfolioThemes ?? [], 'datasets.okrs.portfolioThemes', { noun: 'portfolio theme', keyed: true });
  const themesNamed = selectAll(all, named.strategicThemes ?? [], 'datasets.okrs.strategicThemes', { noun: 'strategic theme', keyed: true });
  const portfolioIds = new Set(ofPortfolios.records.map((p) => p.id));
  const chosen = new Set(themesNamed.records.map((t) => t.id));
  for (const theme of all) if ((membership.get(theme.id) ?? []).some((p) => portfolioIds.has(p.id))) chosen.add(theme.id);
  // Keep the API's order, not the selector order, so the sheet reads like the planning tool.
  const themes = named.portfolioThemes || named.strategicThemes ? all.filter((t) => chosen.has(t.id)) : all;
  return {
    issues: [...ofPortfolios.issues, ...themesNamed.issues],
    reads: [{ noun: 'strategic theme', records: themes }],
    estimate: {
      requests: 2 * themes.length,
      exact: false,
      how: 'the progress and the objective groups of each theme, then the objectives of each group and the key results of each objective',
    },
    create: (dataset) => okrsDataset(dataset, { portfolios, membership, themes }),
  };
}

/** `datasets.okrs` in a definition. */
const OKR_OPTIONS = z.strictObject({
  portfolioThemes: idList('portfolio theme key, id or title'),
  strategicThemes: idList('strategic theme key, id or title'),
});

export const OKRS_DATASET: DatasetEntry<'okrs', typeof OKR_OPTIONS, 'themes'> = {
  name: 'okrs',
  options: OKR_OPTIONS,
  selectors: ['portfolioThemes', 'strategicThemes'],
  // A delivery names its train's strategic themes; its portfolio themes stay the report's.
  slicedBy: { themes: 'strategicThemes' },
  apiGroup: 'okr',
  plan: planOkrs,
  tables: [
    {
      name: 'strategic-themes',
      title: 'Strategic themes',
      contract: { version: '1.4', columns: STRATEGIC_THEME_COLUMNS },
      changes: changeRules(STRATEGIC_THEME_TABLE.tracked, { ...BY_KEY_OR_ID, scope: 'key' }),
      notExported: STRATEGIC_THEME_NOT_EXPORTED,
      docs: {
        intro: 'One row per selected strategic theme (default: all visible).',
        versions: {
          '1.3': 'added `status_id`, `portfolio_theme_ids` and `owner_ids`, the ids of what a theme refers to',
          '1.4': 'added `portfolio_theme_statuses`, the status titles of the portfolio themes',
        },
      },
    },
    {
      name: 'okrs',
      title: OKRS_TITLE,
      contract: { version: '1.3', columns: OKR_COLUMNS },
      notExported: OKR_NOT_EXPORTED,
      // Groups have no key; a level keeps a group id from meeting an objective id.
      changes: changeRules(OKR_TABLE.tracked, { key: [['level'], ['key', 'id']], display: ['key', 'id'], title: 'title', scope: 'strategic_theme_key' }),
      docs: {
        intro: 'One row per objective group (level 1), objective (level 2) and key result (level 3), in hierarchy order; the worksheet groups them with outline levels.',
        versions: { '1.3': "added `status_id` and `linked_item_ids` (an objective's linked items)" },
      },
    },
  ],
};
