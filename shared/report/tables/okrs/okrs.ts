import * as z from 'zod';
import { toArray } from '../../../core/async-iterables';
import { NotFoundError } from '../../../core/errors';
import type {
  KeyResult,
  OkrObjective,
  OkrObjectiveGroup,
  PortfolioTheme,
  StrategicTheme,
  ThemeProgress,
} from '../../../planning-api/schemas';
import { selectAll } from '../../dataset/selector-titles';
import { idList } from '../../dataset/definition-limits';
import { datasetOptions, inBatches, readerFormatOf, type Dataset, type DatasetContext, type DatasetEntry, type DatasetPlan, type PlanContext, type TableOutput } from '../../dataset/dataset';
import type { TableRow } from '../../../table/table';
import { OkrFigures } from '../../summary/okr-figures';
import type { TermId } from '../../../core/glossary';
import { listOf } from '../columns';
import { FieldAudit } from '../../dataset/field-audit';
import { tableSheetName } from '../../sheet-names';
import { RepeatedRecords } from '../../dataset/repeated-records';
import { BY_KEY_OR_ID, changeRules } from '../../dataset/change-rules';
import {
  KEY_RESULT_SHAPE,
  OKR_COLUMNS,
  OKR_GROUP_SHAPE,
  OKR_NOT_EXPORTED,
  OKR_OBJECTIVE_SHAPE,
  OKR_TABLE,
  PORTFOLIO_THEME_SHAPE,
  STRATEGIC_THEME_COLUMNS,
  STRATEGIC_THEME_NOT_EXPORTED,
  STRATEGIC_THEME_TABLE,
  THEME_SHAPE,
} from './okrs-columns';


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

/** What one walk of the themes gathers as its rows go by: progress, counts, the audit, repeats and the Summary's figures. */
class OkrWalk {
  readonly progress = new Map<string, ThemeProgress>();
  readonly counts = { groups: 0, objectives: 0, keyResults: 0 };
  readonly audit = new FieldAudit({ 'strategic-themes': STRATEGIC_THEME_NOT_EXPORTED, okrs: OKR_NOT_EXPORTED });
  readonly repeats = new RepeatedRecords();
  readonly health: OkrFigures;
  objectiveCompletionSum = 0;
  objectivesWithCompletion = 0;

  constructor(
    readonly ctx: DatasetContext,
    readonly selection: OkrSelection,
  ) {
    const format = readerFormatOf(ctx);
    this.health = new OkrFigures(tableSheetName('okrs', OKRS_TITLE, format.messages), (p) => format.percent(p), format.messages, ctx.definition.links.okrUrl);
  }

  themeProgress(theme: StrategicTheme): number | null {
    return this.progress.get(theme.id)?.themeProgress ?? null;
  }

  averageObjectiveCompletion(): number | null {
    return this.objectivesWithCompletion > 0 ? this.objectiveCompletionSum / this.objectivesWithCompletion : null;
  }
}

/** A theme's owners by name where the run knows them (people.ts), else by id. */
function ownerNames(theme: StrategicTheme, ctx: DatasetContext): string[] {
  return (theme.owners ?? []).flatMap((id) => (id ? [ctx.people ? ctx.people.name(id) : id] : []));
}

/** A theme's groups, their objectives and their key results, asked for side by side. */
async function loadTree(ctx: DatasetContext, theme: StrategicTheme): Promise<ThemeTree> {
  const groups = await toArray(ctx.source.listObjectiveGroups(theme.id));
  return {
    theme,
    groups: await Promise.all(
      groups.map(async (group) => {
        const objectives = await toArray(ctx.source.listObjectives(group.id));
        return {
          group,
          objectives: await Promise.all(objectives.map(async (objective) => ({ objective, keyResults: await toArray(ctx.source.listKeyResults(objective.id)) }))),
        };
      }),
    ),
  };
}

async function progressOf(ctx: DatasetContext, theme: StrategicTheme): Promise<ThemeProgress | undefined> {
  try {
    return await ctx.source.getThemeProgress(theme.id);
  } catch (error) {
    // A theme without progress data is reported as empty progress, not a failed export.
    if (error instanceof NotFoundError) return undefined;
    throw error;
  }
}

function* themeRows(walk: OkrWalk): Iterable<TableRow> {
  const { ctx, audit } = walk;
  const { portfolios, membership, themes } = walk.selection;
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
        progress: walk.themeProgress(theme),
      }),
    };
  }
}

/** Where the OKR rows stand: the sheet row of the next one (the header is row 1), and every row written by level and id. */
interface OkrCursor {
  row: number;
  /** A record sent again is written once, with what is under it. */
  readonly written: Set<string>;
}

/** One theme's rows: its groups, their objectives and their key results, each once. */
function treeRows(walk: OkrWalk, tree: ThemeTree, at: OkrCursor): TableRow[] {
  const { counts, audit, repeats } = walk;
  const themeKey = tree.theme.key ?? tree.theme.id;
  const groupsProgress = walk.progress.get(tree.theme.id)?.groupsProgress ?? {};
  const rows: TableRow[] = [];
  for (const { group, objectives } of tree.groups) {
    if (!repeats.first(at.written, `1 ${group.id}`, 'okrs', objectives.reduce((n, o) => n + 1 + o.keyResults.length, 0))) continue;
    counts.groups++;
    at.row++;
    audit.check('okrs', group, OKR_GROUP_SHAPE);
    rows.push({ outlineLevel: 0, values: OKR_TABLE.values({ level: 1, themeKey, group, groupProgress: groupsProgress[group.id] ?? null }) });
    for (const { objective, keyResults } of objectives) {
      if (!repeats.first(at.written, `2 ${objective.id}`, 'okrs', keyResults.length)) continue;
      counts.objectives++;
      if (typeof objective.completionPct === 'number') {
        walk.objectiveCompletionSum += objective.completionPct;
        walk.objectivesWithCompletion++;
      }
      walk.health.objective(tree.theme, objective, at.row++, walk.ctx.ownWork);
      audit.check('okrs', objective, OKR_OBJECTIVE_SHAPE);
      rows.push({ outlineLevel: 1, values: OKR_TABLE.values({ level: 2, themeKey, group, objective }) });
      for (const kr of keyResults) {
        if (!repeats.first(at.written, `3 ${kr.id}`, 'okrs')) continue;
        counts.keyResults++;
        at.row++;
        audit.check('okrs', kr, KEY_RESULT_SHAPE);
        rows.push({ outlineLevel: 2, values: OKR_TABLE.values({ level: 3, themeKey, objective, keyResult: kr }) });
      }
    }
  }
  return rows;
}

/** A batch per theme: its tree arrives in one piece, and the next theme's tree loads while this one's rows are written. */
async function* okrBatches(walk: OkrWalk): AsyncIterable<Iterable<TableRow>> {
  const { themes } = walk.selection;
  const at: OkrCursor = { row: 2, written: new Set<string>() };
  let next = themes.length > 0 ? loadTree(walk.ctx, themes[0]!) : undefined;
  for (let i = 0; i < themes.length; i++) {
    const tree = await next!;
    next = i + 1 < themes.length ? loadTree(walk.ctx, themes[i + 1]!) : undefined;
    const rows = treeRows(walk, tree, at);
    if (rows.length > 0) yield rows;
  }
  walk.repeats.warn(walk.ctx.log, 'okrs');
}

async function* okrTables(walk: OkrWalk): AsyncIterable<TableOutput> {
  const { ctx } = walk;
  const { themes } = walk.selection;
  await Promise.all(
    themes.map(async (theme) => {
      const p = await progressOf(ctx, theme);
      if (p) walk.progress.set(theme.id, p);
    }),
  );
  yield { table: { name: 'strategic-themes', columns: STRATEGIC_THEME_COLUMNS }, batches: inBatches(themeRows(walk)) };
  for (const theme of themes) walk.health.theme(theme, walk.themeProgress(theme), ownerNames(theme, ctx));
  yield { table: { name: 'okrs', columns: OKR_COLUMNS, outlineLevels: 2 }, batches: okrBatches(walk) };
}

/** The `strategic-themes` and `okrs` tables, from one walk of the hierarchy of the themes the plan chose. */
/** A glossary term in the report's language. */
const termIn = (ctx: DatasetContext, id: TermId) => readerFormatOf(ctx).t(`term.${id}`);

export function okrsDataset(ctx: DatasetContext, selection: OkrSelection): Dataset {
  const walk = new OkrWalk(ctx, selection);
  const { themes } = selection;
  return {
    name: 'okrs',
    tables: () => okrTables(walk),
    resolvedSelectors: () => ({ strategicThemes: themes.map((t) => ({ id: t.id, key: t.key ?? null, title: t.title ?? null })) }),
    attention: () => walk.health.attentionItems(),
    summary: () => [
      ...walk.health.sections(),
      {
        heading: termIn(ctx, 'okrs'),
        role: 'detail',
        lines: [
          { label: termIn(ctx, 'objectiveGroups'), value: walk.counts.groups, type: 'integer' },
          { label: termIn(ctx, 'objectives'), value: walk.counts.objectives, type: 'integer' },
          { label: termIn(ctx, 'keyResults'), value: walk.counts.keyResults, type: 'integer' },
        ],
      },
    ],
    figures: () => ({
      ...walk.audit.figures(),
      ...walk.repeats.figures(),
      okr: {
        ...walk.counts,
        averageObjectiveCompletion: walk.averageObjectiveCompletion(),
        themeProgress: Object.fromEntries(themes.map((t) => [t.key ?? t.id, walk.themeProgress(t)])),
      },
      ...walk.health.figures(),
    }),
  };
}

/**
 * The plan of the OKRs: the strategic themes named, and those of the portfolio themes named (keys,
 * ids or titles), or every visible one, in the API's order, from the run's theme lists.
 */
async function planOkrs(ctx: PlanContext): Promise<DatasetPlan> {
  const named = datasetOptions(ctx.definition, 'okrs', OKR_OPTIONS) ?? {};
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
      changes: changeRules(OKR_TABLE.tracked, { key: [['level'], ['key', 'id']], display: ['key', 'id'], title: 'title', scope: 'strategic_theme_key', items: true }),
      docs: {
        intro: 'One row per objective group (level 1), objective (level 2) and key result (level 3), in hierarchy order; the worksheet groups them with outline levels.',
        versions: { '1.3': "added `status_id` and `linked_item_ids` (an objective's linked items)" },
      },
    },
  ],
};
