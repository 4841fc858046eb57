import { randomBytes } from 'node:crypto';
import { errorMessage, LeaseLostError, RunInProgressError, StorageError } from '../../core/errors';
import type { LedgerRecord } from '../../ledger/ledger-record';
import { notePublished, notePublishing } from './publishing-note';
import { entryExpiry, isHeld, LEASE_RENEW_MS, leaseMsOf, MAX_ROUNDS, runRecord, silentHolder, type LeaseTerms, type RunEntry, type RunName, type TableCopy } from './run-entry';

export type LeaseOutcome =
  | { readonly kind: 'acquired'; readonly lease: RunLease; readonly startedAt: Date; readonly debris: readonly string[]; readonly takenOver: boolean }
  | { readonly kind: 'complete'; readonly startedAt: Date; readonly manifestKey: string }
  /** An attempt died publishing: this one holds the run to finish the copies of the chosen manifest. */
  | { readonly kind: 'publishing'; readonly lease: RunLease; readonly startedAt: Date; readonly manifestKey: string; readonly copies: readonly TableCopy[]; readonly debris: readonly string[] };

/**
 * One attempt's lease on a run (report + run id), kept in the ledger. Taking it is the first thing
 * an attempt does; while it is live every other attempt of the run stops at once and writes
 * nothing. Every change is a compare-and-swap, so two attempts can never both believe they hold it.
 */
export class RunLease {
  private lost: Error | undefined;
  private heldGeneration = 1;
  /** Set once this attempt publishes the run (its manifest was chosen, or it took over a publishing run). */
  private publishingRun = false;
  /** Set once the run is noted among its report's runs publishing (publishing-note.ts): the lease takes it off again. */
  private noted = false;
  private timer: NodeJS.Timeout | undefined;
  private renewing: Promise<void> = Promise.resolve();

  private readonly record: LedgerRecord<RunEntry>;

  private constructor(
    private readonly terms: LeaseTerms,
    private readonly run: RunName,
    readonly attempt: string,
  ) {
    this.record = runRecord(terms.ledger, run, 'fail');
  }

  /** This attempt's fencing token (see the run entry's `generation`). */
  get generation(): number {
    return this.heldGeneration;
  }

  private get leaseMs(): number {
    return leaseMsOf(this.terms);
  }

  /**
   * Takes the lease: a new run, a run whose last attempt failed (released) or one whose holder
   * stopped renewing (expired: it crashed or froze). Throws RunInProgressError while another attempt
   * holds a live lease. A complete run is reported as such and not leased.
   */
  static async acquire(terms: LeaseTerms, run: RunName): Promise<LeaseOutcome> {
    const { clock, log, leaseWait } = terms;
    const lease = new RunLease(terms, run, `${clock().toISOString()}-${randomBytes(4).toString('hex')}`);
    for (let round = 0; round < MAX_ROUNDS; round++) {
      // The time of the compare-and-swap round deciding: the lease, the entry's expiry and the live check count from it.
      let now = clock();
      const taken = await lease.record.change(
        (current) => {
          now = clock();
          return lease.taking(current, now);
        },
        { rounds: MAX_ROUNDS, expiresAt: () => entryExpiry(now) },
      );
      if (taken.outcome === 'written') return lease.acquired(taken.value, taken.previous);
      // Kept: the run is complete, or another attempt holds a live lease on it.
      const current = taken.value!;
      if (current.status === 'complete' && current.manifestKey !== undefined) {
        return { kind: 'complete', startedAt: new Date(current.startedAt), manifestKey: current.manifestKey };
      }
      const lapse = leaseWait && silentHolder(current, now, lease.leaseMs);
      if (leaseWait && lapse !== undefined) {
        log.warn('the holder of this run stopped renewing its lease: waiting for it to lapse', { runId: run.runId, lapsesAt: current.leaseExpiresAt });
        await leaseWait(lapse);
        continue;
      }
      throw new RunInProgressError(
        `run "${run.runId}" of report "${run.report}" is in progress: another attempt holds its lease ` +
          `until ${current.leaseExpiresAt} (renewed while it runs). Nothing was written; try again after it ends.`,
      );
    }
    throw new StorageError(`could not take the lease on run "${run.runId}": the ledger ${terms.ledger.describe()} kept changing`, { retryable: true });
  }

  /**
   * The entry that gives this attempt the run: a new run, a run whose last attempt failed (released)
   * or one whose holder stopped renewing (expired), with the next generation. Undefined for a
   * complete run and for a live lease.
   */
  private taking(current: RunEntry | undefined, now: Date): RunEntry | undefined {
    if (!current) {
      const { report, runId } = this.run;
      return { report, runId, attempt: this.attempt, startedAt: now.toISOString(), leaseExpiresAt: this.expiry(now), status: 'running', generation: 1, keys: [] };
    }
    if (current.status === 'complete' && current.manifestKey !== undefined) return undefined;
    if (isHeld(current.status) && new Date(current.leaseExpiresAt) > now) return undefined;
    // A run that was publishing stays so: its manifest is chosen, the next holder only finishes the copies.
    const status = current.status === 'publishing' ? 'publishing' : 'running';
    return { ...current, attempt: this.attempt, leaseExpiresAt: this.expiry(now), status, generation: (current.generation ?? 1) + 1 };
  }

  /** The outcome of taking the run: the debris of the attempt taken over, if there was one. */
  private acquired(taken: RunEntry, previous: RunEntry | undefined): LeaseOutcome {
    this.heldGeneration = taken.generation ?? 1;
    if (!previous) return { kind: 'acquired', lease: this, startedAt: new Date(taken.startedAt), debris: [], takenOver: false };
    if (isHeld(previous.status)) {
      this.terms.log.warn('took over an expired lease: the previous attempt stopped renewing it', {
        runId: this.run.runId,
        previousAttempt: previous.attempt,
        expiredAt: previous.leaseExpiresAt,
      });
    }
    if (taken.status === 'publishing' && taken.manifestKey !== undefined) {
      this.publishingRun = true;
      this.noted = true;
      return { kind: 'publishing', lease: this, startedAt: new Date(previous.startedAt), manifestKey: taken.manifestKey, copies: taken.copies ?? [], debris: previous.keys };
    }
    return { kind: 'acquired', lease: this, startedAt: new Date(previous.startedAt), debris: previous.keys, takenOver: true };
  }

  /**
   * Renews the lease and records `addKeys` (objects about to be written) and drops `removeKeys`
   * (objects removed again). Throws LeaseLostError when another attempt has taken the run over.
   */
  renew(change: { addKeys?: readonly string[]; removeKeys?: readonly string[] } = {}): Promise<void> {
    // One renewal at a time: the heartbeat and the run's own renewals would only fight over versions.
    const next = this.renewing.then(() =>
      this.update((entry) => {
        const keys = new Set(entry.keys);
        for (const key of change.addKeys ?? []) keys.add(key);
        for (const key of change.removeKeys ?? []) keys.delete(key);
        return { ...entry, keys: [...keys].sort(), leaseExpiresAt: this.expiry(this.terms.clock()) };
      }),
    );
    this.renewing = next.catch(() => undefined);
    return next;
  }

  /** Renews the lease in the background until stopped; a failed renewal is kept and rethrown by check(). */
  startHeartbeat(intervalMs: number = Math.min(LEASE_RENEW_MS, this.leaseMs / 3)): void {
    this.timer = setInterval(() => {
      this.renew().catch((error: unknown) => {
        this.lost ??= error instanceof Error ? error : new Error(String(error));
      });
    }, intervalMs);
    // A heartbeat must never keep a finished command alive.
    this.timer.unref();
  }

  stopHeartbeat(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Resolves once no renewal is in flight (one the heartbeat began may still be writing after stopHeartbeat). */
  settled(): Promise<void> {
    return this.renewing;
  }

  /** Throws when a background renewal found the lease gone: the run must not publish. */
  check(): void {
    if (this.lost) throw this.lost instanceof LeaseLostError ? this.lost : new LeaseLostError(`the lease on run "${this.run.runId}" could not be renewed: ${errorMessage(this.lost)}`, { cause: this.lost });
  }

  /**
   * Chooses `manifestKey` as the run's and records the table files to copy: the fence of a run with
   * tables (a compare-and-swap that fails once another attempt holds the run). From here on the
   * holder, or whoever takes the run over, only copies `copies` and completes; the lease keeps
   * renewing meanwhile.
   */
  async publishing(manifestKey: string, copies: readonly TableCopy[]): Promise<void> {
    this.check();
    // Noted before it can be `publishing`, so a later run of the report finds it if it is cut off.
    if (copies.length > 0) {
      await notePublishing(this.terms, this.run, this.attempt);
      this.noted = true;
    }
    await this.renewing;
    await this.update((entry) => ({ ...entry, status: 'publishing', manifestKey, copies: [...copies], leaseExpiresAt: this.expiry(this.terms.clock()) }));
    this.publishingRun = true;
  }

  /** The run is complete: every later attempt returns its manifest instead of exporting again. */
  async complete(manifestKey: string): Promise<void> {
    this.stopHeartbeat();
    await this.renewing;
    await this.update((entry) => {
      const { copies: _copies, ...rest } = entry;
      return { ...rest, status: 'complete', manifestKey, keys: [], leaseExpiresAt: this.terms.clock().toISOString() };
    });
  }

  /**
   * Takes the complete run off its report's runs publishing, where this attempt noted it (or took
   * over a run noted there): last, once its staged files are removed, so a run cut off before this
   * leaves nothing staged behind.
   */
  async letNoteGo(): Promise<void> {
    if (this.noted) await notePublished(this.terms, this.run);
  }

  /**
   * Gives up a `publishing` run that can never be finished (its staged files expired): the run is
   * `released` without a chosen manifest, its recorded keys left as the debris a rerun removes.
   */
  async abandonPublishing(): Promise<void> {
    this.stopHeartbeat();
    await this.renewing;
    await this.update(({ manifestKey: _manifest, copies: _copies, ...entry }) => ({ ...entry, status: 'released', leaseExpiresAt: this.terms.clock().toISOString() }));
    if (this.noted) await notePublished(this.terms, this.run);
  }

  /**
   * A failed attempt gives the lease up at once (a retry need not wait for it to expire). Objects it
   * could not delete stay recorded for the next attempt. False when it no longer held the lease. A
   * run that was publishing stays `publishing` with its lease lapsed: the next attempt finishes it.
   */
  async release(remainingKeys: readonly string[], removedKeys: readonly string[]): Promise<boolean> {
    this.stopHeartbeat();
    await this.renewing;
    try {
      await this.update((entry) => {
        const keys = new Set(entry.keys);
        for (const key of removedKeys) keys.delete(key);
        for (const key of remainingKeys) keys.add(key);
        const status = entry.status === 'publishing' ? 'publishing' : 'released';
        return { ...entry, status, keys: [...keys].sort(), leaseExpiresAt: this.terms.clock().toISOString() };
      });
      return true;
    } catch (error) {
      if (error instanceof LeaseLostError) return false;
      throw error;
    }
  }

  /** True while the ledger still names this attempt as the holder (checked before deleting). */
  async held(): Promise<boolean> {
    return (await this.loss()) === undefined;
  }

  /**
   * Undefined while this attempt holds the run; else why not, as the error a stale attempt fails
   * with, and the manifest the ledger chose if the run is complete (which may be this attempt's own,
   * adopted by a later one: then its files must stay).
   */
  async loss(): Promise<{ error: LeaseLostError; publishedManifest: string | undefined } | undefined> {
    const current = (await this.record.read()).value;
    if (current?.attempt === this.attempt && isHeld(current.status)) return undefined;
    const chosen = current?.status === 'complete' || current?.status === 'publishing';
    return { error: this.lostError(current), publishedManifest: chosen ? current.manifestKey : undefined };
  }

  /** Changes the run entry while this attempt holds it; throws LeaseLostError once it does not. */
  private async update(change: (entry: RunEntry) => RunEntry): Promise<void> {
    await this.record.change(
      (current) => {
        if (!current || current.attempt !== this.attempt || !isHeld(current.status)) throw this.lostError(current);
        return change(current);
      },
      { rounds: MAX_ROUNDS, expiresAt: () => entryExpiry(this.terms.clock()) },
    );
  }

  /** The error of an attempt that no longer holds the run, naming who does (or what became of it). */
  private lostError(current: RunEntry | undefined): LeaseLostError {
    const run = `run "${this.run.runId}" of report "${this.run.report}"`;
    const mine = `this attempt (generation ${this.generation})`;
    let to: string;
    if (!current) to = 'nobody: the run\'s ledger entry is gone (expired or removed)';
    else if (current.attempt === this.attempt) to = `itself: it already ${current.status === 'complete' ? 'completed' : 'gave up'} the run`;
    else {
      const other = `the attempt of generation ${current.generation ?? 1} (${current.attempt})`;
      to = current.status === 'complete' ? `${other}, which published the run`
        : current.status === 'released' ? `${other}, which failed and gave it up`
        : current.status === 'publishing' ? `${other}, which is publishing the run`
        : `${other}, which holds it now`;
    }
    const outcome = this.publishingRun
      ? 'it stalled past its lease while copying the run\'s tables and stops here: the run publishes the files of the manifest the ledger chose, copied to the same keys by whoever holds it'
      : 'it stalled past its lease and stops here: nothing it wrote is published (its own files are removed; they never replaced a published file)';
    return new LeaseLostError(`${mine} lost its lease on ${run} to ${to}; ${outcome}`);
  }

  private expiry(now: Date): string {
    return new Date(now.getTime() + this.leaseMs).toISOString();
  }
}
