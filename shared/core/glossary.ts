import EN from './i18n/messages/en.json';

/**
 * The readers' vocabulary: every heading, figure name and column label the Summary, the Trends, the
 * e-mail, the chat messages, the run page and the PDF show, with what it counts. A figure has one
 * name and one definition everywhere (the e-mail's "OKR progress" is the Summary's), so a reader
 * who compares two pages compares the same thing. The e-mail and the chat messages take their
 * figures from the Summary's sections and the trends, so they need no words of their own.
 * docs/formats.md's glossary is generated from this list (scripts/glossary-docs.ts) and a test
 * fails when a reader-facing label is neither here nor the planning tool's own data.
 *
 * A `{name}` in a label is filled from the data (a board's title, a register's key). The labels are
 * the English catalogue's `term.*` messages (shared/core/i18n/messages/en.json), so each language names
 * the same terms; the definitions here are the docs' English.
 */
export interface Term {
  readonly label: string;
  readonly definition: string;
}

export const GLOSSARY = {
  // --- Sections -----------------------------------------------------------------------------------
  needsAttention: {
    label: EN['term.needsAttention'],
    definition:
      'What a reader should act on, most urgent first, each risk with its Owner (or "no owner"): open high or critical risks that are overdue or have no owner, off-track OKR objectives, boards below the predictability band once their PI has been scored, committed PI objectives without actual BV; ten of each at most, with how many more; the workbook\'s Needs attention sheet lists every one, with its owner, level, due date and days overdue.',
  },
  nothingNeedsAttention: { label: EN['term.nothingNeedsAttention'], definition: 'No item meets any of the Needs attention rules on the run\'s day.' },
  attentionWhat: { label: EN['term.attentionWhat'], definition: 'In Needs attention: the kind of item (risk, OKR, PI, PI objective).' },
  attentionItem: { label: EN['term.attentionItem'], definition: 'In Needs attention: the item, linked to its row in the workbook (or its page in the planning tool).' },
  attentionWhy: { label: EN['term.attentionWhy'], definition: 'In Needs attention: the rule the item meets, in words.' },
  risks: { label: EN['term.risks'], definition: 'The risk registers the report reads.' },
  risksByLevelAndStatus: {
    label: EN['term.risksByLevelAndStatus'],
    definition: 'Every risk counted by its level and its status. The statuses that are not closed come first, then Open total (their sum), then the closed statuses, then All risks (every column before it but Open total).',
  },
  level: { label: EN['term.level'], definition: 'A risk level as the register names it (Critical, High, …), most severe first.' },
  allLevels: { label: EN['term.allLevels'], definition: 'The sum of the levels above it.' },
  openTotal: { label: EN['term.openTotal'], definition: 'In Risks by level and status: the sum of the status columns left of it, the statuses that are not closed.' },
  risksByRoam: {
    label: EN['term.risksByRoam'],
    definition: 'Risks by their ROAM category (SAFe: Resolved, Owned, Accepted, Mitigated), read from the custom field titled ROAM where the registers keep one; without it the block is Risks by status.',
  },
  roamResolved: { label: EN['term.roamResolved'], definition: 'ROAM: risks in status Resolved, Closed or Done.' },
  roamOwned: { label: EN['term.roamOwned'], definition: 'ROAM: risks in status Owned, In progress or Assigned.' },
  roamAccepted: { label: EN['term.roamAccepted'], definition: 'ROAM: risks in status Accepted.' },
  roamMitigated: { label: EN['term.roamMitigated'], definition: 'ROAM: risks in status Mitigated.' },
  notRoamed: { label: EN['term.notRoamed'], definition: 'Risks still in status Open.' },
  risksByStatus: {
    label: EN['term.risksByStatus'],
    definition: 'Where the registers keep no ROAM field: the risks by the ROAM word of their status (Resolved, Owned, Accepted, Mitigated), Owned counting only risks with an owner; not ROAM, so not named so.',
  },
  ownedNoOwner: { label: EN['term.ownedNoOwner'], definition: 'In Risks by status: risks in status Owned, In progress or Assigned that have no owner, so not Owned.' },
  notRoamedField: { label: EN['term.notRoamedField'], definition: 'In Risks by ROAM read from a ROAM field: risks whose ROAM field is empty or names none of Resolved, Owned, Accepted, Mitigated.' },
  heatMap: {
    label: EN['term.heatMap'],
    definition: 'Open risks by their impact (rows) and probability (columns) on their register\'s own scale, each cell in the colour of the level the register gives it; registers with different scales get a map each, named by their keys.',
  },
  heatMapOf: { label: EN['term.heatMapOf'], definition: 'The heat map of the registers named.' },
  impactByProbability: { label: EN['term.impactByProbability'], definition: 'In a heat map: impact from the most severe down, probability from the least likely across (low → high, left to right).' },
  piObjectives: { label: EN['term.piObjectives'], definition: 'The PI objectives of the boards the report reads.' },
  piPhase: { label: EN['term.piPhase'], definition: 'Where the board\'s PI stands on the run\'s day: current sprint, days left, when the IP sprint starts.' },
  predictabilityByBoard: { label: EN['term.predictabilityByBoard'], definition: 'Predictability of each PI board (one board is one PI of one train).' },
  predictabilityByTeam: { label: EN['term.predictabilityByTeam'], definition: 'Predictability of each team\'s objectives on each board.' },
  board: { label: EN['term.board'], definition: 'A PI board: one Program Increment of one train.' },
  boardTeam: { label: EN['term.boardTeam'], definition: 'A team\'s objectives on one board.' },
  allBoards: { label: EN['term.allBoards'], definition: 'Every board of the report together.' },
  okrProgressByTheme: { label: EN['term.okrProgressByTheme'], definition: 'OKR progress of each strategic theme, with its objectives counted by status.' },
  strategicTheme: { label: EN['term.strategicTheme'], definition: 'A strategic theme (SAFe): the business objective its OKRs serve.' },
  okrs: { label: EN['term.okrs'], definition: 'Objectives and key results under the strategic themes.' },
  trends: { label: EN['term.trends'], definition: 'The figures of this run beside those of the report\'s earlier runs (up to the last twelve), oldest first.' },
  run: { label: EN['term.run'], definition: 'A run of the report, by the day it ran in the report\'s time zone.' },
  changesSinceRunBefore: { label: EN['term.changesSinceRunBefore'], definition: 'Rows added, removed and changed between each run and the one before it.' },
  featureBurnUp: { label: EN['term.featureBurnUp'], definition: 'A board\'s features and their estimates, in all and done, run by run.' },

  boardItems: { label: EN['term.boardItems'], definition: 'The items on each board, counted by kind.' },
  piObjectiveCompletion: {
    label: EN['term.piObjectiveCompletion'],
    definition: 'The average completion of each board\'s PI objectives as the planning tool computes it (by the definition\'s completion type); objectives it cannot compute are left out.',
  },

  whatChanged: { label: EN['term.whatChanged'], definition: 'The rows this run added, removed and changed since the run before (the workbook\'s Changes sheet), the most telling first.' },
  whatChangedSince: { label: EN['term.whatChangedSince'], definition: 'What changed, since the run of that day.' },
  nothingChanged: { label: EN['term.nothingChanged'], definition: 'The run found the same rows and values as the run before.' },
  inAll: { label: EN['term.inAll'], definition: 'In What changed: the counts of added, removed and changed rows.' },
  notCompared: { label: EN['term.notCompared'], definition: 'In What changed: why this run was not compared (the first run, or an earlier run that cannot be read).' },
  more: { label: EN['term.more'], definition: 'In What changed: how many changes the message leaves to the workbook.' },
  aboutThisRun: {
    label: EN['term.aboutThisRun'],
    definition: 'When the run read the planning tool and in which time zone; Scope says what it read. Where it read from and as whom (the API addresses, the company prefix, the exporting account) are in the run\'s manifest and the run list (`npm run reports -- list`), for the operators.',
  },
  report: { label: EN['term.report'], definition: 'The report\'s title.' },
  runId: { label: EN['term.runId'], definition: 'The run\'s id: the same in the file names, the manifest and the run page.' },
  generatedAt: { label: EN['term.generatedAt'], definition: 'When the run read the planning tool, in the report\'s time zone.' },
  timeZone: { label: EN['term.timeZone'], definition: 'The report\'s time zone: the days and times of the report are in it.' },
  scope: { label: EN['term.scope'], definition: 'What the run read: the registers, themes and boards, as the planning tool named them.' },
  riskRegisters: { label: EN['term.riskRegisters'], definition: 'The risk registers read.' },
  strategicThemes: { label: EN['term.strategicThemes'], definition: 'The strategic themes read.' },
  piObjectiveBoards: { label: EN['term.piObjectiveBoards'], definition: 'The boards whose PI objectives were read.' },
  piCompletionType: { label: EN['term.piCompletionType'], definition: 'How the planning tool computes a PI objective\'s completion (board default unless the definition names one).' },
  piTeamsAndSprints: { label: EN['term.piTeamsAndSprints'], definition: 'Whether the PI objectives carry their teams and sprints.' },
  boardItemBoards: { label: EN['term.boardItemBoards'], definition: 'The boards whose items were read.' },
  rows: { label: EN['term.rows'], definition: 'The rows the run wrote, per table.' },

  // --- Figures ------------------------------------------------------------------------------------
  openRisks: {
    label: EN['term.openRisks'],
    definition: 'Risks whose status is not a closed one (closed, mitigated, resolved, done, cancelled, archived or accepted).',
  },
  severeRisks: { label: EN['term.severeRisks'], definition: 'Open risks whose level is high or critical (or severe, extreme, very high).' },
  overdueRisks: { label: EN['term.overdueRisks'], definition: 'Open risks whose resolution date is before the run\'s day.' },
  unownedRisks: {
    label: EN['term.unownedRisks'],
    definition: 'Open risks with no Owner. When the definition names a custom field as the owner (`datasets.risks.ownerField`), its title follows in brackets: "Open risks without an owner (Risk owner)".',
  },
  owner: {
    label: EN['term.owner'],
    definition: 'Who is to act on a risk: its responsible person in the planning tool (the Risks sheet\'s Owner column), or the custom field the definition names in `datasets.risks.ownerField`, then written "Owner (Risk owner)". A custom field of another title, such as "Risk owner", keeps its own title and column and is not the Owner unless the definition names it.',
  },
  allRisks: { label: EN['term.allRisks'], definition: 'Every risk of the registers, closed ones included.' },
  committedObjectives: { label: EN['term.committedObjectives'], definition: 'PI objectives the teams committed to (SAFe), as opposed to uncommitted (stretch) ones.' },
  uncommittedObjectives: { label: EN['term.uncommittedObjectives'], definition: 'PI objectives planned as stretch: they count for actual BV, not for planned BV.' },
  plannedBv: { label: EN['term.plannedBv'], definition: 'The business value the business owners assigned to the committed objectives at PI planning.' },
  actualBv: { label: EN['term.actualBv'], definition: 'The business value the business owners scored at the end of the PI, over all objectives, uncommitted ones included.' },
  predictability: {
    label: EN['term.predictability'],
    definition: 'Actual BV ÷ planned BV, in percent (SAFe\'s program predictability measure); for a group of boards, their actual BV ÷ their planned BV.',
  },
  predictabilitySoFar: {
    label: EN['term.predictabilitySoFar'],
    definition: 'Predictability while a PI is still running: actual BV scored so far ÷ planned BV, a running figure kept out of the one-line headline until the PI is scored.',
  },
  aboveBand: {
    label: EN['term.aboveBand'],
    definition: 'The note under a predictability table with a value over 100 %: uncommitted objectives delivered business value the committed plan did not count.',
  },
  predictabilityBand: {
    label: EN['term.predictabilityBand'],
    definition: 'Whether predictability is within SAFe\'s 80–100 % band ("in band", "below 80 %", "above 100 %"), judged once the PI reaches its IP sprint; before that "scored at the end of the PI", said once in the headline (the tables by board and by team then leave the column out).',
  },
  bandLine: { label: EN['term.bandLine'], definition: 'In the Trends\' predictability chart: an edge of the 80–100 % band, drawn as a dashed line.' },
  bandNote: {
    label: EN['term.bandNote'],
    definition: 'Under the Trends\' predictability table: the band is said once there and drawn in the chart, not repeated as a column on every row.',
  },
  okrProgress: {
    label: EN['term.okrProgress'],
    definition: 'A strategic theme\'s progress as the planning tool computes it from its objectives and key results, in percent; for the whole report, the average of its themes\' progress (each theme counts once).',
  },
  objectiveGroups: { label: EN['term.objectiveGroups'], definition: 'OKR groups under the strategic themes.' },
  objectives: { label: EN['term.objectives'], definition: 'OKR objectives (under a strategic theme) or PI objectives (on a board), by the section.' },
  keyResults: { label: EN['term.keyResults'], definition: 'Key results under the OKR objectives.' },
  notStarted: { label: EN['term.notStarted'], definition: 'Objectives whose status says not started (or to do, new).' },
  onTrack: { label: EN['term.onTrack'], definition: 'Objectives whose status says on track.' },
  atRisk: { label: EN['term.atRisk'], definition: 'Objectives whose status says at risk.' },
  offTrack: { label: EN['term.offTrack'], definition: 'Objectives whose status says off track (or behind, blocked).' },
  done: { label: EN['term.done'], definition: 'Objectives whose status says done (or achieved, complete, closed).' },
  otherStatus: { label: EN['term.otherStatus'], definition: 'Objectives whose status none of the columns before names, so the columns add up to Objectives.' },
  features: { label: EN['term.features'], definition: 'Feature items on the board.' },
  stories: { label: EN['term.stories'], definition: 'Story items on the board.' },
  featuresDone: { label: EN['term.featuresDone'], definition: 'Features whose status is in the Done category.' },
  estimate: { label: EN['term.estimate'], definition: 'The features\' estimates added up (story points or whatever the board estimates in).' },
  estimateDone: { label: EN['term.estimateDone'], definition: 'The estimates of the features done, added up.' },
  doneByStatus: { label: EN['term.doneByStatus'], definition: 'Features done ÷ features, in percent.' },
  doneByEstimate: { label: EN['term.doneByEstimate'], definition: 'Estimate done ÷ estimate, in percent; for the whole report, over all its boards.' },
  added: { label: EN['term.added'], definition: 'Rows in this run that the run before did not have.' },
  removed: { label: EN['term.removed'], definition: 'Rows of the run before that this run does not have.' },
  changed: { label: EN['term.changed'], definition: 'Rows in both runs with a different value in a compared column.' },
  // --- Alerts (docs/reports.md) ---------------------------------------------------------------------
  linesCrossed: { label: EN['term.linesCrossed'], definition: 'In an alert: each rule of the report whose line this run crossed, with the figure\'s value and the line.' },
  riskRaisedToHighest: { label: EN['term.riskRaisedToHighest'], definition: 'A risk whose level rose since the run before to the most severe one (critical, extreme, severe, very high).' },
  objectiveDropped: { label: EN['term.objectiveDropped'], definition: 'A PI objective the run before had and this run does not.' },
} as const satisfies Readonly<Record<string, Term>>;

export type TermId = keyof typeof GLOSSARY;

/** The reader's name of a term, its `{placeholders}` filled from `values`. */
export function term(id: TermId, values: Readonly<Record<string, string>> = {}): string {
  return GLOSSARY[id].label.replace(/\{(\w+)\}/g, (whole, name: string) => values[name] ?? whole);
}
