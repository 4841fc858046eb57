/** A problem the plan of a run found, with its place: `datasets.boardItems.boards[1]`, `credentials.companyPrefix`. */
export interface PlanIssue {
  readonly path: string;
  readonly message: string;
}
