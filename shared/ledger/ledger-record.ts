import type * as z from 'zod';
import { StorageError } from '../core/errors';
import type { Ledger, LedgerPutOptions } from './ledger';

/**
 * One typed entry of the ledger: its key, the zod schema of its value, and the one compare-and-swap
 * loop every writer of the ledger uses (read → parse → decide → write on the version read → read and
 * decide again when another writer got there first). Job status, suppressions, run links, message
 * claims, the owners' notices, `latest` and the run lease all change their entries through it, so a
 * bounded retry, what a lost race answers and what an invalid entry does are decided here once.
 */
export interface LedgerRecordOptions {
  /** What the entry holds, for errors: `the status of export job abc12345`. */
  readonly what: string;
  /**
   * A stored value the schema refuses: `fail` (the default) throws a StorageError that is not
   * retryable, for entries only this code writes; `absent` reads it as no value (its version is kept,
   * so the next change replaces it), for entries that may be left by an older release or by hand;
   * a function is told the problem first (to log a warning), then reads it as absent.
   */
  readonly invalid?: 'fail' | 'absent' | ((problem: string) => void);
}

/** The value read (undefined: none, or one read as absent) and its version (0: no entry). */
export interface RecordRead<T> {
  readonly value: T | undefined;
  readonly version: number;
}

export interface ChangeOptions<T, L extends LostAnswer = 'fail'> {
  /** Rounds of read, decide and compare-and-swap before giving up (default 10). */
  readonly rounds?: number;
  /** When the ledger may forget the entry (DynamoDB TTL), fixed or from the value written. */
  readonly expiresAt?: Date | ((value: T) => Date);
  /**
   * When every round lost to another writer: `fail` (the default) throws a retryable StorageError;
   * `answer` resolves `{ outcome: 'lost' }`, for callers to whom losing is an answer (one attempt
   * claims a message, one run link takes a start).
   */
  readonly lost?: L;
}
export type LostAnswer = 'fail' | 'answer';

/** The change was written: `value` is stored as `version`; `previous` is what it replaced. */
export interface Written<T> {
  readonly outcome: 'written';
  readonly value: T;
  readonly previous: T | undefined;
  readonly version: number;
}
/** `decide` left the entry as it is: `value` is what it saw (as of `version`). */
export interface Kept<T> {
  readonly outcome: 'kept';
  readonly value: T | undefined;
  readonly version: number;
}
/** Every round lost to another writer (only with `lost: 'answer'`). */
export interface Lost {
  readonly outcome: 'lost';
}
export type Changed<T, L extends LostAnswer = 'fail'> = Written<T> | Kept<T> | (L extends 'answer' ? Lost : never);

/**
 * Decides the next value from the current one (undefined: none) and its version (0: no entry);
 * undefined leaves the entry as it is. Called once per round, so it must not act, only decide; it may
 * throw to stop (a lease that is no longer held).
 */
export type Decide<T> = (current: T | undefined, version: number) => T | undefined | Promise<T | undefined>;

export interface LedgerRecord<T> {
  readonly key: string;
  read(): Promise<RecordRead<T>>;
  /** Reads, decides and writes by compare-and-swap, again while other writers win, at most `rounds` times. */
  change<L extends LostAnswer = 'fail'>(decide: Decide<T>, options?: ChangeOptions<T, L>): Promise<Changed<T, L>>;
  /**
   * One compare-and-swap without a read: stores `value` only if the entry is still at
   * `expectedVersion` (0: only if there is none). For a first write (`create`) and for putting back
   * a value over one's own write; everything that decides from the current value uses change().
   */
  put(value: T, expectedVersion: number, options?: LedgerPutOptions): Promise<boolean>;
}

const DEFAULT_ROUNDS = 10;

/** The entry under `key`, typed by `schema`; every value written is parsed by it first. */
export function ledgerRecord<T>(ledger: Ledger, key: string, schema: z.ZodType<T>, options: LedgerRecordOptions): LedgerRecord<T> {
  const read = async (): Promise<RecordRead<T>> => {
    const entry = await ledger.get(key);
    if (entry === undefined) return { value: undefined, version: 0 };
    const parsed = schema.safeParse(entry.value);
    if (parsed.success) return { value: parsed.data, version: entry.version };
    const problem = `${options.what} in ${ledger.describe()} is not valid: ${parsed.error.issues[0]?.message ?? 'invalid'}`;
    if (options.invalid === undefined || options.invalid === 'fail') throw new StorageError(problem);
    if (options.invalid !== 'absent') options.invalid(problem);
    return { value: undefined, version: entry.version };
  };

  const put = (value: T, expectedVersion: number, putOptions?: LedgerPutOptions): Promise<boolean> =>
    ledger.put(key, schema.parse(value), expectedVersion, putOptions);

  const change = async <L extends LostAnswer = 'fail'>(decide: Decide<T>, changeOptions: ChangeOptions<T, L> = {}): Promise<Changed<T, L>> => {
    const { rounds = DEFAULT_ROUNDS, expiresAt } = changeOptions;
    for (let round = 0; round < rounds; round++) {
      const current = await read();
      const decided = await decide(current.value, current.version);
      if (decided === undefined) return { outcome: 'kept', ...current };
      const value = schema.parse(decided);
      const expiry = typeof expiresAt === 'function' ? expiresAt(value) : expiresAt;
      if (await ledger.put(key, value, current.version, expiry && { expiresAt: expiry })) {
        return { outcome: 'written', value, previous: current.value, version: current.version + 1 };
      }
    }
    if (changeOptions.lost === 'answer') return { outcome: 'lost' } as Changed<T, L>;
    throw new StorageError(`could not change ${options.what}: the ledger ${ledger.describe()} kept changing`, { retryable: true });
  };

  return { key, read, change, put };
}
