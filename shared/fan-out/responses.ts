import { createHash } from 'node:crypto';
import type { Storage } from '../storage/storage';

/**
 * The planning API's answers, handed from the fan-out's workers to its assembler through storage.
 * A worker's client fetches through `recordingFetch`: every complete successful answer is stored as
 * one object named by the hash of its request (method, URL, body). The assembler's client fetches
 * through `replayingFetch`: an answer a worker stored is read from storage, anything else is asked
 * of the API. So the assembler runs the one export pipeline over exactly the answers the workers
 * got, and a missing part (a worker that failed) only makes it slower, never wrong.
 *
 * Only answers that can be the API's are handed over (`isApiAnswer`): a 200 that is not JSON (a
 * proxy's maintenance page) or holds none of the API's envelopes is not stored, and one found stored
 * (by an older worker, or damaged) is asked of the API again. Stored and replayed, it would fail the
 * assembler, and every retry of it, with the same contract error while the API itself answers well.
 *
 * Nor is an answer replayed that the worker's client did not accept: a valid envelope may hold a
 * record the client refuses (`{"data":[{"id":null}]}`), and the client checks it only after the fetch
 * stored it (pages are read ahead, so the check can come later still). A worker that drained all its
 * pages writes the hashes of its answers to `acceptedKey` (`accept`); the assembler replays only
 * answers some worker accepted, and asks the API for every other one.
 */

interface StoredAnswer {
  readonly status: number;
  readonly headers: [string, string][];
  /** The body, base64. */
  readonly body: string;
}

export function requestHash(input: Parameters<typeof fetch>[0], init?: RequestInit): string {
  const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
  const method = init?.method ?? 'GET';
  const body = typeof init?.body === 'string' ? init.body : '';
  return createHash('sha256').update(`${method} ${url} ${body}`).digest('hex');
}

/** The keys under which the API's answers hold what they carry: lists and records, and a board's statuses. */
const ENVELOPE_KEYS = ['data', 'Data', 'parentStatuses', 'childrenStatuses'] as const;

/**
 * Whether a 2xx body can be one of the planning API's answers: JSON, an object, with one of its
 * envelopes holding a list or an object. The client checks every record after this; an answer of
 * the API refused here is only asked for once more by the assembler, so the check may be coarse.
 */
export function isApiAnswer(body: Uint8Array): boolean {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(body).toString('utf8').replace(/^\uFEFF/, ''));
  } catch {
    return false;
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const envelope = value as Record<string, unknown>;
  return ENVELOPE_KEYS.some((key) => typeof envelope[key] === 'object' && envelope[key] !== null);
}

/** Where a worker lists the answers its client accepted: beside the answers, not among them. */
export function acceptedKey(prefix: string, worker: string): string {
  return `${prefix.replace(/\/$/, '')}.accepted/${worker}.json`;
}

export interface RecordingFetch {
  readonly fetch: typeof fetch;
  /** Records that the client accepted every answer stored so far (call it once all pages were drained). */
  accept(worker: string): Promise<void>;
}

/**
 * A fetch that stores each complete 2xx answer of the API's shape under `prefix` before handing it
 * on. Any other answer is handed on unstored: the client fails on it as it would without the fan-out.
 */
export function recordingFetch(storage: Storage, prefix: string, inner: typeof fetch = fetch): RecordingFetch {
  const stored = new Set<string>();
  const record = async (input: Parameters<typeof fetch>[0], init?: RequestInit): Promise<Response> => {
    const response = await inner(input, init);
    if (!response.ok) return response;
    const body = new Uint8Array(await response.arrayBuffer());
    if (isApiAnswer(body)) {
      const answer: StoredAnswer = { status: response.status, headers: [...response.headers.entries()], body: Buffer.from(body).toString('base64') };
      const hash = requestHash(input, init);
      await storage.putObject(`${prefix}${hash}.json`, JSON.stringify(answer), { contentType: 'application/json' });
      stored.add(hash);
    }
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
  const accept = async (worker: string): Promise<void> => {
    await storage.putObject(acceptedKey(prefix, worker), JSON.stringify([...stored]), { contentType: 'application/json' });
  };
  return { fetch: record, accept };
}

/** The hashes of every answer some worker's client accepted (a damaged list counts as none). */
async function acceptedAnswers(storage: Storage, prefix: string): Promise<Set<string>> {
  const accepted = new Set<string>();
  for (const key of await storage.listKeys(acceptedKey(prefix, '').replace(/\.json$/, ''))) {
    try {
      const hashes = JSON.parse(Buffer.from((await storage.getObject(key)) ?? []).toString('utf8')) as unknown;
      if (Array.isArray(hashes)) for (const hash of hashes) if (typeof hash === 'string') accepted.add(hash);
    } catch {
      // Not a list a worker wrote whole: its answers are asked of the API again.
    }
  }
  return accepted;
}

export interface ReplayingFetch {
  readonly fetch: typeof fetch;
  /** Answers read from storage, and requests that went to the API. */
  stats(): { readonly replayed: number; readonly fetched: number };
}

/** A fetch that answers from what the workers stored under `prefix` and accepted, else (nothing stored, not accepted, or nothing usable) asks the API. */
export function replayingFetch(storage: Storage, prefix: string, inner: typeof fetch = fetch): ReplayingFetch {
  let replayed = 0;
  let fetched = 0;
  let accepted: Promise<Set<string>> | undefined;
  const replay = async (input: Parameters<typeof fetch>[0], init?: RequestInit): Promise<Response> => {
    const hash = requestHash(input, init);
    accepted ??= acceptedAnswers(storage, prefix);
    const stored = (await accepted).has(hash) ? readStoredAnswer(await storage.getObject(`${prefix}${hash}.json`)) : undefined;
    if (stored) {
      replayed += 1;
      return new Response(stored.body, { status: stored.status, headers: stored.headers });
    }
    fetched += 1;
    return inner(input, init);
  };
  return { fetch: replay, stats: () => ({ replayed, fetched }) };
}

/** A stored answer as it is replayed, or undefined when there is none or it is not one the API could have sent. */
function readStoredAnswer(bytes: Uint8Array | undefined): { status: number; headers: [string, string][]; body: Uint8Array } | undefined {
  if (!bytes) return undefined;
  let stored: Partial<StoredAnswer>;
  try {
    stored = JSON.parse(Buffer.from(bytes).toString('utf8')) as Partial<StoredAnswer>;
  } catch {
    return undefined;
  }
  const { status, headers, body } = stored;
  if (typeof status !== 'number' || status < 200 || status > 299 || typeof body !== 'string' || !Array.isArray(headers)) return undefined;
  const decoded = new Uint8Array(Buffer.from(body, 'base64'));
  return isApiAnswer(decoded) ? { status, headers, body: decoded } : undefined;
}
