import { MAIL_PACE_SHARE } from '../core/defaults';
import { errorMessage } from '../core/errors';
import { cannotTell, notOk, ok, type Check } from './check';
import type { LambdaConcurrencyReader, SesAccountReader } from './ports';

/**
 * Lambda keeps this many of the account's slots unreserved, or the whole quota when it is smaller
 * (a new account's 10): a reservation that leaves fewer is refused, and with it the deploy.
 */
export const MIN_UNRESERVED = 100;

/** The Service Quotas code of Lambda's "Concurrent executions". */
export const CONCURRENCY_QUOTA_CODE = 'L-B99A9384';

export interface ConcurrencyTarget {
  readonly region: string;
  /** cdk.json's exportReservedConcurrency; undefined: no reservation (the default). */
  readonly reserved: number | undefined;
  /** The deployed export function (output ExportFunctionName): what it reserves now is the stack's own. */
  readonly functionName: string | undefined;
  /** A deployed stack already holds its reservation: a shortfall then blocks the next deploy, not the first e-mail. */
  readonly deployed: boolean;
}

/**
 * Whether the reservations cdk.json asks for fit the account's Lambda concurrency (Lambda
 * GetAccountSettings), and when they do not, the quota to ask AWS for. Without a reservation the
 * stack deploys on any account, a new one's quota of 10 included.
 */
export async function checkConcurrency(target: ConcurrencyTarget, lambda: LambdaConcurrencyReader): Promise<Check> {
  const fields = { area: 'account' as const, name: 'Lambda concurrency', blocks: target.reserved !== undefined && !target.deployed };
  let limit: number;
  let othersReserved: number;
  try {
    const account = await lambda.account();
    const ours = target.functionName === undefined ? 0 : ((await lambda.reserved(target.functionName)) ?? 0);
    limit = account.accountLimit;
    othersReserved = account.accountLimit - account.unreserved - ours;
  } catch (error) {
    const fix = target.reserved === undefined ? undefined : 'allow lambda:GetAccountSettings and lambda:GetFunctionConcurrency to the credentials in use, or see Service Quotas → AWS Lambda → Concurrent executions';
    return cannotTell({ ...fields, detail: `${errorMessage(error)}; cdk.json ${reservationWords(target.reserved)}`, fix });
  }
  const quota = `quota ${limit} in ${target.region}`;
  if (target.reserved === undefined) {
    return ok({ ...fields, detail: `cdk.json reserves none, so the stack deploys on this account (${quota}, ${limit - othersReserved} unreserved)` });
  }
  const minimum = Math.min(MIN_UNRESERVED, limit);
  const left = limit - othersReserved - target.reserved;
  if (left >= minimum) {
    return ok({ ...fields, detail: `the ${target.reserved} slots cdk.json reserves for export-report fit (${quota}; ${left} stay unreserved, Lambda keeps ${minimum})` });
  }
  const needed = othersReserved + target.reserved + MIN_UNRESERVED;
  return notOk({
    ...fields,
    detail:
      `cdk.json reserves ${target.reserved} slots for export-report, which would leave ${Math.max(0, left)} of the ${quota} unreserved ` +
      `(${othersReserved > 0 ? `other functions reserve ${othersReserved}; ` : ''}Lambda keeps ${minimum}), so the deploy would be refused`,
    fix:
      `remove exportReservedConcurrency from cdk.json (the default), or ask AWS for a quota of at least ${needed}: Service Quotas → AWS Lambda → Concurrent executions, ` +
      `or aws service-quotas request-service-quota-increase --service-code lambda --quota-code ${CONCURRENCY_QUOTA_CODE} --desired-value ${needed} --region ${target.region}`,
  });
}

function reservationWords(reserved: number | undefined): string {
  return reserved === undefined ? 'reserves none, so the stack needs no quota of its own' : `reserves ${reserved} slots for export-report`;
}

/** The window a crowded hour is to be delivered in (docs/deploy.md, "Capacity"). */
export const CAPACITY_WINDOW_MINUTES = 15;
/**
 * Seconds one small scheduled report keeps a function (plan, fetch, write, mail three readers), from the
 * fleet benchmark (docs/benchmarks.md, "Fleet: Monday 07:00"); a larger report takes longer, so the figure
 * is an upper bound of what the concurrency carries.
 */
export const SMALL_REPORT_SECONDS = 10;
/** Readers a report mails in the operators' sum (the benchmark's fleet). */
export const READERS_PER_REPORT = 3;

/**
 * The scheduled runs the stack takes at once (the queue's maximum concurrency, within what the account
 * leaves unreserved) kept busy for the window: a freed slot takes the next run at once (the fleet bench:
 * 1.00–1.02× the work divided by the concurrency).
 */
function lambdaCapacity(account: { readonly unreserved: number; readonly accountLimit: number }, scheduledConcurrency: number | undefined, windowSeconds: number): string {
  const lambda = `Lambda's ${account.unreserved} unreserved of quota ${account.accountLimit}`;
  const slots = Math.min(scheduledConcurrency ?? account.unreserved, account.unreserved);
  const reports = Math.floor((slots * windowSeconds) / SMALL_REPORT_SECONDS);
  const at = scheduledConcurrency === undefined ? lambda : `${slots} scheduled runs at once (scheduledConcurrency ${scheduledConcurrency}, ${lambda})`;
  return `${at} run about ${reports} small reports (${SMALL_REPORT_SECONDS} s each)`;
}

/**
 * How many readers and reports at one hour the account carries within CAPACITY_WINDOW_MINUTES: SES's
 * sending rate (and its daily quota) and Lambda's unreserved concurrency, the two account limits a fleet
 * meets (docs/architecture.md, "A fleet at one hour"). Never blocks: it says what the account carries.
 */
export async function checkCapacity(region: string, ses: SesAccountReader, lambda: LambdaConcurrencyReader, scheduledConcurrency?: number): Promise<Check> {
  const fields = { area: 'account' as const, name: `Capacity at one hour (${CAPACITY_WINDOW_MINUTES} min)`, blocks: false };
  const windowSeconds = CAPACITY_WINDOW_MINUTES * 60;
  const parts: string[] = [];
  const unknown: string[] = [];
  try {
    const account = await ses.account();
    if (account.maxSendRate === undefined) unknown.push('SES gave no sending rate');
    else {
      // The stack paces mail under the rate (MAIL_PACE_SHARE), so that is what an hour carries.
      const byRate = Math.floor(account.maxSendRate * MAIL_PACE_SHARE * windowSeconds);
      const readers = account.max24HourSend === undefined ? byRate : Math.min(byRate, account.max24HourSend);
      const daily = account.max24HourSend === undefined ? '' : `, ${account.max24HourSend} a day`;
      parts.push(`SES sends ${account.maxSendRate} a second${daily} in ${region}: ${readers} readers at one hour (${Math.floor(readers / READERS_PER_REPORT)} reports of ${READERS_PER_REPORT})`);
    }
  } catch (error) {
    unknown.push(`SES: ${errorMessage(error)}`);
  }
  try {
    const account = await lambda.account();
    parts.push(lambdaCapacity(account, scheduledConcurrency, windowSeconds));
  } catch (error) {
    unknown.push(`Lambda: ${errorMessage(error)}`);
  }
  if (parts.length === 0) return cannotTell({ ...fields, detail: unknown.join('; '), fix: 'allow ses:GetAccount and lambda:GetAccountSettings to the credentials in use' });
  const detail = `${parts.join('; ')}${unknown.length > 0 ? `; not read: ${unknown.join('; ')}` : ''}; a crowded hour is late beyond this, never lost (docs/deploy.md, "Capacity")`;
  return ok({ ...fields, detail });
}
