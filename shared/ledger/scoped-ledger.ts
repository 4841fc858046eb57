import type { Ledger, LedgerEntry, LedgerPutOptions } from './ledger';

/**
 * Entries that describe what is stored where: run leases, the `latest` pointer and the messages sent
 * for a run (a run id is unique only within its root). They belong to one storage root, so two buckets or prefixes sharing one ledger table must not see each other's.
 * Job status (random export ids), run links and failure notices are the stack's, not a root's.
 */
const SCOPED_KINDS = new Set(['run', 'latest', 'message']);

/** The storage root a ledger is scoped to: `s3://<bucket>/<prefix>` (slashes around the prefix ignored). */
export function storageScope(bucket: string, prefix: string | undefined): string {
  return `s3://${bucket}/${(prefix ?? '').replace(/^\/+|\/+$/g, '')}`;
}

/**
 * The ledger as one storage root sees it: the keys of runs and `latest` get the root in front
 * (`<kind>@<encoded root>/...`), so a run in one prefix never names, blocks or completes a run of
 * another prefix, while everything else is shared as before. With `--out` the ledger lives inside
 * the root (`<dir>/.ledger`) and needs no scope.
 */
export function scopedLedger(ledger: Ledger, scope: string): Ledger {
  const keyOf = (key: string): string => {
    const slash = key.indexOf('/');
    const kind = slash === -1 ? key : key.slice(0, slash);
    return SCOPED_KINDS.has(kind) ? `${kind}@${encodeURIComponent(scope)}${key.slice(kind.length)}` : key;
  };
  return {
    get: (key: string): Promise<LedgerEntry | undefined> => ledger.get(keyOf(key)),
    put: (key: string, value: unknown, expectedVersion: number, options?: LedgerPutOptions): Promise<boolean> =>
      ledger.put(keyOf(key), value, expectedVersion, options),
    describe: () => `${ledger.describe()} (entries of ${scope})`,
  };
}
