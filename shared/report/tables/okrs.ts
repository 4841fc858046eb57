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
import { resolveSelector } from '../selector-titles';
import type { Dataset, DatasetContext, TableOutput } from '../dataset';
import type { Column, TableRow } from '../../table/table';
import { OkrFigures } from '../summary/okr-figures';
import { col, listOf } from './columns';
import { SHEET_TITLES } from './labels';

export const STRATEGIC_THEME_COLUMNS: readonly Column[] = [
  col('portfolio_theme_keys', 'list', 'Keys of the portfolio themes the strategic theme belongs to', 16),
  col('portfolio_theme_titles', 'list', 'Titles of those portfolio themes', 28),
  col('key', 'text', 'Strategic theme key', 12),
  col('id', 'text', 'Internal strategic theme id', 12),
  col('title', 'text', 'Strategic theme title', 40),
  col('status', 'text', 'Status', 14),
  col('owners', 'list', 'Owners: display names where a risk of the same run names the user, else user ids', 24),
  col('theme_progress', 'percent', 'Theme progress (percent) from the progress operation'),
];

export const OKR_COLUMNS: readonly Column[] = [
  col('strategic_theme_key', 'text', 'Key of the strategic theme the row belongs to', 12),
  col('level', 'integer', '1 objective group, 2 objective, 3 key result', 6),
  col('type', 'text', '"Objective Group", "Objective" or "Key Result"', 16),
  col('id', 'text', 'Internal id', 12),
  col('key', 'text', 'Key (objectives and key results)', 12),
  col('parent_id', 'text', 'Id of the group (for objectives) or objective (for key results)', 12),
  col('parent_title', 'text', 'Title of that group or objective', 30),
  col('title', 'text', 'Title', 44),
  col('completion', 'percent', 'Completion percent'),
  col('time_period', 'text', 'Time period label', 14),
  col('status', 'text', 'Status', 14),
  col('bv_plan', 'number', 'Planned business value (objectives)'),
  col('bv_actual', 'number', 'Actual business value (objectives)'),
  col('completion_criteria', 'text', 'Completion criteria of an objective, e.g. ROLLUP_BY_STATUS', 18),
  col('criteria', 'text', 'Criteria of a key result, e.g. "By Items" or "Target"', 12),
  col('metric_baseline', 'number', 'Key-result metric baseline'),
  col('metric_target', 'number', 'Key-result metric target'),
  col('metric_current', 'number', 'Key-result metric current value'),
  col('metric_unit', 'text', 'Key-result metric unit', 10),
];

interface ThemeTree {
  readonly theme: StrategicTheme;
  readonly groups: readonly {
    readonly group: OkrObjectiveGroup;
    readonly objectives: readonly { readonly objective: OkrObjective; readonly keyResults: readonly KeyResult[] }[];
  }[];
}

/** The `strategic-themes` and `okrs` tables, from one walk of the theme hierarchy. */
export function okrsDataset(ctx: DatasetContext): Dataset {
  const selection = ctx.definition.datasets.okrs ?? {};
  let themes: StrategicTheme[] = [];
  const progress = new Map<string, ThemeProgress>();
  const counts = { groups: 0, objectives: 0, keyResults: 0 };
  const health = new OkrFigures(SHEET_TITLES.okrs ?? 'okrs');
  let objectiveCompletionSum = 0;
  let objectivesWithCompletion = 0;

  async function selectThemes(portfolios: readonly PortfolioTheme[], membership: Map<string, PortfolioTheme[]>) {
    const all = await toArray(ctx.source.listStrategicThemes());
    if (!selection.portfolioThemes && !selection.strategicThemes) return all;
    const chosen = new Map<string, StrategicTheme>();
    for (const selector of selection.portfolioThemes ?? []) {
      const portfolio = resolveSelector(portfolios, selector, { path: 'okrs.portfolioThemes', noun: 'portfolio theme', keyed: true });
      for (const theme of all) {
        if ((membership.get(theme.id) ?? []).some((p) => p.id === portfolio.id)) chosen.set(theme.id, theme);
      }
    }
    for (const selector of selection.strategicThemes ?? []) {
      const theme = resolveSelector(all, selector, { path: 'okrs.strategicThemes', noun: 'strategic theme', keyed: true });
      chosen.set(theme.id, theme);
    }
    // Keep the API's order, not the selector order, so the sheet reads like the planning tool.
    return all.filter((t) => chosen.has(t.id));
  }

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
    const portfolios = await toArray(ctx.source.listPortfolioThemes());
    const membership = new Map<string, PortfolioTheme[]>();
    await Promise.all(
      portfolios.map(async (portfolio) => {
        for await (const theme of ctx.source.listPortfolioStrategicThemes(portfolio.id)) {
          membership.set(theme.id, [...(membership.get(theme.id) ?? []), portfolio]);
        }
      }),
    );
    themes = await selectThemes(portfolios, membership);
    await Promise.all(
      themes.map(async (theme) => {
        const p = await progressOf(theme);
        if (p) progress.set(theme.id, p);
      }),
    );

    async function* themeRows(): AsyncIterable<TableRow> {
      for (const theme of themes) {
        // Portfolio order for the membership columns, independent of which request finished first.
        const owners = portfolios.filter((p) => (membership.get(theme.id) ?? []).some((m) => m.id === p.id));
        yield {
          values: [
            listOf(owners.map((p) => p.key)),
            listOf(owners.map((p) => p.title)),
            theme.key ?? null,
            theme.id,
            theme.title ?? null,
            theme.status?.status ?? null,
            listOf(theme.owners?.map((id) => (id && ctx.people ? ctx.people.name(id) : id))),
            progress.get(theme.id)?.themeProgress ?? null,
          ],
        };
      }
    }
    yield { table: { name: 'strategic-themes', columns: STRATEGIC_THEME_COLUMNS }, rows: themeRows() };

    for (const theme of themes) health.theme(theme, progress.get(theme.id)?.themeProgress ?? null);
    async function* okrRows(): AsyncIterable<TableRow> {
      /** Sheet row of the next row (the header is row 1), for the Summary's links. */
      let row = 2;
      // The next theme's tree loads while this one's rows are written.
      let next = themes.length > 0 ? loadTree(themes[0]!) : undefined;
      for (let i = 0; i < themes.length; i++) {
        const tree = await next!;
        next = i + 1 < themes.length ? loadTree(themes[i + 1]!) : undefined;
        const themeKey = tree.theme.key ?? tree.theme.id;
        const groupsProgress = progress.get(tree.theme.id)?.groupsProgress ?? {};
        for (const { group, objectives } of tree.groups) {
          counts.groups++;
          row++;
          yield {
            outlineLevel: 0,
            values: [
              themeKey, 1, group.type ?? 'Objective Group', group.id, null, null, null, group.title ?? null,
              group.completionPct ?? groupsProgress[group.id] ?? null, null, group.status?.status ?? null,
            ],
          };
          for (const { objective, keyResults } of objectives) {
            counts.objectives++;
            if (typeof objective.completionPct === 'number') {
              objectiveCompletionSum += objective.completionPct;
              objectivesWithCompletion++;
            }
            health.objective(tree.theme, objective, row++);
            yield {
              outlineLevel: 1,
              values: [
                themeKey, 2, objective.type ?? 'Objective', objective.id, objective.key ?? null, group.id, group.title ?? null,
                objective.title ?? null, objective.completionPct ?? null, objective.timePeriod ?? null,
                objective.status?.status ?? null, objective.bvPlan ?? null, objective.bvActual ?? null,
                objective.completionCriteria ?? null,
              ],
            };
            for (const kr of keyResults) {
              counts.keyResults++;
              row++;
              yield {
                outlineLevel: 2,
                values: [
                  themeKey, 3, kr.type ?? 'Key Result', kr.id, kr.key ?? null, objective.id, objective.title ?? null, kr.title ?? null,
                  kr.completionPct ?? null, kr.timePeriod ?? null, kr.status?.status ?? null, null, null, null,
                  kr.criteria ?? null, kr.metric?.baseline ?? null, kr.metric?.target ?? null,
                  kr.metric?.current ?? null, kr.metric?.unit ?? null,
                ],
              };
            }
          }
        }
      }
    }
    yield { table: { name: 'okrs', columns: OKR_COLUMNS, outlineLevels: 2 }, rows: okrRows() };
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
        heading: 'OKRs',
        role: 'detail',
        lines: [
          { label: 'Average objective completion', value: averageObjectiveCompletion(), type: 'percent' },
          { label: 'Objective groups', value: counts.groups, type: 'integer' },
          { label: 'Objectives', value: counts.objectives, type: 'integer' },
          { label: 'Key results', value: counts.keyResults, type: 'integer' },
        ],
      },
    ],
    figures: () => ({
      okr: {
        ...counts,
        averageObjectiveCompletion: averageObjectiveCompletion(),
        themeProgress: Object.fromEntries(themes.map((t) => [t.key ?? t.id, progress.get(t.id)?.themeProgress ?? null])),
      },
      ...health.figures(),
    }),
  };
}
