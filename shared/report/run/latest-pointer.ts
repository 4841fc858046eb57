import { errorMessage } from '../../core/errors';
import type { Log } from '../../core/logger';
import { ledgerKey, type Ledger } from '../../ledger/ledger';
import { ledgerRecord, type LedgerRecord } from '../../ledger/ledger-record';
import type { Storage } from '../../storage/storage';
import { JSON_CONTENT_TYPE, latestKey } from '../manifest/layout';
import { latestPointerSchema, type LatestPointer } from '../manifest/manifest';

/**
 * Clocks of different machines disagree a little; a pointer further ahead than this is not trusted
 * (it was written by a wrong clock or by hand) and would otherwise freeze `latest` for good.
 */
export const FUTURE_SKEW_MS = 5 * 60_000;
const MAX_ROUNDS = 20;

export interface PublishLatestInput {
  readonly storage: Storage;
  readonly ledger: Ledger;
  readonly pointer: LatestPointer;
  readonly now: Date;
  readonly log: Log;
}

/**
 * Moves `latest` of a report to `pointer` if that is newer (by generatedAt, then run id) than what
 * the ledger holds, by compare-and-swap in the ledger, then publishes `latest.json` for S3 readers.
 * The ledger decides; latest.json only mirrors it, so two runs finishing together cannot move it
 * backward. A pointer that is unreadable or dated in the future is ignored with a warning and
 * replaced. Returns whether `latest` now names this run.
 */
export async function publishLatest(input: PublishLatestInput): Promise<boolean> {
  const { storage, ledger, pointer, now, log } = input;
  const record = latestRecord(ledger, pointer.report, log);
  const limit = new Date(now.getTime() + FUTURE_SKEW_MS).toISOString();
  // The pointer the last round decided against (the ledger's, or latest.json's before the ledger knew the report).
  let current: LatestPointer | undefined;
  const changed = await record.change(
    async (stored, version) => {
      // Before the ledger knew this report, latest.json was the record: start from it if it is sane.
      current = version === 0 ? await readPublished(storage, pointer.report, limit, log) : stored && notAhead(stored, limit, `the ledger's latest of "${pointer.report}"`, log);
      return current && !isNewer(pointer, current) ? undefined : pointer;
    },
    { rounds: MAX_ROUNDS },
  );
  const moved = changed.outcome === 'written' || (current?.runId === pointer.runId && current.manifest === pointer.manifest);
  await mirror(storage, record, pointer.report, log);
  if (!moved) log.info('latest.json stays on a newer run', { runId: pointer.runId });
  return moved;
}

/** The ledger's `latest` of a report; a pointer that is not valid is replaced, with a warning. */
function latestRecord(ledger: Ledger, report: string, log: Log): LedgerRecord<LatestPointer> {
  return ledgerRecord(ledger, ledgerKey('latest', report), latestPointerSchema, {
    what: `the latest run of "${report}"`,
    invalid: () => log.warn(`the ledger's latest of "${report}" is not a valid pointer; treating it as absent, this run replaces it`),
  });
}

/**
 * Writes latest.json from the ledger until both agree: a writer that lost a race rewrites it with
 * the newer value it then reads, so the last write is always the ledger's current pointer.
 */
async function mirror(storage: Storage, record: LedgerRecord<LatestPointer>, report: string, log: Log): Promise<void> {
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const { value, version } = await record.read();
    if (value === undefined) return;
    const text = JSON.stringify(value, null, 2);
    const existing = await storage.getObject(latestKey(report));
    if (existing && Buffer.from(existing).toString('utf8') === text) return;
    await storage.putObject(latestKey(report), text, { contentType: JSON_CONTENT_TYPE });
    if ((await record.read()).version === version) return;
  }
  log.warn('latest.json kept changing while it was published; the ledger holds the current pointer', { report });
}

/** latest.json as published, or undefined (with a warning) when it is missing, unreadable or dated ahead. */
export async function readPublished(storage: Storage, report: string, limit: string, log: Log): Promise<LatestPointer | undefined> {
  let bytes: Uint8Array | undefined;
  try {
    bytes = await storage.getObject(latestKey(report));
  } catch (error) {
    log.warn('latest.json could not be read; treating it as absent', { report, error: errorMessage(error) });
    return undefined;
  }
  if (!bytes) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(bytes).toString('utf8'));
  } catch (error) {
    log.warn('latest.json is not JSON (empty or cut short); treating it as absent, this run replaces it', {
      report,
      bytes: bytes.byteLength,
      error: errorMessage(error),
    });
    return undefined;
  }
  return trusted(value, limit, `latest.json of "${report}"`, log);
}

function trusted(value: unknown, limit: string, what: string, log: Log): LatestPointer | undefined {
  const parsed = latestPointerSchema.safeParse(value);
  if (!parsed.success) {
    log.warn(`${what} is not a valid pointer; treating it as absent, this run replaces it`);
    return undefined;
  }
  return notAhead(parsed.data, limit, what, log);
}

/** The pointer, unless its date is not one or lies beyond `limit` (then undefined, with a warning). */
function notAhead(pointer: LatestPointer, limit: string, what: string, log: Log): LatestPointer | undefined {
  if (Number.isNaN(Date.parse(pointer.generatedAt))) {
    log.warn(`${what} is not a valid pointer; treating it as absent, this run replaces it`);
    return undefined;
  }
  if (new Date(pointer.generatedAt).toISOString() > limit) {
    log.warn(`${what} is dated in the future; ignoring it so it cannot hold latest back`, {
      generatedAt: pointer.generatedAt,
      refusedAfter: limit,
    });
    return undefined;
  }
  return pointer;
}

/** Newer: a later start, or the same start and a later run id (a total order, so two runs agree). */
function isNewer(candidate: LatestPointer, current: LatestPointer): boolean {
  const a = new Date(candidate.generatedAt).getTime();
  const b = new Date(current.generatedAt).getTime();
  return a !== b ? a > b : candidate.runId > current.runId;
}
