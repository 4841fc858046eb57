import { errorMessage, StorageError } from '../../core/errors';
import type { Log } from '../../core/logger';
import { ledgerKey, type Ledger } from '../../ledger/ledger';
import type { Storage } from '../../storage/storage';
import { JSON_CONTENT_TYPE, latestKey } from './layout';
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
  const key = ledgerKey('latest', pointer.report);
  const limit = new Date(now.getTime() + FUTURE_SKEW_MS).toISOString();
  let moved: boolean;
  for (let round = 0; ; round++) {
    if (round >= MAX_ROUNDS) throw new StorageError(`could not move latest of "${pointer.report}": the ledger ${ledger.describe()} kept changing`, { retryable: true });
    const entry = await ledger.get(key);
    let current = entry ? trusted(entry.value, limit, `the ledger's latest of "${pointer.report}"`, log) : undefined;
    // Before the ledger knew this report, latest.json was the record: start from it if it is sane.
    if (!entry) current = await readPublished(storage, pointer.report, limit, log);
    if (current && !isNewer(pointer, current)) {
      moved = current.runId === pointer.runId && current.manifest === pointer.manifest;
      break;
    }
    if (await ledger.put(key, pointer, entry?.version ?? 0)) {
      moved = true;
      break;
    }
  }
  await mirror(storage, ledger, key, pointer.report, log);
  if (!moved) log.info('latest.json stays on a newer run', { runId: pointer.runId });
  return moved;
}

/**
 * Writes latest.json from the ledger until both agree: a writer that lost a race rewrites it with
 * the newer value it then reads, so the last write is always the ledger's current pointer.
 */
async function mirror(storage: Storage, ledger: Ledger, key: string, report: string, log: Log): Promise<void> {
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const entry = await ledger.get(key);
    if (!entry) return;
    const parsed = latestPointerSchema.safeParse(entry.value);
    if (!parsed.success) return;
    const text = JSON.stringify(parsed.data, null, 2);
    const existing = await storage.getObject(latestKey(report));
    if (existing && Buffer.from(existing).toString('utf8') === text) return;
    await storage.putObject(latestKey(report), text, { contentType: JSON_CONTENT_TYPE });
    const after = await ledger.get(key);
    if (after?.version === entry.version) return;
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
  if (!parsed.success || Number.isNaN(Date.parse(parsed.data.generatedAt))) {
    log.warn(`${what} is not a valid pointer; treating it as absent, this run replaces it`);
    return undefined;
  }
  if (new Date(parsed.data.generatedAt).toISOString() > limit) {
    log.warn(`${what} is dated in the future; ignoring it so it cannot hold latest back`, {
      generatedAt: parsed.data.generatedAt,
      refusedAfter: limit,
    });
    return undefined;
  }
  return parsed.data;
}

/** Newer: a later start, or the same start and a later run id (a total order, so two runs agree). */
function isNewer(candidate: LatestPointer, current: LatestPointer): boolean {
  const a = new Date(candidate.generatedAt).getTime();
  const b = new Date(current.generatedAt).getTime();
  return a !== b ? a > b : candidate.runId > current.runId;
}
