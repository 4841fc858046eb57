/**
 * The two vocabularies the simulator speaks. 'contract' serves the records exactly as the API
 * contract shows them (neutral tracker names `extAId`, `extCId`, …; child items under `stories`;
 * item dates as `DD Mon, YY`; `teamsAndSprints` as an array). 'docs' serves them the way the
 * service's public documentation shows them: tracker names `tfsId`/`jiraId`/`azureId`/`kendisId`,
 * child items under `children` with `parentDescription`, item dates as epoch milliseconds,
 * `teamsAndSprints` of a board item as one string, and the fields the documentation adds (strategic
 * theme colour, summary and description; OKR group business value and completion criteria;
 * objective subtype and end period). The tenant always holds contract records; these functions map
 * one record at a time, so tests can compute the docs answer from the tenant the same way.
 */
import type {
  BoardItemRecord,
  BoardStoryRecord,
  OkrObjectiveGroupRecord,
  OkrObjectiveRecord,
  PiLinkedItemRecord,
  PiObjectiveGroupRecord,
  PiSubItemRecord,
  SprintRecord,
  StrategicThemeRecord,
} from './records';

/** Which field names and shapes the simulator serves. */
export type Vocabulary = 'contract' | 'docs';

export const VOCABULARIES: readonly Vocabulary[] = ['contract', 'docs'];

let processDefault: Vocabulary = 'contract';

/** The vocabulary of a simulator started without one ('contract' unless setDefaultVocabulary changed it). */
export function defaultVocabulary(): Vocabulary {
  return processDefault;
}

/**
 * Sets the vocabulary of simulators started without one, from a setting such as the
 * SIMULATOR_VOCABULARY environment variable (the test setup and the simulator CLI read it), so the
 * whole test suite can run against either vocabulary. Empty or undefined keeps 'contract'.
 */
export function setDefaultVocabulary(value: string | undefined): Vocabulary {
  const text = value?.trim() ?? '';
  if (text !== '' && text !== 'contract' && text !== 'docs') {
    throw new Error(`SIMULATOR_VOCABULARY must be 'contract' or 'docs', got '${text}'`);
  }
  processDefault = text === '' ? 'contract' : (text);
  return processDefault;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** `DD Mon, YY` (the contract's item date) as epoch ms at 00:00 UTC. */
export function itemDateToEpochMs(text: string): number {
  const match = /^(\d{2}) ([A-Z][a-z]{2}), (\d{2})$/.exec(text);
  const month = match ? MONTHS.indexOf(match[2] ?? '') : -1;
  if (!match || month < 0) throw new Error(`Not a DD Mon, YY date: '${text}'`);
  return Date.UTC(2000 + Number(match[3]), month, Number(match[1]));
}

/** Default fields of List board items in the docs vocabulary (every parent field except `children`). */
export const DOCS_DEFAULT_ITEM_FIELDS: readonly string[] = [
  'iterationPath', 'id', 'kendisId', 'azureId', 'estimates', 'updatedBy', 'externalKey', 'teamsAndSprints',
  'completionByStatus', 'updatedOn', 'status', 'itemType', 'completionByEstimate', 'createdOn', 'summary',
  'externalUrl', 'cardType', 'createdBy', 'areaPath', 'rank',
];

/**
 * A board item's `teamsAndSprints` as the docs' field reference types it: one string. Each entry is
 * the sprint's id and the team's title (`<sprint id> & <team title>`), entries joined by `; `; the
 * documentation shows only the start of an example, so the separators are the simulator's choice.
 */
export function teamsAndSprintsText(entries: readonly { sprint: string; team: string }[], sprints: readonly SprintRecord[]): string {
  return entries
    .map((entry) => `${sprints.find((s) => s.title === entry.sprint)?.id ?? entry.sprint} & ${entry.team}`)
    .join('; ');
}

function docsStory(story: BoardStoryRecord, parentSummary: string): Record<string, unknown> {
  const out: Record<string, unknown> = { summary: story.summary, id: story.id, kendisId: story.id, parentId: story.parentId };
  out.parentDescription = parentSummary;
  if (story.estimates !== undefined) out.estimates = story.estimates;
  out.status = story.status;
  out.externalKey = story.externalKey;
  out.externalUrl = story.externalUrl;
  return out;
}

/** A board item (every field, child items included) in the docs vocabulary. */
export function docsBoardItem(item: BoardItemRecord, sprints: readonly SprintRecord[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (item.iterationPath !== undefined) out.iterationPath = item.iterationPath;
  out.id = item.id;
  out.kendisId = item.id;
  if (item.extCId !== undefined) out.azureId = item.extCId;
  if (item.estimates !== undefined) out.estimates = item.estimates;
  out.updatedBy = item.updatedBy;
  out.externalKey = item.externalKey;
  if (item.teamsAndSprints !== undefined) out.teamsAndSprints = teamsAndSprintsText(item.teamsAndSprints, sprints);
  out.completionByStatus = item.completionByStatus;
  out.updatedOn = itemDateToEpochMs(item.updatedOn);
  out.status = item.status;
  out.itemType = item.itemType;
  out.completionByEstimate = item.completionByEstimate;
  out.createdOn = itemDateToEpochMs(item.createdOn);
  out.summary = item.summary;
  out.externalUrl = item.externalUrl;
  out.children = item.stories.map((story) => docsStory(story, item.summary));
  out.cardType = item.cardType;
  out.createdBy = item.createdBy;
  out.areaPath = item.areaPath;
  if (item.rank !== undefined) out.rank = item.rank;
  return out;
}

/**
 * List board items in the docs vocabulary: without `fields` every default field; with `fields`
 * the item's `id` plus the named docs fields (`children` gives the child items; contract names such
 * as `stories` or `extCId` select nothing, as on a server that does not know them).
 */
export function projectDocsBoardItem(
  item: BoardItemRecord,
  sprints: readonly SprintRecord[],
  fields: readonly string[] | undefined,
): Record<string, unknown> {
  const source = docsBoardItem(item, sprints);
  const names = fields === undefined ? DOCS_DEFAULT_ITEM_FIELDS : ['id', ...fields];
  const out: Record<string, unknown> = {};
  for (const name of names) if (source[name] !== undefined) out[name] = source[name];
  return out;
}

function docsTrackerItem(item: PiSubItemRecord): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(item)) {
    if (value === undefined) continue;
    const name = DOCS_TRACKER_NAMES[key] ?? key;
    out[name] = key === 'subItems' ? (value as PiSubItemRecord[]).map(docsTrackerItem) : value;
  }
  return out;
}

/** Contract tracker names of PI objective items and their names in the docs. */
export const DOCS_TRACKER_NAMES: Readonly<Record<string, string>> = {
  extAId: 'tfsId',
  extAURL: 'tfsURL',
  extAItemTypeIcon: 'tfsItemTypeIcon',
  extBId: 'jiraId',
  extBKey: 'jiraKey',
  extBIssueTypeId: 'jiraIssueTypeId',
};

/** PI objective groups (objectives, linked items, sub-items) in the docs vocabulary. */
export function docsPiObjectiveGroup(group: PiObjectiveGroupRecord): Record<string, unknown> {
  return {
    ...group,
    objectives: group.objectives.map((objective) => ({
      ...objective,
      ...(objective.linkedItems ? { linkedItems: objective.linkedItems.map((item: PiLinkedItemRecord) => docsTrackerItem(item)) } : {}),
    })),
  };
}

const THEME_COLORS = ['#1F77B4', '#FF7F0E', '#2CA02C', '#D62728', '#9467BD', '#8C564B'] as const;

/** Index-like number of a generated id (its digits), for picking stable values. */
function pick<T>(id: string, values: readonly T[]): T {
  let h = 0;
  for (let i = 0; i < id.length; i++) h = (h * 31 + id.charCodeAt(i)) >>> 0;
  return values[h % values.length] as T;
}

/** A strategic theme with the docs' `color`, `summary` and `description` (the undocumented `colorCode` becomes `color`). */
export function docsStrategicTheme(theme: StrategicThemeRecord): Record<string, unknown> {
  const { colorCode, ...rest } = theme;
  return {
    ...rest,
    color: colorCode ?? pick(theme.id, THEME_COLORS),
    summary: `${theme.title}: what this theme changes for customers`,
    description: `${theme.title}\nWhy: the portfolio's goal for the year.\nHow: the objectives below.`,
  };
}

/** An OKR objective group with the docs' `bvPlan`, `bvActual` (sums over its objectives) and `completionCriteria`. */
export function docsOkrObjectiveGroup(group: OkrObjectiveGroupRecord, objectives: readonly OkrObjectiveRecord[]): Record<string, unknown> {
  let bvPlan = 0;
  let bvActual = 0;
  for (const objective of objectives) {
    bvPlan += objective.bvPlan;
    bvActual += objective.bvActual ?? 0;
  }
  return { ...group, bvPlan, bvActual, completionCriteria: 'ROLLUP_BY_STATUS' };
}

const OBJECTIVE_TYPES = ['Committed', 'Uncommitted'] as const;

/** An OKR objective with the docs' `objType` and, on some objectives, `endTimePeriod`. */
export function docsOkrObjective(objective: OkrObjectiveRecord): Record<string, unknown> {
  const objType = pick(objective.id, OBJECTIVE_TYPES);
  const out: Record<string, unknown> = { ...objective, objType };
  const quarter = /^FY(\d{2}) Q([1-4])$/.exec(objective.timePeriod);
  // Only objectives whose layout has an end period carry one: committed quarterly objectives end a quarter later.
  if (quarter && objType === 'Committed') {
    const year = Number(quarter[1]);
    const q = Number(quarter[2]);
    out.endTimePeriod = q === 4 ? `FY${year + 1} Q1` : `FY${year} Q${q + 1}`;
  }
  return out;
}
