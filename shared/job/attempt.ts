import * as z from 'zod';
import type { Clock } from '../core/clock';
import { ledgerKey, type Ledger } from '../ledger/ledger';
import { ledgerRecord } from '../ledger/ledger-record';
import type { ExportJobRequest } from './request';
import { isScheduled, sharedRunId } from './stages/resolve';

/**
 * Which attempt of a run this is, as its door knows it, and whether another follows a retryable
 * failure. The owners hear of a retryable failure only on the last attempt (tellsOwners): a throttle
 * or a blip that the next attempt gets past is not a failure of the report, and an owner told "is
 * failing" and then, a minute later, "works again" learned nothing but noise. A door that knows its
 * attempt says so (an SQS door: ApproximateReceiveCount against maxReceiveCount; a Step Functions step:
 * its State.RetryCount); Lambda's asynchronous invocation tells a function nothing of its retries, so
 * that door counts them in the ledger (countAttempt).
 */
export interface RunAttempt {
  /** 1 for the first attempt. */
  readonly number: number;
  /** No attempt follows this one: a retryable failure is final, and told. */
  readonly last: boolean;
}

/** A door with no retry behind it (the command line, the demo, a door that cannot count): every failure is told at once. */
export const ONLY_ATTEMPT: RunAttempt = { number: 1, last: true };

/** Lambda's asynchronous invocation of the export function: the first try and the stack's two retries (`retryAttempts: 2`). */
export const LAMBDA_ASYNC_ATTEMPTS = 3;

/** Attempt `number` of `attempts` in all. */
export function attemptOf(number: number, attempts: number): RunAttempt {
  return { number, last: number >= attempts };
}

/**
 * Whether the owners hear of this failure now: a failure no retry can mend (a bad definition, a
 * refused key) at once; a retryable one only when no attempt follows. No attempt known: the last.
 */
export function tellsOwners(failure: { readonly retryable: boolean }, attempt: RunAttempt | undefined): boolean {
  return !failure.retryable || (attempt ?? ONLY_ATTEMPT).last;
}

const attemptsSchema = z.object({ attempts: z.number().int().positive() });

/** Long past Lambda's last retry (an event lives 6 hours), short enough that the ledger forgets it. */
const ATTEMPTS_KEPT_MS = 24 * 3_600_000;

/**
 * Counts this attempt of a scheduled run in the ledger (`attempt/<report>/<runId>`, one compare-and-swap)
 * and says whether it is the last of `attempts`. Counted as the attempt starts, so an attempt that
 * died (a timeout, memory) counts as Lambda counts it. A request that names no run every attempt
 * shares (an on-demand export, a scheduled run without its time, an inline definition) is not counted:
 * it is its own only attempt, as far as the owners go (on-demand exports never tell them anyway).
 */
export async function countAttempt(request: ExportJobRequest, deps: { readonly ledger: Ledger; readonly clock: Clock }, attempts: number): Promise<RunAttempt> {
  const runId = isScheduled(request) ? sharedRunId(request) : undefined;
  if (runId === undefined || request.report === undefined) return ONLY_ATTEMPT;
  const record = ledgerRecord(deps.ledger, ledgerKey('attempt', request.report, runId), attemptsSchema, { what: `the attempts of run "${runId}"`, invalid: 'absent' });
  const expiresAt = new Date(deps.clock().getTime() + ATTEMPTS_KEPT_MS);
  const counted = await record.change((current) => ({ attempts: (current?.attempts ?? 0) + 1 }), { expiresAt });
  return attemptOf(counted.value?.attempts ?? 1, attempts);
}
