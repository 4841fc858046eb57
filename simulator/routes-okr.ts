/** Strategic Themes & OKRs API (contract 4.3), envelope `Data` (capital D). */
import { MINIMAL_FIELDS, pageEnvelope, parseFields, projectRecord } from './projection';
import type { RouteContext, RouteResult } from './routing';
import { methodNotAllowed, v1Error } from './routing';
import type { Vocabulary } from './vocabulary';
import { docsOkrObjective, docsOkrObjectiveGroup, docsStrategicTheme } from './vocabulary';
import type { Tenant } from './tenant';
import type { OkrObjectiveGroupRecord, OkrObjectiveRecord, StrategicThemeRecord } from './records';

const COLLECTIONS = new Set(['portfolio-themes', 'strategic-themes', 'objective-groups', 'objectives', 'key-results']);

/** The list of strategic themes inside a portfolio theme shows id, key, title only (contract 2.6). */
const THEME_IN_PORTFOLIO = ['id', 'key', 'title'] as const;

function notFound(kind: string, keyOrId: string, vocabulary: Vocabulary): RouteResult {
  return v1Error(404, `${kind} '${keyOrId}' does not exist`, vocabulary);
}

/** Record mappers of one vocabulary: the identity for 'contract', the docs' shapes for 'docs'. */
function shapes(tenant: Tenant, vocabulary: Vocabulary) {
  const docs = vocabulary === 'docs';
  return {
    theme: (t: StrategicThemeRecord): object => (docs ? docsStrategicTheme(t) : t),
    group: (g: OkrObjectiveGroupRecord): object => (docs ? docsOkrObjectiveGroup(g, tenant.objectivesOf(g.id)) : g),
    objective: (o: OkrObjectiveRecord): object => (docs ? docsOkrObjective(o) : o),
  };
}

/** Handles the OKR routes; undefined when the path is not one of them. */
export function handleOkrRoute(ctx: RouteContext): RouteResult | undefined {
  const { segments: s, tenant, view, query } = ctx;
  const [collection = '', key = '', sub] = s;
  if (!COLLECTIONS.has(collection) || s.length > 3) return undefined;
  const fields = parseFields(query.get('fields'));
  const one = (record: object, minimal: readonly string[]): RouteResult => ({
    status: 200,
    body: { Data: [projectRecord(record, fields, minimal)] },
  });
  const list = (records: readonly object[], minimal: readonly string[], restrict?: readonly string[]): RouteResult => ({
    status: 200,
    body: pageEnvelope('Data', records, query, (r) => projectRecord(r, fields, minimal, restrict)),
  });
  const shape = shapes(tenant, ctx.vocabulary);
  const missing = (kind: string, keyOrId: string): RouteResult => notFound(kind, keyOrId, ctx.vocabulary);
  const route = `${collection}${s.length >= 2 ? '/:k' : ''}${sub === undefined ? '' : `/${sub}`}`;
  const known = [
    'portfolio-themes',
    'portfolio-themes/:k',
    'portfolio-themes/:k/strategic-themes',
    'strategic-themes',
    'strategic-themes/:k',
    'strategic-themes/:k/objective-groups',
    'strategic-themes/:k/progress',
    'objective-groups/:k/objectives',
    'objectives/:k',
    'objectives/:k/key-results',
    'key-results/:k',
  ];
  if (!known.includes(route)) return undefined;
  if (ctx.method !== 'GET') return methodNotAllowed('v1', 'GET');

  switch (route) {
    case 'portfolio-themes':
      return list(view.portfolioThemes, MINIMAL_FIELDS.portfolioTheme);
    case 'portfolio-themes/:k':
    case 'portfolio-themes/:k/strategic-themes': {
      const theme = tenant.portfolioTheme(key);
      if (!theme || !view.canSeePortfolioTheme(theme.id)) return missing('Portfolio theme', key);
      if (sub === undefined) return one(theme, MINIMAL_FIELDS.portfolioTheme);
      const themes = tenant.strategicThemesOf(theme.id).filter((t) => view.canSeeStrategicTheme(t.id)).map(shape.theme);
      return list(themes, MINIMAL_FIELDS.strategicTheme, THEME_IN_PORTFOLIO);
    }
    case 'strategic-themes':
      return list(view.strategicThemes.map(shape.theme), MINIMAL_FIELDS.strategicTheme);
    case 'strategic-themes/:k':
    case 'strategic-themes/:k/objective-groups':
    case 'strategic-themes/:k/progress': {
      const theme = tenant.strategicTheme(key);
      if (!theme || !view.canSeeStrategicTheme(theme.id)) return missing('Strategic theme', key);
      if (sub === undefined) return one(shape.theme(theme), MINIMAL_FIELDS.strategicTheme);
      if (sub === 'objective-groups') return list(tenant.objectiveGroupsOf(theme.id).map(shape.group), MINIMAL_FIELDS.objectiveGroup);
      return { status: 200, body: { Data: tenant.themeProgress(theme.id) } };
    }
    case 'objective-groups/:k/objectives': {
      const group = tenant.objectiveGroup(key);
      if (!group || !view.canSeeObjectiveGroup(group.id)) return missing('Objective group', key);
      return list(tenant.objectivesOf(group.id).map(shape.objective), MINIMAL_FIELDS.objective);
    }
    case 'objectives/:k':
    case 'objectives/:k/key-results': {
      const objective = tenant.objective(key);
      if (!objective || !view.canSeeObjective(objective.id)) return missing('Objective', key);
      if (sub === undefined) return one(shape.objective(objective), MINIMAL_FIELDS.objective);
      return list(tenant.keyResultsOf(objective.id), MINIMAL_FIELDS.keyResult);
    }
    default: {
      const kr = tenant.keyResult(key);
      if (!kr || !view.canSeeKeyResult(kr.id)) return missing('Key result', key);
      return one(kr, MINIMAL_FIELDS.keyResult);
    }
  }
}
