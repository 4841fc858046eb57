/**
 * Shapes of the records exactly as the simulator serves them with `fields=all` (v1) or in full
 * (legacy). Optional properties are left out entirely when empty, as a real server does. Properties
 * marked "undocumented" are extra fields the API contract does not mention; clients must tolerate them.
 */

/** v1 status object. */
export interface V1Status {
  status: string;
  id: string;
}

/** Legacy status object (PI Objectives). */
export interface LegacyStatus {
  id: string;
  title: string;
  category: StatusCategory;
}

/** Status categories used by the simulator ('ToDo' is the only one the contract shows). */
export type StatusCategory = 'ToDo' | 'InProgress' | 'Done';

// ---------------------------------------------------------------- Risk API

export interface RiskRegisterRecord {
  key: string;
  title: string;
  id: string;
  createdBy: string;
  status: V1Status;
  /** Undocumented extra field, present on some registers. */
  matrixSize?: string;
}

/** Custom field of a risk; `value` depends on `type`. */
export type RiskCustomField =
  | { id: string; title: string; type: 'singleselect'; value: string }
  | { id: string; title: string; type: 'userpicker'; value: { id: string; fullName: string } }
  | { id: string; title: string; type: 'number'; value: number }
  | { id: string; title: string; type: 'date'; value: string }
  | { id: string; title: string; type: 'multiselect'; value: string[] }
  | { id: string; title: string; type: 'text'; value: string };

export interface RiskRecord {
  key: string;
  title: string;
  id: string;
  riskDesc?: string;
  mitigationActions?: string;
  createdBy: string;
  impact: string;
  probability: string;
  riskLevel: { title: string; color: string };
  /** DD-Mon-YYYY */
  raisedDate: string;
  /** DD-Mon-YYYY; absent on unresolved risks. */
  resolutionDate?: string;
  linkedItems?: { key: string; id: string }[];
  boardTeams?: { teamTitle: string; teamId: string }[];
  boardSprints?: { sprintTitle: string; sprintId: string }[];
  customFields?: RiskCustomField[];
  status: V1Status;
  riskRegister: { riskRegister: string; id: string };
  watcherList?: { Watcher: string; id: string }[];
  responsible?: { user: string; id: string };
  /** Undocumented extra field (impact rank x probability rank), present on some risks. */
  score?: number;
}

/** Board reference of "List boards of a register". */
export interface BoardRefRecord {
  id: string;
  title: string;
  prefix: string;
}

/** "Get register of a board": the register plus a projection of the board. */
export type BoardRegisterRecord = RiskRegisterRecord & { board: BoardRefRecord };

/** Impact x probability matrix of a register (not served; the contract does not show it). */
export interface RiskMatrix {
  /** Impact level names, lowest first. */
  impacts: readonly string[];
  /** Probability level names, lowest first. */
  probabilities: readonly string[];
  /** Levels by maximum score (1..100); see riskLevelFor in risks.ts. */
  levels: readonly { title: string; color: string; maxScore: number }[];
}

// ---------------------------------------------------------------- Strategic Themes & OKRs

export interface PortfolioThemeRecord {
  key: string;
  title: string;
  id: string;
  /** Fields beyond key/title/id are not documented ("further fields: not shown"). */
  description?: string;
  status?: V1Status;
}

export interface StrategicThemeRecord {
  id: string;
  key: string;
  title: string;
  status: V1Status;
  owners: string[];
  /** Undocumented extra field, present on some themes. */
  colorCode?: string;
}

export interface OkrObjectiveGroupRecord {
  id: string;
  level: 1;
  type: 'Objective Group';
  title: string;
  completionPct: number;
  objectivesCount: number;
  sequence: number;
  status: V1Status;
}

export interface OkrObjectiveRecord {
  id: string;
  level: 2;
  type: 'Objective';
  key: string;
  title: string;
  completionPct: number;
  timePeriod: string;
  status: V1Status;
  bvPlan: number;
  bvActual?: number;
  completionCriteria: string;
  groupName: string;
  keyResultsCount: number;
  linkedItems?: { id: string; linkType: string }[];
}

export interface KeyResultRecord {
  id: string;
  level: 3;
  type: 'Key Result';
  key: string;
  title: string;
  completionPct: number;
  criteria: 'By Items' | 'Target';
  timePeriod: string;
  /** Present on 'By Items' key results. */
  status?: V1Status;
  /** Present on 'Target' key results; completionPct = (current - baseline) / (target - baseline), clamped. */
  metric?: { baseline: number; target: number; unit: string; current: number };
}

export interface ThemeProgressRecord {
  themeProgress: number;
  groupsProgress: Record<string, number>;
}

// ---------------------------------------------------------------- Legacy groups

export interface CollectionRecord {
  id: string;
  title: string;
}

export interface BoardRecord {
  id: string;
  title: string;
  state: { id: string; title: string };
  /** Undocumented extra field, present on some boards. */
  isPinned?: boolean;
}

export interface SprintRecord {
  id: string;
  label: string;
  title: string;
  isIPSprint: boolean;
}

export interface TeamRecord {
  color: string;
  id: string;
  label: string;
  title: string;
}

export interface BoardStatusRecord {
  id: string;
  rowStatus: number;
  source: number;
  title: string;
  color: string;
  category: StatusCategory;
  updated: boolean;
}

export interface StatusesRecord {
  parentStatuses: BoardStatusRecord[];
  childrenStatuses: BoardStatusRecord[];
}

/** Child item (Story) of a board item. */
export interface BoardStoryRecord {
  summary: string;
  id: string;
  parentId: string;
  estimates?: number;
  /** Title of a children status. */
  status: string;
  externalKey: string;
  externalUrl: string;
}

/** Parent item (Feature) of the board items operation, with every field (including stories). */
export interface BoardItemRecord {
  iterationPath?: string;
  id: string;
  /** Only on boards of the first tracker family (extA). */
  extCId?: string;
  estimates?: number;
  updatedBy: string;
  externalKey: string;
  /** Sprint and team titles; absent when the item is not planned or the board has no team mappings. */
  teamsAndSprints?: { sprint: string; team: string }[];
  /** Percent of stories in a Done-category status (100/0 by own status when there are no stories). */
  completionByStatus: number;
  /** DD Mon, YY */
  updatedOn: string;
  /** Title of a parent status. */
  status: string;
  itemType: string;
  /** Percent of story estimates in Done-category stories (0 when there is nothing to sum). */
  completionByEstimate: number;
  /** DD Mon, YY */
  createdOn: string;
  summary: string;
  externalUrl: string;
  stories: BoardStoryRecord[];
  cardType: string;
  createdBy: string;
  areaPath: string;
  /** Undocumented extra field, present on some items. */
  rank?: string;
}

/** teamsAndSprints entry of the PI Objectives API (only with additionalColumns=1). */
export interface PiTeamsAndSprintsRecord {
  sequence: number;
  team: { id: string; title: string; label: string; color: string };
  sprint: { id: string; title: string; label: string; startDate: number; endDate: number; isIPSprint: boolean };
}

/** Sub-item of a PI objective's linked item. extA* or extB* fields depending on the tracker family. */
export interface PiSubItemRecord {
  id: string;
  extAId?: string;
  extAURL?: string;
  extAItemTypeIcon?: string;
  extBId?: string;
  extBKey?: string;
  extBIssueTypeId?: string;
  title: string;
  type: string;
  issueType: string;
  storyPoints?: number;
  status: LegacyStatus;
  teamsAndSprints?: PiTeamsAndSprintsRecord[];
}

export interface PiLinkedItemRecord extends PiSubItemRecord {
  /** Percent of sub-items in a Done-category status (100/0 by own status without sub-items). */
  completion: number;
  subItems?: PiSubItemRecord[];
}

export interface PiObjectiveRecord {
  id: string;
  title: string;
  type: string;
  completion: number | null;
  bvPlan: number;
  bvActual: number;
  sequence: number;
  status: LegacyStatus;
  linkedItems?: PiLinkedItemRecord[];
}

export interface PiObjectiveGroupRecord {
  id: string;
  title: string;
  type: string;
  completion: number | null;
  bvPlan: number;
  bvActual: number;
  achievement: number | null;
  status: LegacyStatus;
  objectives: PiObjectiveRecord[];
}
