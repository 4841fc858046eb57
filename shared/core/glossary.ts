/**
 * The readers' vocabulary: every heading, figure name and column label the Summary, the Trends, the
 * e-mail, the chat messages, the run page and the PDF show, with what it counts. A figure has one
 * name and one definition everywhere (the e-mail's "OKR progress" is the Summary's), so a reader
 * who compares two pages compares the same thing. The e-mail and the chat messages take their
 * figures from the Summary's sections and the trends, so they need no words of their own.
 * docs/formats.md's glossary is generated from this list (scripts/glossary-docs.ts) and a test
 * fails when a reader-facing label is neither here nor the planning tool's own data.
 *
 * A `{name}` in a label is filled from the data (a board's title, a register's key).
 */
export interface Term {
  readonly label: string;
  readonly definition: string;
}

export const GLOSSARY = {
  // --- Sections -----------------------------------------------------------------------------------
  needsAttention: {
    label: 'Needs attention',
    definition:
      'What a reader should act on, most urgent first, each risk with its Owner (or "no owner"): open high or critical risks that are overdue or have no owner, off-track OKR objectives, boards below the predictability band once their PI has been scored, committed PI objectives without actual BV; ten of each at most, with how many more; the workbook\'s Needs attention sheet lists every one, with its owner, level, due date and days overdue.',
  },
  nothingNeedsAttention: { label: 'Nothing needs attention', definition: 'No item meets any of the Needs attention rules on the run\'s day.' },
  attentionWhat: { label: 'What', definition: 'In Needs attention: the kind of item (risk, OKR, PI, PI objective).' },
  attentionItem: { label: 'Item', definition: 'In Needs attention: the item, linked to its row in the workbook (or its page in the planning tool).' },
  attentionWhy: { label: 'Why', definition: 'In Needs attention: the rule the item meets, in words.' },
  risks: { label: 'Risks', definition: 'The risk registers the report reads.' },
  risksByLevelAndStatus: {
    label: 'Risks by level and status',
    definition: 'Every risk counted by its level and its status. The statuses that are not closed come first, then Open total (their sum), then the closed statuses, then All risks (every column before it but Open total).',
  },
  level: { label: 'Level', definition: 'A risk level as the register names it (Critical, High, …), most severe first.' },
  allLevels: { label: 'All levels', definition: 'The sum of the levels above it.' },
  openTotal: { label: 'Open total', definition: 'In Risks by level and status: the sum of the status columns left of it, the statuses that are not closed.' },
  risksByRoam: {
    label: 'Risks by ROAM',
    definition: 'Risks by the ROAM category of their status (SAFe: Resolved, Owned, Accepted, Mitigated); a risk still in status Open is not yet ROAMed.',
  },
  roamResolved: { label: 'Resolved', definition: 'ROAM: risks in status Resolved, Closed or Done.' },
  roamOwned: { label: 'Owned', definition: 'ROAM: risks in status Owned, In progress or Assigned.' },
  roamAccepted: { label: 'Accepted', definition: 'ROAM: risks in status Accepted.' },
  roamMitigated: { label: 'Mitigated', definition: 'ROAM: risks in status Mitigated.' },
  notRoamed: { label: 'Not yet ROAMed (Open)', definition: 'Risks still in status Open.' },
  heatMap: {
    label: 'Open risks by impact and probability',
    definition: 'Open risks by their impact (rows) and probability (columns) on their register\'s own scale, each cell in the colour of the level the register gives it; registers with different scales get a map each, named by their keys.',
  },
  heatMapOf: { label: 'Open risks by impact and probability ({registers})', definition: 'The heat map of the registers named.' },
  impactByProbability: { label: 'Impact \\ probability', definition: 'In a heat map: impact from the most severe down, probability from the least likely across (low → high, left to right).' },
  piObjectives: { label: 'PI objectives', definition: 'The PI objectives of the boards the report reads.' },
  piPhase: { label: 'PI: {board}', definition: 'Where the board\'s PI stands on the run\'s day: current sprint, days left, when the IP sprint starts.' },
  predictabilityByBoard: { label: 'Predictability by board', definition: 'Predictability of each PI board (one board is one PI of one train).' },
  predictabilityByTeam: { label: 'Predictability by team', definition: 'Predictability of each team\'s objectives on each board.' },
  board: { label: 'Board', definition: 'A PI board: one Program Increment of one train.' },
  boardTeam: { label: 'Board · team', definition: 'A team\'s objectives on one board.' },
  allBoards: { label: 'All boards', definition: 'Every board of the report together.' },
  okrProgressByTheme: { label: 'OKR progress by strategic theme', definition: 'OKR progress of each strategic theme, with its objectives counted by status.' },
  strategicTheme: { label: 'Strategic theme', definition: 'A strategic theme (SAFe): the business objective its OKRs serve.' },
  okrs: { label: 'OKRs', definition: 'Objectives and key results under the strategic themes.' },
  trends: { label: 'Trends', definition: 'The figures of this run beside those of the report\'s earlier runs (up to the last twelve), oldest first.' },
  run: { label: 'Run', definition: 'A run of the report, by the day it ran in the report\'s time zone.' },
  changesSinceRunBefore: { label: 'Changes since the run before', definition: 'Rows added, removed and changed between each run and the one before it.' },
  featureBurnUp: { label: 'Feature burn-up: {board}', definition: 'A board\'s features and their estimates, in all and done, run by run.' },

  boardItems: { label: 'Board items', definition: 'The items on each board, counted by kind.' },
  piObjectiveCompletion: {
    label: 'PI objective completion (average per board)',
    definition: 'The average completion of each board\'s PI objectives as the planning tool computes it (by the definition\'s completion type); objectives it cannot compute are left out.',
  },

  whatChanged: { label: 'What changed', definition: 'The rows this run added, removed and changed since the run before (the workbook\'s Changes sheet), the most telling first.' },
  whatChangedSince: { label: 'What changed since {date}', definition: 'What changed, since the run of that day.' },
  nothingChanged: { label: 'Nothing changed.', definition: 'The run found the same rows and values as the run before.' },
  inAll: { label: 'In all', definition: 'In What changed: the counts of added, removed and changed rows.' },
  notCompared: { label: 'Not compared', definition: 'In What changed: why this run was not compared (the first run, or an earlier run that cannot be read).' },
  more: { label: 'More', definition: 'In What changed: how many changes the message leaves to the workbook.' },
  aboutThisRun: {
    label: 'About this run',
    definition: 'When the run read the planning tool and in which time zone; Scope says what it read. Where it read from and as whom (the API addresses, the company prefix, the exporting account) are in the run\'s manifest and the run list (`npm run reports -- list`), for the operators.',
  },
  report: { label: 'Report', definition: 'The report\'s title.' },
  runId: { label: 'Run id', definition: 'The run\'s id: the same in the file names, the manifest and the run page.' },
  generatedAt: { label: 'Generated at', definition: 'When the run read the planning tool, in the report\'s time zone.' },
  timeZone: { label: 'Time zone', definition: 'The report\'s time zone: the days and times of the report are in it.' },
  scope: { label: 'Scope', definition: 'What the run read: the registers, themes and boards, as the planning tool named them.' },
  riskRegisters: { label: 'Risk registers', definition: 'The risk registers read.' },
  strategicThemes: { label: 'Strategic themes', definition: 'The strategic themes read.' },
  piObjectiveBoards: { label: 'PI objectives: boards', definition: 'The boards whose PI objectives were read.' },
  piCompletionType: { label: 'PI objectives: completion type', definition: 'How the planning tool computes a PI objective\'s completion (board default unless the definition names one).' },
  piTeamsAndSprints: { label: 'PI objectives: teams and sprints', definition: 'Whether the PI objectives carry their teams and sprints.' },
  boardItemBoards: { label: 'Board items: boards', definition: 'The boards whose items were read.' },
  rows: { label: 'Rows', definition: 'The rows the run wrote, per table.' },

  // --- Figures ------------------------------------------------------------------------------------
  openRisks: {
    label: 'Open risks',
    definition: 'Risks whose status is not a closed one (closed, mitigated, resolved, done, cancelled, archived or accepted).',
  },
  severeRisks: { label: 'Open high or critical risks', definition: 'Open risks whose level is high or critical (or severe, extreme, very high).' },
  overdueRisks: { label: 'Overdue risks', definition: 'Open risks whose resolution date is before the run\'s day.' },
  unownedRisks: {
    label: 'Open risks without an owner',
    definition: 'Open risks with no Owner. When the definition names a custom field as the owner (`datasets.risks.ownerField`), its title follows in brackets: "Open risks without an owner (Risk owner)".',
  },
  owner: {
    label: 'Owner',
    definition: 'Who is to act on a risk: its responsible person in the planning tool (the Risks sheet\'s Owner column), or the custom field the definition names in `datasets.risks.ownerField`, then written "Owner (Risk owner)". A custom field of another title, such as "Risk owner", keeps its own title and column and is not the Owner unless the definition names it.',
  },
  allRisks: { label: 'All risks', definition: 'Every risk of the registers, closed ones included.' },
  committedObjectives: { label: 'Committed objectives', definition: 'PI objectives the teams committed to (SAFe), as opposed to uncommitted (stretch) ones.' },
  uncommittedObjectives: { label: 'Uncommitted objectives', definition: 'PI objectives planned as stretch: they count for actual BV, not for planned BV.' },
  plannedBv: { label: 'Planned BV', definition: 'The business value the business owners assigned to the committed objectives at PI planning.' },
  actualBv: { label: 'Actual BV', definition: 'The business value the business owners scored at the end of the PI, over all objectives, uncommitted ones included.' },
  predictability: {
    label: 'Predictability',
    definition: 'Actual BV ÷ planned BV, in percent (SAFe\'s program predictability measure); for a group of boards, their actual BV ÷ their planned BV.',
  },
  predictabilityBand: {
    label: '80–100 % band',
    definition: 'Whether predictability is within SAFe\'s 80–100 % band ("in band", "below 80 %", "above 100 %"), judged once the PI reaches its IP sprint; before that "scored at the end of the PI", said once in the headline (the tables by board and by team then leave the column out).',
  },
  bandLine: { label: '{percent} % (band)', definition: 'In the Trends\' predictability chart: an edge of the 80–100 % band, drawn as a dashed line.' },
  bandNote: {
    label: 'Dashed lines: the {low}–{high} % band, the same for every run.',
    definition: 'Under the Trends\' predictability table: the band is said once there and drawn in the chart, not repeated as a column on every row.',
  },
  okrProgress: {
    label: 'OKR progress',
    definition: 'A strategic theme\'s progress as the planning tool computes it from its objectives and key results, in percent; for the whole report, the average of its themes\' progress (each theme counts once).',
  },
  objectiveGroups: { label: 'Objective groups', definition: 'OKR groups under the strategic themes.' },
  objectives: { label: 'Objectives', definition: 'OKR objectives (under a strategic theme) or PI objectives (on a board), by the section.' },
  keyResults: { label: 'Key results', definition: 'Key results under the OKR objectives.' },
  notStarted: { label: 'Not started', definition: 'Objectives whose status says not started (or to do, new).' },
  onTrack: { label: 'On track', definition: 'Objectives whose status says on track.' },
  atRisk: { label: 'At risk', definition: 'Objectives whose status says at risk.' },
  offTrack: { label: 'Off track', definition: 'Objectives whose status says off track (or behind, blocked).' },
  done: { label: 'Done', definition: 'Objectives whose status says done (or achieved, complete, closed).' },
  otherStatus: { label: 'Other status', definition: 'Objectives whose status none of the columns before names, so the columns add up to Objectives.' },
  features: { label: 'Features', definition: 'Feature items on the board.' },
  stories: { label: 'Stories', definition: 'Story items on the board.' },
  featuresDone: { label: 'Features done', definition: 'Features whose status is in the Done category.' },
  estimate: { label: 'Estimate', definition: 'The features\' estimates added up (story points or whatever the board estimates in).' },
  estimateDone: { label: 'Estimate done', definition: 'The estimates of the features done, added up.' },
  doneByStatus: { label: 'Features done by status', definition: 'Features done ÷ features, in percent.' },
  doneByEstimate: { label: 'Features done by estimate', definition: 'Estimate done ÷ estimate, in percent; for the whole report, over all its boards.' },
  added: { label: 'Added', definition: 'Rows in this run that the run before did not have.' },
  removed: { label: 'Removed', definition: 'Rows of the run before that this run does not have.' },
  changed: { label: 'Changed', definition: 'Rows in both runs with a different value in a compared column.' },
  // --- Alerts (docs/reports.md) ---------------------------------------------------------------------
  linesCrossed: { label: 'Lines crossed', definition: 'In an alert: each rule of the report whose line this run crossed, with the figure\'s value and the line.' },
  riskRaisedToHighest: { label: 'Risk raised to the highest level', definition: 'A risk whose level rose since the run before to the most severe one (critical, extreme, severe, very high).' },
  objectiveDropped: { label: 'PI objective dropped', definition: 'A PI objective the run before had and this run does not.' },
} as const satisfies Readonly<Record<string, Term>>;

export type TermId = keyof typeof GLOSSARY;

/** The reader's name of a term, its `{placeholders}` filled from `values`. */
export function term(id: TermId, values: Readonly<Record<string, string>> = {}): string {
  return GLOSSARY[id].label.replace(/\{(\w+)\}/g, (whole, name: string) => values[name] ?? whole);
}
