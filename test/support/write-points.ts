import type { Ledger } from '../../shared/ledger/ledger';
import type { ObjectUpload, Storage } from '../../shared/storage/storage';

/**
 * The moments of a run's writes where a test freezes an attempt: once a file is claimed, before its upload opens (`open`),
 * once an upload is stored (`stored`), before and after the manifest is put (`manifest`, `complete`:
 * the ledger's compare-and-swap that chooses the run's manifest comes next), before each copy of a
 * staged table file into its table prefix (`publish`, once the manifest is chosen), and before
 * `latest` moves.
 */
export type WritePoint = 'open' | 'stored' | 'manifest' | 'complete' | 'publish' | 'latest';

type Pause = (point: WritePoint, key: string) => Promise<void>;

const MANIFEST = /\/manifest(\.g\d+)?\.json$/;

/**
 * The storage and the ledger of a run with `pause` awaited at every write point: a decorator of the
 * two ports, so the run's own code carries no test hook. A test freezes an attempt there, lets
 * another take the run over, then resumes it.
 */
export function pausingAt<T extends { storage: Storage; ledger: Ledger }>(backend: T, pause: Pause): T {
  return { ...backend, storage: pausingStorage(backend.storage, pause), ledger: pausingLedger(backend.ledger, pause) };
}

function pausingStorage(storage: Storage, pause: Pause): Storage {
  return new Proxy(storage, {
    get(target, prop) {
      if (prop === 'openUpload') return (key: string, meta: Parameters<Storage['openUpload']>[1]) => pausingUpload(target.openUpload(key, meta), pause);
      if (prop === 'copyObject') {
        return async (from: string, to: string, labels?: Readonly<Record<string, string>>) => {
          await pause('publish', to);
          return target.copyObject(from, to, labels);
        };
      }
      if (prop === 'putObject') {
        return async (key: string, ...rest: Parameters<Storage['putObject']> extends [string, ...infer R] ? R : never) => {
          const manifest = MANIFEST.test(key);
          if (manifest) await pause('manifest', key);
          const stored = await target.putObject(key, ...rest);
          if (manifest) await pause('complete', key);
          return stored;
        };
      }
      const value = Reflect.get(target, prop, target) as unknown;
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/** An upload that pauses once it is stored, before the run goes on. */
function pausingUpload(upload: ObjectUpload, pause: Pause): ObjectUpload {
  let done: Promise<Awaited<ObjectUpload['done']>> | undefined;
  return {
    stream: upload.stream,
    // Made when the run waits for it, so an upload nobody waits for leaves no promise to reject unseen.
    get done() {
      done ??= upload.done.then(async (object) => {
        await pause('stored', object.key);
        return object;
      });
      return done;
    },
    abort: (reason) => upload.abort(reason),
  };
}

/**
 * A ledger that pauses before `latest` moves, and right after the run's entry records a key it is
 * about to write (the claim before an upload opens: `open`).
 */
function pausingLedger(ledger: Ledger, pause: Pause): Ledger {
  let latestReached = false;
  const claimed = new Set<string>();
  const afterClaim = async (key: string, value: unknown) => {
    if (!key.startsWith('run/') || typeof value !== 'object' || value === null || !('keys' in value) || !Array.isArray(value.keys)) return;
    const added = (value.keys as string[]).filter((k) => !claimed.has(k));
    for (const k of added) claimed.add(k);
    for (const k of added.filter((k) => !MANIFEST.test(k))) await pause('open', k);
  };
  const beforeLatest = async (key: string) => {
    if (latestReached || !key.startsWith('latest/')) return;
    latestReached = true;
    await pause('latest', key);
  };
  return {
    get: async (key) => {
      await beforeLatest(key);
      return ledger.get(key);
    },
    put: async (key, value, expectedVersion, options) => {
      await beforeLatest(key);
      const stored = await ledger.put(key, value, expectedVersion, options);
      if (stored) await afterClaim(key, value);
      return stored;
    },
    describe: () => ledger.describe(),
  };
}
