import { createHash } from 'node:crypto';
import type { Storage } from '../storage/storage';

/**
 * The planning API's answers, handed from the fan-out's workers to its assembler through storage.
 * A worker's client fetches through `recordingFetch`: every complete successful answer is stored as
 * one object named by the hash of its request (method, URL, body). The assembler's client fetches
 * through `replayingFetch`: an answer a worker stored is read from storage, anything else is asked
 * of the API. So the assembler runs the one export pipeline over exactly the answers the workers
 * got, and a missing part (a worker that failed) only makes it slower, never wrong.
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

/** A fetch that stores each complete 2xx answer under `prefix` before handing it on. */
export function recordingFetch(storage: Storage, prefix: string, inner: typeof fetch = fetch): typeof fetch {
  return (async (input: Parameters<typeof fetch>[0], init?: RequestInit) => {
    const response = await inner(input, init);
    if (!response.ok) return response;
    const body = new Uint8Array(await response.arrayBuffer());
    const stored: StoredAnswer = { status: response.status, headers: [...response.headers.entries()], body: Buffer.from(body).toString('base64') };
    await storage.putObject(`${prefix}${requestHash(input, init)}.json`, JSON.stringify(stored), { contentType: 'application/json' });
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  });
}

export interface ReplayingFetch {
  readonly fetch: typeof fetch;
  /** Answers read from storage, and requests that went to the API. */
  stats(): { readonly replayed: number; readonly fetched: number };
}

/** A fetch that answers from what the workers stored under `prefix`, else asks the API. */
export function replayingFetch(storage: Storage, prefix: string, inner: typeof fetch = fetch): ReplayingFetch {
  let replayed = 0;
  let fetched = 0;
  const replay = async (input: Parameters<typeof fetch>[0], init?: RequestInit): Promise<Response> => {
    const bytes = await storage.getObject(`${prefix}${requestHash(input, init)}.json`);
    if (bytes) {
      replayed += 1;
      const stored = JSON.parse(Buffer.from(bytes).toString('utf8')) as StoredAnswer;
      return new Response(Buffer.from(stored.body, 'base64'), { status: stored.status, headers: stored.headers });
    }
    fetched += 1;
    return inner(input, init);
  };
  return { fetch: replay, stats: () => ({ replayed, fetched }) };
}
