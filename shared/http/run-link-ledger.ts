import type { Clock } from '../core/clock';
import { ledgerKey, type Ledger } from '../ledger/ledger';

/**
 * What run links need from the run ledger: three conditional writes and one read. Each method is
 * one atomic step, so two browsers opening links at the same moment cannot both start an export of
 * one report, and a token cannot exceed its start limit by racing itself.
 *
 * LedgerRunLinkLedger implements it on the run ledger (shared/ledger/: DynamoDB in the Lambdas, a
 * directory locally), next to the job status it reads.
 */
export interface RunLinkLedger {
  /** The export that holds the report's run-link slot (running, or the last one), if any. */
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
    private readonly now: Clock,
    private readonly maxAgeMs: number = REVOCATION_CACHE_MS,
  ) {}

  readonly isRevoked = async (linkId: string): Promise<boolean> => {
    const at = this.now().getTime();
    const known = this.answers.get(linkId);
    if (known && at - known.at < this.maxAgeMs) return known.revoked;
    const revoked = await this.ledger.isRevoked(linkId);
    // Bounded: a container sees few links; forgetting all of them at once is cheap.
    if (this.answers.size > 1000) this.answers.clear();
    this.answers.set(linkId, { revoked, at });
    return revoked;
  };
}

/** Rounds of read-compare-write before a conditional write gives up (another writer kept winning). */
const MAX_CAS_ROUNDS = 10;
const YEAR_MS = 365 * 86_400_000;

/**
 * Run links on the run ledger: each method is one conditional write (or one read), so it holds
 * across Lambda containers. Keys: `run-link/report/<report>` → `{ exportId }`;
 * `run-link/starts/<id>/<window>` → `{ count }` (expires with its window);
 * `run-link/revoked/<id>` → `{ revokedAt }` (kept a year: longer than any link lives).
 */
export class LedgerRunLinkLedger implements RunLinkLedger {
  constructor(private readonly store: Ledger) {}

  async currentRun(report: string): Promise<RunSlot | undefined> {
    return slotOf((await this.store.get(ledgerKey('run-link', 'report', report)))?.value);
  }

  async swapRun(report: string, expected: string | undefined, next: RunSlot): Promise<boolean> {
    const entry = await this.store.get(ledgerKey('run-link', 'report', report));
    if (slotOf(entry?.value)?.exportId !== expected) return false;
    return this.store.put(ledgerKey('run-link', 'report', report), { exportId: next.exportId, startedAt: next.startedAt }, entry?.version ?? 0);
  }

  async canStart(linkId: string, now: Date, { limit, windowMs }: StartLimit): Promise<boolean> {
    const window = Math.floor(now.getTime() / windowMs);
    return countOf((await this.store.get(ledgerKey('run-link', 'starts', linkId, String(window))))?.value) < limit;
  }

  async takeStart(linkId: string, now: Date, { limit, windowMs }: StartLimit): Promise<boolean> {
    const window = Math.floor(now.getTime() / windowMs);
    const counter = ledgerKey('run-link', 'starts', linkId, String(window));
    const expiresAt = new Date((window + 2) * windowMs);
    for (let round = 0; round < MAX_CAS_ROUNDS; round++) {
      const entry = await this.store.get(counter);
      const count = countOf(entry?.value);
      if (count >= limit) return false;
      if (await this.store.put(counter, { count: count + 1 }, entry?.version ?? 0, { expiresAt })) return true;
    }
    // Ten lost rounds means a burst on one token: refusing is the safe answer.
    return false;
  }

  async isRevoked(linkId: string): Promise<boolean> {
    return (await this.store.get(ledgerKey('run-link', 'revoked', linkId))) !== undefined;
  }

  async revoke(linkId: string, at: Date): Promise<void> {
    // False means it was revoked already: the first revocation stands.
    await this.store.put(ledgerKey('run-link', 'revoked', linkId), { revokedAt: at.toISOString() }, 0, { expiresAt: new Date(at.getTime() + YEAR_MS) });
  }
}

function slotOf(value: unknown): RunSlot | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { exportId, startedAt } = value as { exportId?: unknown; startedAt?: unknown };
  if (typeof exportId !== 'string') return undefined;
  // Slots written before `startedAt` existed read as started long ago: their job status exists.
  return { exportId, startedAt: typeof startedAt === 'string' ? startedAt : new Date(0).toISOString() };
}

function countOf(value: unknown): number {
  const count = typeof value === 'object' && value !== null ? (value as { count?: unknown }).count : undefined;
  return typeof count === 'number' && Number.isInteger(count) && count >= 0 ? count : 0;
}
