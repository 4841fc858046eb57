import * as z from 'zod';
import { declareCanonical } from './canonical';

/**
 * Zod schemas of the records of the Work-Planning Reporting API, as its documentation describes them.
 *
 * Tolerance rules, because a real server leaves empty fields out and may add fields we do not know:
 * - objects are loose (unknown keys pass through untouched);
 * - every field except `id` is optional and may be null;
 * - identifiers are accepted as strings or numbers and normalised to strings;
 * - numbers are accepted as numbers or numeric strings.
 * A record that still does not match is reported as a SchemaMismatchError naming the operation,
 * the record id and the path of the bad field (see parse.ts).
 */

// Only numbers go through the transform: a string (the usual case) is passed on as it is, which
// saves zod a pipe per field (about a third of the validation time). Same inputs, outputs and issues.
const numberAsString = z.number().transform((v) => String(v));
const id = z.union([z.string(), numberAsString]);
const optString = z.union([z.string(), numberAsString]).nullish();
// Its transform hands a number back as it came: declared, as the check compiler cannot see that.
const optNumber = declareCanonical(
  z
    .union([z.number(), z.string().regex(/^-?\d+(\.\d+)?$/)])
    .transform((v) => (typeof v === 'number' ? v : Number(v)))
    .nullish(),
  ['number', 'string', 'null', 'undefined'],
  (v) => v === null || v === undefined || (typeof v === 'number' && Number.isFinite(v)),
);
const optBoolean = z.boolean().nullish();
const list = <T extends z.ZodType>(item: T) => z.array(item).nullish();
/**
 * Where the contract leaves a shape "not shown" and the public docs give another type (a string for
 * an array, an id for an object), the other shape is kept as it came; the table shows it readably and
 * counts a warning instead of failing the export.
 */
const orText = <T extends z.ZodType>(shape: T) => z.union([shape, z.string(), numberAsString]).nullish();
/** Dates: text (`DD-Mon-YYYY`, `DD Mon, YY`, ISO 8601) or epoch milliseconds, as the docs' field reference types them. */
const optDate = z.union([z.string(), z.number()]).nullish();

/** v1 status: { id, status }. */
export const v1StatusSchema = z.looseObject({ id: optString, status: optString });
/** legacy status: { id, title, category }. */
export const legacyStatusSchema = z.looseObject({ id: optString, title: optString, category: optString });

// ---- Risk API (2.2 - 2.4) ----
export const riskRegisterSchema = z.looseObject({
  id,
  key: optString,
  title: optString,
  createdBy: optString,
  status: v1StatusSchema.nullish(),
});

export const customFieldSchema = z.looseObject({
  id: optString,
  title: optString,
  type: optString,
  // Shape depends on `type`: string for singleselect, { id, fullName } for userpicker, unknown otherwise.
  value: z.unknown().optional(),
});

export const riskSchema = z.looseObject({
  id,
  key: optString,
  title: optString,
  riskDesc: optString,
  mitigationActions: optString,
  createdBy: optString,
  impact: optString,
  probability: optString,
  riskLevel: z.looseObject({ title: optString, color: optString }).nullish(),
  raisedDate: optString,
  resolutionDate: optString,
  linkedItems: list(z.looseObject({ key: optString, id: optString })),
  boardTeams: list(z.looseObject({ teamTitle: optString, teamId: optString })),
  boardSprints: list(z.looseObject({ sprintTitle: optString, sprintId: optString })),
  customFields: list(customFieldSchema),
  status: v1StatusSchema.nullish(),
  riskRegister: z.looseObject({ riskRegister: optString, id: optString }).nullish(),
  watcherList: list(z.looseObject({ Watcher: optString, id: optString })),
  responsible: z.looseObject({ user: optString, id: optString }).nullish(),
});

export const boardRefSchema = z.looseObject({ id, title: optString, prefix: optString });

/** Register of a board: the register shape plus a projection of the board (shape not documented). */
export const boardRegisterSchema = riskRegisterSchema.extend({ board: z.unknown().optional() });

// ---- Strategic Themes & OKRs API (2.5 - 2.10) ----
export const portfolioThemeSchema = z.looseObject({ id, key: optString, title: optString, status: v1StatusSchema.nullish() });

export const strategicThemeSchema = z.looseObject({
  id,
  key: optString,
  title: optString,
  summary: optString,
  description: optString,
  color: optString,
  status: v1StatusSchema.nullish(),
  owners: list(optString),
});

export const okrObjectiveGroupSchema = z.looseObject({
  id,
  level: optNumber,
  type: optString,
  title: optString,
  completionPct: optNumber,
  objectivesCount: optNumber,
  sequence: optNumber,
  status: v1StatusSchema.nullish(),
  bvPlan: optNumber,
  bvActual: optNumber,
  completionCriteria: optString,
});

/**
 * The fields an objective and a key result open with. Spread first, so fields keep their order and
 * a record with several bad fields is still reported by the same first one.
 */
const okrEntryFields = {
  id,
  level: optNumber,
  type: optString,
  key: optString,
  title: optString,
  completionPct: optNumber,
};

export const okrObjectiveSchema = z.looseObject({
  ...okrEntryFields,
  timePeriod: optString,
  endTimePeriod: optString,
  objType: optString,
  status: v1StatusSchema.nullish(),
  bvPlan: optNumber,
  bvActual: optNumber,
  completionCriteria: optString,
  groupName: optString,
  keyResultsCount: optNumber,
  linkedItems: list(z.looseObject({ id: optString, linkType: optString })),
});

export const keyResultSchema = z.looseObject({
  ...okrEntryFields,
  criteria: optString,
  timePeriod: optString,
  status: v1StatusSchema.nullish(),
  metric: z
    .looseObject({ baseline: optNumber, target: optNumber, unit: optString, current: optNumber })
    .nullish(),
});

export const themeProgressSchema = z.looseObject({
  themeProgress: optNumber,
  groupsProgress: z.record(z.string(), optNumber).nullish(),
});

// ---- Legacy groups (2.11 - 2.15) ----
export const collectionSchema = z.looseObject({ id, title: optString });

export const boardSchema = z.looseObject({
  id,
  title: optString,
  state: orText(z.looseObject({ id: optString, title: optString })),
});

export const piTeamsAndSprintsSchema = z.looseObject({
  sequence: optNumber,
  team: z.looseObject({ id: optString, title: optString, label: optString, color: optString }).nullish(),
  sprint: z
    .looseObject({
      id: optString,
      title: optString,
      label: optString,
      startDate: optNumber,
      endDate: optNumber,
      isIPSprint: optBoolean,
    })
    .nullish(),
});

/**
 * Fields shared by linked items and sub-items, in both tracker families, under the contract's
 * neutral names and the public docs' names (which a real server sends): tfs* = extA*, jira* = extB*.
 */
const piItemShape = {
  id,
  // first tracker family
  extAId: optString,
  extAURL: optString,
  extAItemTypeIcon: optString,
  tfsId: optString,
  tfsURL: optString,
  tfsItemTypeIcon: optString,
  // second tracker family: the link is built from extBKey
  extBId: optString,
  extBKey: optString,
  extBIssueTypeId: optString,
  jiraId: optString,
  jiraKey: optString,
  jiraIssueTypeId: optString,
  title: optString,
  type: optString,
  issueType: optString,
  storyPoints: optNumber,
  completion: optNumber,
  status: legacyStatusSchema.nullish(),
  teamsAndSprints: orText(z.array(piTeamsAndSprintsSchema)),
};

export const piSubItemSchema = z.looseObject(piItemShape);
export const piLinkedItemSchema = z.looseObject({ ...piItemShape, subItems: list(piSubItemSchema) });

/**
 * What an objective and its group both report (a group's figures roll up from its objectives).
 * Spread first, like okrEntryFields, to keep the field order.
 */
const piObjectiveFields = {
  id,
  title: optString,
  type: optString,
  completion: optNumber,
  bvPlan: optNumber,
  bvActual: optNumber,
};

export const piObjectiveSchema = z.looseObject({
  ...piObjectiveFields,
  sequence: optNumber,
  status: legacyStatusSchema.nullish(),
  linkedItems: list(piLinkedItemSchema),
});

export const piObjectiveGroupSchema = z.looseObject({
  ...piObjectiveFields,
  achievement: optNumber,
  status: legacyStatusSchema.nullish(),
  objectives: list(piObjectiveSchema),
});

export const boardStorySchema = z.looseObject({
  id,
  kendisId: optString,
  parentId: optString,
  parentDescription: optString,
  summary: optString,
  estimates: optNumber,
  status: optString,
  externalKey: optString,
  externalUrl: optString,
});

/** A feature: child items under `stories` (the contract) or `children` (the docs); `azureId` is the docs' `extCId`. */
export const boardItemSchema = z.looseObject({
  id,
  extCId: optString,
  azureId: optString,
  kendisId: optString,
  iterationPath: optString,
  estimates: optNumber,
  updatedBy: optString,
  externalKey: optString,
  teamsAndSprints: orText(z.array(z.looseObject({ sprint: optString, team: optString }))),
  completionByStatus: optNumber,
  updatedOn: optDate,
  status: optString,
  itemType: optString,
  completionByEstimate: optNumber,
  createdOn: optDate,
  summary: optString,
  externalUrl: optString,
  stories: list(boardStorySchema),
  children: list(boardStorySchema),
  cardType: optString,
  createdBy: optString,
  areaPath: optString,
});

export const sprintSchema = z.looseObject({ id, label: optString, title: optString, isIPSprint: optBoolean });
export const teamSchema = z.looseObject({ id, color: optString, label: optString, title: optString });
export const boardStatusSchema = z.looseObject({
  id,
  rowStatus: optNumber,
  source: optNumber,
  title: optString,
  color: optString,
  category: optString,
  updated: optBoolean,
});
export const statusesSchema = z.looseObject({
  parentStatuses: list(boardStatusSchema),
  childrenStatuses: list(boardStatusSchema),
});

export type RiskRegister = z.infer<typeof riskRegisterSchema>;
export type BoardRegister = z.infer<typeof boardRegisterSchema>;
export type Risk = z.infer<typeof riskSchema>;
export type CustomField = z.infer<typeof customFieldSchema>;
export type BoardRef = z.infer<typeof boardRefSchema>;
export type PortfolioTheme = z.infer<typeof portfolioThemeSchema>;
export type StrategicTheme = z.infer<typeof strategicThemeSchema>;
export type OkrObjectiveGroup = z.infer<typeof okrObjectiveGroupSchema>;
export type OkrObjective = z.infer<typeof okrObjectiveSchema>;
export type KeyResult = z.infer<typeof keyResultSchema>;
export type ThemeProgress = z.infer<typeof themeProgressSchema>;
export type Collection = z.infer<typeof collectionSchema>;
export type Board = z.infer<typeof boardSchema>;
export type PiTeamsAndSprints = z.infer<typeof piTeamsAndSprintsSchema>;
export type PiSubItem = z.infer<typeof piSubItemSchema>;
export type PiLinkedItem = z.infer<typeof piLinkedItemSchema>;
export type PiObjective = z.infer<typeof piObjectiveSchema>;
export type PiObjectiveGroup = z.infer<typeof piObjectiveGroupSchema>;
export type BoardItem = z.infer<typeof boardItemSchema>;
export type BoardStory = z.infer<typeof boardStorySchema>;
export type Sprint = z.infer<typeof sprintSchema>;
export type Team = z.infer<typeof teamSchema>;
export type BoardStatus = z.infer<typeof boardStatusSchema>;
export type Statuses = z.infer<typeof statusesSchema>;

/** completionType values of the PI Objectives API (section 4.4). */
export const COMPLETION_TYPES = {
  1: 'Linked-item status',
  2: 'Children linked-item status',
  3: 'Children linked-item estimate',
  4: 'Team-story status',
  5: 'Team-story estimate',
  6: 'OKR / key-result weighted',
} as const;
export type CompletionType = keyof typeof COMPLETION_TYPES;
