import * as z from 'zod';
import { type Clock, DAY_MS } from '../core/clock';
import { ledgerKey, type Ledger } from '../ledger/ledger';
import { ledgerRecord, type LedgerRecord } from '../ledger/ledger-record';

/**
 * What run links need from the run ledger: three conditional writes and one read. Each method is
 * one atomic step, so two browsers opening links at the same moment cannot both start an export of
 * one report, and a token cannot exceed its start limit by racing itself.
 *
 * LedgerRunLinkLedger implements it on the run ledger (shared/ledger/: DynamoDB in the Lambdas, a
 * directory locally), next to the job status it reads.
 */
export interface RunLinkLedger {
  /** The export that holds the report's slot (running, or the last one), if any: run links and plain `POST /exports` share it (report-run.ts). */
  currentRun(report: string): Promise<RunSlot | undefined>;
  /**
   * Points the report's slot at `next` only if it still points at `expected` (undefined: empty).
   * False when another request moved it first: that request's export is the one to join.
   */
  swapRun(report: string, expected: string | undefined, next: RunSlot): Promise<boolean>;
  /** Whether the run link may start one more export in the current window (nothing is counted). */
  canStart(linkId: string, now: Date, limits: StartLimit): Promise<boolean>;
  /**
   * Counts one export start against a run link, in fixed windows of `windowMs`. False, and nothing
   * counted, when `limit` starts already fall in the current window.
   */
  takeStart(linkId: string, now: Date, limits: StartLimit): Promise<boolean>;
  isRevoked(linkId: string): Promise<boolean>;
  /** Revokes a run link for good (idempotent). */
  revoke(linkId: string, at: Date): Promise<void>;
}

/** The report's slot: the export that took it and when (its job status is written just after). */
export interface RunSlot {
  readonly exportId: string;
  readonly startedAt: string;
}

export interface StartLimit {
  readonly limit: number;
  readonly windowMs: number;
}

/** Revocation lookups remembered for a short while, so a status poll costs no ledger read. */
export const REVOCATION_CACHE_MS = 60_000;

/**
 * Remembers `isRevoked` answers for `maxAgeMs` (per container). Opening a link always asks the
 * ledger; polls, which come every few seconds, accept an answer up to a minute old.
 */
export class RevocationCache {
  private readonly answers = new Map<string, { revoked: boolean; at: number }>();

  constructor(
    private readonly ledger: Pick<RunLinkLedger, 'isRevoked'>,
    private readonly clock: Clock,
    private readonly maxAgeMs: number = REVOCATION_CACHE_MS,
  ) {}

  readonly isRevoked = async (linkId: string): Promise<boolean> => {
    const at = this.clock().getTime();
    const known = this.answers.get(linkId);
    if (known && at - known.at < this.maxAgeMs) return known.revoked;
    const revoked = await this.ledger.isRevoked(linkId);
    // Bounded: a container sees few links; forgetting all of them at once is cheap.
    if (this.answers.size > 1000) this.answers.clear();
    this.answers.set(linkId, { revoked, at });
    return revoked;
  };
}

const YEAR_MS = 365 * DAY_MS;

/** The export holding a report's slot; slots written before `startedAt` existed read as started long ago (their job status exists). */
const slotSchema = z.object({ exportId: z.string(), startedAt: z.string().catch(new Date(0).toISOString()) });
/** Starts counted in one window; anything else counts as none. */
const startsSchema = z.object({ count: z.number().int().nonnegative() });
const revokedSchema = z.object({ revokedAt: z.string() });

/**
 * Run links on the run ledger: each method is one conditional write (or one read), so it holds
 * across Lambda containers. Keys: `run-link/report/<report>` → `{ exportId }`;
 * `run-link/starts/<id>/<window>` → `{ count }` (expires with its window);
 * `run-link/revoked/<id>` → `{ revokedAt }` (kept a year: longer than any link lives).
 * An entry of another shape reads as absent, as entries of older releases did.
 */
export class LedgerRunLinkLedger implements RunLinkLedger {
  constructor(private readonly store: Ledger) {}

  async currentRun(report: string): Promise<RunSlot | undefined> {
    return (await this.slot(report).read()).value;
  }

  async swapRun(report: string, expected: string | undefined, next: RunSlot): Promise<boolean> {
    // One round: a lost swap means another request moved the slot, and its export is the one to join.
    const swapped = await this.slot(report).change((current) => (current?.exportId === expected ? next : undefined), { rounds: 1, lost: 'answer' });
    return swapped.outcome === 'written';
  }

  async canStart(linkId: string, now: Date, limits: StartLimit): Promise<boolean> {
    return ((await this.starts(linkId, windowOf(now, limits)).read()).value?.count ?? 0) < limits.limit;
  }

  async takeStart(linkId: string, now: Date, limits: StartLimit): Promise<boolean> {
    const window = windowOf(now, limits);
    const counted = await this.starts(linkId, window).change(
      (current) => {
        const count = current?.count ?? 0;
        return count >= limits.limit ? undefined : { count: count + 1 };
      },
      // Ten lost rounds means a burst on one token: refusing is the safe answer.
      { lost: 'answer', expiresAt: new Date((window + 2) * limits.windowMs) },
    );
    return counted.outcome === 'written';
  }

  async isRevoked(linkId: string): Promise<boolean> {
    return (await this.revoked(linkId).read()).version !== 0;
  }

  async revoke(linkId: string, at: Date): Promise<void> {
    // False means it was revoked already: the first revocation stands.
    await this.revoked(linkId).put({ revokedAt: at.toISOString() }, 0, { expiresAt: new Date(at.getTime() + YEAR_MS) });
  }

  private slot(report: string): LedgerRecord<RunSlot> {
    return ledgerRecord(this.store, ledgerKey('run-link', 'report', report), slotSchema, { what: `the run-link slot of report "${report}"`, invalid: 'absent' });
  }

  /** The counter of a link's starts in one window. */
  private starts(linkId: string, window: number): LedgerRecord<{ count: number }> {
    return ledgerRecord(this.store, ledgerKey('run-link', 'starts', linkId, String(window)), startsSchema, { what: `the starts of run link ${linkId}`, invalid: 'absent' });
  }

  private revoked(linkId: string): LedgerRecord<{ revokedAt: string }> {
    return ledgerRecord(this.store, ledgerKey('run-link', 'revoked', linkId), revokedSchema, { what: `the revocation of run link ${linkId}`, invalid: 'absent' });
  }
}

/** The number of the fixed window `now` falls in. */
function windowOf(now: Date, { windowMs }: StartLimit): number {
  return Math.floor(now.getTime() / windowMs);
}
