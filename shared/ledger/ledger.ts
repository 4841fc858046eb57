import type { LedgerKind } from '../core/names';

/**
 * The ledger port: a small store of JSON documents with compare-and-swap writes, the one place where
 * concurrent attempts of an export agree on who owns a run, which run `latest` points at and what
 * state an on-demand job is in. Object storage cannot do this (s3rver and older S3 clients have no
 * conditional writes), so every decision that two writers could race on goes through here first.
 *
 * Two adapters: DynamoDB (the Lambdas; ConditionExpression on a version attribute) and a local
 * directory (the export command with --out; exclusive lock files plus atomic renames).
 */
export interface LedgerEntry {
  /** The stored JSON value; callers validate it (the ledger does not know its shape). */
  readonly value: unknown;
  /** Increases by one on every write; 0 is never stored (it means "absent" in put). */
  readonly version: number;
}

export interface LedgerPutOptions {
  /** After this the entry may be removed (DynamoDB TTL): old leases and jobs expire on their own. */
  readonly expiresAt?: Date;
}

export interface Ledger {
  /** The entry under `key`, read strongly consistent, or undefined when there is none. */
  get(key: string): Promise<LedgerEntry | undefined>;
  /**
   * Stores `value` under `key` as version `expectedVersion + 1`, but only if the stored version is
   * still `expectedVersion` (0: only if there is no entry). False when another writer got there
   * first: re-read and decide again. Never overwrites blindly.
   */
  put(key: string, value: unknown, expectedVersion: number, options?: LedgerPutOptions): Promise<boolean>;
  /** A human-readable location for messages, e.g. `./out/.ledger` or `dynamodb:table`. */
  describe(): string;
}

/** Ledger keys are `<kind>/<parts...>`; parts are URI-encoded so a report name cannot forge another key. */
export function ledgerKey(kind: LedgerKind, ...parts: readonly string[]): string {
  return [kind, ...parts.map((p) => encodeURIComponent(p))].join('/');
}
