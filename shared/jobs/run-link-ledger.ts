/**
 * What run links need from the run ledger: three conditional writes and one read. Each method is
 * one atomic step, so two browsers opening links at the same moment cannot both start an export of
 * one report, and a token cannot exceed its start limit by racing itself.
 *
 * MemoryRunLinkLedger is the in-process implementation (tests, the local harness, one process);
 * a deployed stack needs an implementation on a store with conditional writes (see README).
 */
export interface RunLinkLedger {
  /** The export that holds the report's run-link slot (running, or the last one), if any. */
  currentRun(report: string): Promise<string | undefined>;
  /**
   * Points the report's slot at `next` only if it still points at `expected` (undefined: empty).
   * False when another request moved it first: that request's export is the one to join.
   */
  swapRun(report: string, expected: string | undefined, next: string): Promise<boolean>;
  /**
   * Counts one export start against a run link, in fixed windows of `windowMs`. False, and nothing
   * counted, when `limit` starts already fall in the current window.
   */
  takeStart(linkId: string, now: Date, limits: StartLimit): Promise<boolean>;
  isRevoked(linkId: string): Promise<boolean>;
  /** Revokes a run link for good (idempotent). */
  revoke(linkId: string, at: Date): Promise<void>;
}

export interface StartLimit {
  readonly limit: number;
  readonly windowMs: number;
}

export class MemoryRunLinkLedger implements RunLinkLedger {
  private readonly runs = new Map<string, string>();
  private readonly starts = new Map<string, number>();
  private readonly revoked = new Map<string, Date>();
  /** Reads served, so tests can assert what a request costs. */
  reads = 0;

  currentRun(report: string): Promise<string | undefined> {
    this.reads++;
    return Promise.resolve(this.runs.get(report));
  }

  swapRun(report: string, expected: string | undefined, next: string): Promise<boolean> {
    if (this.runs.get(report) !== expected) return Promise.resolve(false);
    this.runs.set(report, next);
    return Promise.resolve(true);
  }

  takeStart(linkId: string, now: Date, { limit, windowMs }: StartLimit): Promise<boolean> {
    const key = `${linkId}#${Math.floor(now.getTime() / windowMs)}`;
    const count = this.starts.get(key) ?? 0;
    if (count >= limit) return Promise.resolve(false);
    this.starts.set(key, count + 1);
    return Promise.resolve(true);
  }

  isRevoked(linkId: string): Promise<boolean> {
    this.reads++;
    return Promise.resolve(this.revoked.has(linkId));
  }

  revoke(linkId: string, at: Date): Promise<void> {
    if (!this.revoked.has(linkId)) this.revoked.set(linkId, at);
    return Promise.resolve();
  }
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
    private readonly now: () => Date = () => new Date(),
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
