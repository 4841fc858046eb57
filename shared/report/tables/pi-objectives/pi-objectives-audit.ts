/**
 * What the PI objective tables read of the served records (the field audit's shapes) and what they
 * leave out on purpose, with why (docs/tables.md lists it): the audit of a run of pi-objectives.ts.
 */
import { FieldAudit, ROWS, type FieldShape, type NotExported } from '../../dataset/field-audit';

const STATUS: FieldShape = { id: true, title: true, category: true };
/** A plan entry's team and sprint, as the team and sprint columns read them. */
const PLAN_ENTRY: FieldShape = {
  team: { id: true, title: true },
  sprint: { id: true, title: true, startDate: true, endDate: true, isIPSprint: true },
};
/** Fields of a sub-item the item table reads. */
export const PI_SUB_ITEM_SHAPE: FieldShape = {
  id: true, extAId: true, extAURL: true, extAItemTypeIcon: true, tfsId: true, tfsURL: true, tfsItemTypeIcon: true,
  extBId: true, extBKey: true, extBIssueTypeId: true, jiraId: true, jiraKey: true, jiraIssueTypeId: true, title: true,
  type: true, issueType: true, storyPoints: true, completion: true, status: STATUS, teamsAndSprints: PLAN_ENTRY,
};
/** A linked item: its sub-items have rows of their own (audited one by one). */
export const PI_LINKED_ITEM_SHAPE: FieldShape = { ...PI_SUB_ITEM_SHAPE, subItems: ROWS };

/** What `pi-objective-items` leaves out on purpose. */
export const PI_ITEM_NOT_EXPORTED: NotExported = {
  'teamsAndSprints[].sequence': "Order of an item's plan entries: the team and sprint lists keep it",
  'teamsAndSprints[].team.label': "A team's short label: its title is in `teams`",
  'teamsAndSprints[].team.color': "A team's colour in the planning tool: presentation only",
  'teamsAndSprints[].sprint.label': "A sprint's short label: its title is in `sprints`",
};

/**
 * With additionalColumns off the plan is still asked for (its sprint dates place the PI's phase),
 * but no column shows it: every leaf of it is left out, for that reason.
 */
const PLAN_WITHOUT_COLUMNS: NotExported = Object.fromEntries(
  ['team.id', 'team.title', 'sprint.id', 'sprint.title', 'sprint.startDate', 'sprint.endDate', 'sprint.isIPSprint'].map((leaf) => [
    `teamsAndSprints[].${leaf}`,
    'The team and sprint columns are off (`additionalColumns: false`); the plan is asked for to place the PI\'s phase',
  ]),
);

/** An objective group and its objectives; linked items are audited with the item table. */
export const PI_GROUP_SHAPE: FieldShape = {
  id: true, title: true, type: true, completion: true, bvPlan: true, bvActual: true, achievement: true,
  objectives: { id: true, title: true, type: true, completion: true, bvPlan: true, bvActual: true, status: STATUS, linkedItems: ROWS },
};

/** What `pi-objectives` leaves out on purpose. */
export const PI_OBJECTIVE_NOT_EXPORTED: NotExported = {
  'status.title': "The objective group's own status: each row holds its objective's (`status`) and the group's figures",
  'status.category': "Category of the objective group's own status",
  'status.id': "Id of the objective group's own status",
  'objectives[].sequence': "An objective's place in its group: the rows keep the API's order",
};

/** A run's audit and item shapes: without the team and sprint columns, the plan's leaves are left out, saying why. */
export function piAudit(additionalColumns: boolean): { audit: FieldAudit; subItemShape: FieldShape; linkedItemShape: FieldShape } {
  const audit = new FieldAudit({
    'pi-objectives': PI_OBJECTIVE_NOT_EXPORTED,
    'pi-objective-items': additionalColumns ? PI_ITEM_NOT_EXPORTED : { ...PI_ITEM_NOT_EXPORTED, ...PLAN_WITHOUT_COLUMNS },
  });
  const subItemShape = additionalColumns
    ? PI_SUB_ITEM_SHAPE
    : Object.fromEntries(Object.entries(PI_SUB_ITEM_SHAPE).filter(([field]) => field !== 'teamsAndSprints'));
  return { audit, subItemShape, linkedItemShape: { ...subItemShape, subItems: ROWS } };
}

