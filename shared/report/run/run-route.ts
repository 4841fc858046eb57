/**
 * What a report's history says about the path its next scheduled run should take (docs/deploy.md,
 * "Big reports"): the route stage (job/stages/route.ts) asks `fanOutReason` and tells `noteOutgrown`;
 * the ledger's keys and the manifests stay in here, the run leases in run-lease.ts.
 */
import * as z from 'zod';
import { daysAfter } from '../../core/clock';
import { ledgerKey } from '../../ledger/ledger';
import { ledgerRecord } from '../../ledger/ledger-record';
import type { Storage } from '../../storage/storage';
import { latestPointerSchema, manifestSchema } from '../manifest/manifest';
import { abandonedAttempt, type LeaseTerms, type RunName } from './run-entry';

/**
 * A report whose run died on the single path keeps fanning out this long, then tries the single
 * path again: a report that shrank gets its cheaper path back within a month, and one that did not
 * costs one dead attempt a month (the function's retry of that run fans out).
 */
export const OUTGROWN_DAYS = 35;

/** The ledger's note that a report outgrew one function (`route/<report>`). */
const outgrownSchema = z.object({
  runId: z.string(),
  /** When the dead attempt's lease lapsed. */
  at: z.iso.datetime(),
  until: z.iso.datetime(),
});

/**
 * What the route reads a report's history from, named as the run context names it: the ledger, the
 * storage, the clock, and the lease's terms (a retry waits out a silent holder's lease with `leaseWait`).
 */
export interface RouteHistory extends Omit<LeaseTerms, 'log'> {
  readonly storage: Storage;
}

/**
 * Rows of a report's last published run (`latest`), or undefined when it has none (or its manifest
 * cannot be read).
 */
export async function lastRunRows(report: string, history: Pick<RouteHistory, 'ledger' | 'storage'>): Promise<number | undefined> {
  const pointer = latestPointerSchema.safeParse((await history.ledger.get(ledgerKey('latest', report)))?.value);
  if (!pointer.success) return undefined;
  const bytes = await history.storage.getObject(pointer.data.manifest);
  if (!bytes) return undefined;
  const manifest = manifestSchema.safeParse(JSON.parse(Buffer.from(bytes).toString('utf8')));
  if (!manifest.success) return undefined;
  return Object.values(manifest.data.summary.rows).reduce((sum, n) => sum + n, 0);
}

/**
 * Why a scheduled run of `report` should fan out, or undefined (the single path runs it), in order:
 * 1. its last published run wrote more than `rows` rows (too big for one function's 15 minutes at
 *    the planning API's pace, docs/deploy.md);
 * 2. an earlier attempt of this very run died holding its lease (out of time or memory; a lease
 *    still lapsing is waited out first): the function's retry must not die the same way. The report
 *    is noted as outgrown, so
 * 3. its later runs fan out too, for OUTGROWN_DAYS, though none of its runs ever published.
 */
export async function fanOutReason(run: RunName, rows: number, history: RouteHistory): Promise<string | undefined> {
  const { report } = run;
  const dead = await abandonedAttempt(history, run);
  const written = await lastRunRows(report, history);
  if (written !== undefined && written > rows) return `the last run wrote ${written} rows, more than ${rows} for one function`;
  if (dead) {
    await noteOutgrown(run, dead.lapsedAt, history);
    return `an earlier attempt of this run stopped without finishing (out of time or memory; its lease lapsed at ${dead.lapsedAt})`;
  }
  const outgrown = outgrownSchema.safeParse((await history.ledger.get(ledgerKey('route', report)))?.value);
  if (outgrown.success && new Date(outgrown.data.until) > history.clock()) {
    return `run ${outgrown.data.runId} of this report did not fit one function (${outgrown.data.at}); its runs fan out until ${outgrown.data.until}`;
  }
  return undefined;
}

/** Notes (or renews) that `report` outgrew one function at `at`; a lost race means another attempt noted it. */
export async function noteOutgrown({ report, runId }: RunName, at: string, history: Pick<RouteHistory, 'ledger' | 'clock'>): Promise<void> {
  const key = ledgerKey('route', report);
  const until = daysAfter(history.clock(), OUTGROWN_DAYS);
  await ledgerRecord(history.ledger, key, outgrownSchema, { what: `the outgrown note of "${report}"`, invalid: 'absent' })
    .change(() => ({ runId, at, until: until.toISOString() }), { rounds: 1, lost: 'answer', expiresAt: until });
}
