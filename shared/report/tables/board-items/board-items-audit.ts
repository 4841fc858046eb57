/**
 * What the board-items table reads of each board's metadata (its statuses, sprints and teams, looked
 * up to turn the items' references into titles) and what it leaves out on purpose, with why
 * (docs/tables.md lists it). The metadata is no row's record, but it is served: a field there that
 * no column shows is listed in the manifest's `unexportedFields` like one of an item.
 */
import type { FieldAudit, FieldShape, NotExported } from '../../dataset/field-audit';
import type { BoardMetadata } from './board-items-fetch';

const STATUS: FieldShape = { title: true, category: true };

/**
 * The answers of the three operations, as the audit names their leaves: `sprints[].label`,
 * `teams[].color`, `statuses.parentStatuses[].rowStatus`.
 */
const BOARD_METADATA_SHAPE: FieldShape = {
  sprints: { title: true },
  teams: { title: true },
  statuses: { parentStatuses: STATUS, childrenStatuses: STATUS },
};

const STATUS_NOT_EXPORTED = (list: 'parentStatuses' | 'childrenStatuses', whose: string): NotExported => ({
  [`statuses.${list}[].id`]: `Id of a ${whose} status, looked up to resolve an item's reference: \`status\` shows titles`,
  [`statuses.${list}[].rowStatus`]: `A code the planning tool keeps with a ${whose} status, documented nowhere: \`status_category\` says what the status means`,
  [`statuses.${list}[].source`]: `A code the planning tool keeps with a ${whose} status, documented nowhere: \`status_category\` says what the status means`,
  [`statuses.${list}[].color`]: `A ${whose} status's colour in the planning tool: presentation only`,
  [`statuses.${list}[].updated`]: `A flag the planning tool keeps with a ${whose} status, documented nowhere`,
});

/** What `board-items` leaves out on purpose of the board metadata it looks references up in. */
export const BOARD_ITEM_NOT_EXPORTED: NotExported = {
  'sprints[].id': "Id of a sprint, looked up to resolve an item's reference: `sprints` shows titles",
  'sprints[].label': "A sprint's short label: its title is in `sprints`",
  'sprints[].isIPSprint': 'Whether a sprint is the IP sprint: a property of the sprint, not of an item (`pi-objective-items` has `is_ip_sprint`)',
  'teams[].id': "Id of a team, looked up to resolve an item's reference: `teams` shows titles",
  'teams[].label': "A team's short label: its title is in `teams`",
  'teams[].color': "A team's colour in the planning tool: presentation only",
  ...STATUS_NOT_EXPORTED('parentStatuses', 'feature'),
  ...STATUS_NOT_EXPORTED('childrenStatuses', 'story'),
};

/** Walks one board's metadata, each record counted once per board that served it. */
export function auditBoardMetadata(audit: FieldAudit, meta: BoardMetadata): void {
  const served = {
    sprints: meta.sprints.records,
    teams: meta.teams.records,
    statuses: { parentStatuses: meta.parentStatuses.records, childrenStatuses: meta.childStatuses.records },
  };
  audit.check('board-items', served, BOARD_METADATA_SHAPE);
}
