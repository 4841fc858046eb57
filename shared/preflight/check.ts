/**
 * What `npm run preflight` finds, one check at a time: whether each thing a first e-mail depends on
 * is in place (ok), is not (not ok), or could not be read (cannot tell), with the fix as a command
 * or a console path.
 */

export type CheckStatus = 'ok' | 'not ok' | 'cannot tell';

/** The parts of the path to a first e-mail, in the order a new deployment meets them. */
export type CheckArea = 'account' | 'stack' | 'planning API' | 'e-mail' | 'reports';

export interface Check {
  readonly area: CheckArea;
  /** What was checked, e.g. `CDK bootstrap`, `SES identity acme.example.com`. */
  readonly name: string;
  readonly status: CheckStatus;
  /** What was found, in a sentence; never a secret, a key or an internal ARN. */
  readonly detail: string;
  /** A command to run or a console path to follow; only when the status is not ok. */
  readonly fix?: string | undefined;
  /** Whether this check, unless ok, stands between the stack and its first e-mail. */
  readonly blocks: boolean;
}

type Fields = Omit<Check, 'status'>;

export const ok = (fields: Omit<Fields, 'fix'>): Check => ({ ...fields, status: 'ok' });
export const notOk = (fields: Fields): Check => ({ ...fields, status: 'not ok' });
export const cannotTell = (fields: Fields): Check => ({ ...fields, status: 'cannot tell' });

/** The checks that keep a first e-mail from arriving: not ok, or not known to be ok. */
export function blockers(checks: readonly Check[]): Check[] {
  return checks.filter((check) => check.blocks && check.status !== 'ok');
}
