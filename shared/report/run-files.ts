/**
 * The files of a run as the store holds them: entries for the manifest, the check that what is stored
 * is what was written (before any manifest is published), and the clean-up of a failed attempt.
 */
import { errorMessage, StorageError } from '../core/errors';
import type { Log } from '../core/logger';
import type { ObjectUpload, Storage, StoredObject } from '../storage/storage';
import { CONTENT_TYPES } from './layout';
import { manifestSchema, type Manifest, type ManifestFile } from './manifest';
import type { RunLease } from './run-lease';

/** Checks every listed file against what the store holds now (size and sha256, re-read). */
export async function verifyStored(
  storage: Storage,
  files: readonly { readonly key: string; readonly bytes: number; readonly sha256: string }[],
): Promise<void> {
  for (const file of files) {
    const { key } = file;
    const actual = await storage.hashObject(key);
    if (!actual || actual.bytes !== file.bytes || actual.sha256 !== file.sha256) {
      throw new StorageError(
        `${storage.describe(key)} is not what this run wrote (${actual ? `${actual.bytes} bytes, sha256 ${actual.sha256.slice(0, 12)}…` : 'missing'}; ` +
          `expected ${file.bytes} bytes, sha256 ${file.sha256.slice(0, 12)}…); the manifest was not published`,
        // Another attempt of the run writes its files again.
        { retryable: true },
      );
    }
  }
}

/** The run's manifest if one is stored and every file it lists is intact; else undefined. */
export async function verifiedManifest(storage: Storage, runFolder: string, key: string): Promise<Manifest | undefined> {
  const bytes = await storage.getObject(key);
  if (!bytes) return undefined;
  try {
    const manifest = manifestSchema.parse(JSON.parse(Buffer.from(bytes).toString('utf8')));
    await verifyStored(storage, [
      ...manifest.files.map((f) => ({ ...f, key: `${runFolder}/${f.path}` })),
      ...(manifest.tables ?? []).map((f) => ({ ...f, key: `${manifest.report}/${f.path}` })),
    ]);
    return manifest;
  } catch {
    return undefined;
  }
}

export function fileEntry(object: StoredObject, runFolder: string, format: 'xlsx' | 'csv', rows: Record<string, number>): ManifestFile {
  return {
    path: object.key.slice(object.key.lastIndexOf(`${runFolder}/`) + runFolder.length + 1),
    format,
    contentType: CONTENT_TYPES[format],
    bytes: object.bytes,
    sha256: object.sha256,
    rows: { ...rows },
  };
}

/**
 * A failed attempt removes what it wrote itself, and only while it still holds the lease: after a
 * takeover the same keys belong to the attempt that took over. Never the whole run folder.
 */
export async function cleanUp(
  storage: Storage,
  lease: RunLease,
  runFolder: string,
  open: Set<ObjectUpload>,
  mine: Set<string>,
  error: unknown,
  log: Log,
): Promise<void> {
  const reason = error instanceof Error ? error : new Error(String(error));
  log.warn('export failed; removing what this attempt wrote', { runFolder, error: reason.message, objects: mine.size });
  await Promise.allSettled([...open].map((u) => u.abort(reason)));
  const keys = [...mine];
  try {
    if (!(await lease.held())) {
      log.warn('this attempt no longer holds the run; leaving its files to the attempt that does', { runFolder });
      return;
    }
    if (keys.length > 0) await storage.deleteObjects(keys);
    await lease.release([], keys);
  } catch (cleanupError) {
    // The original failure is what the user must see; what is left stays recorded as debris.
    log.error('could not remove the partial run', { runFolder, error: errorMessage(cleanupError) });
    await lease.release(keys, []).catch(() => false);
  }
}
