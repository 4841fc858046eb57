/**
 * One fetch for several runs over the same data: the slices of a report (one per audience) ask the
 * planning API for overlapping parts of it, and each answer is fetched once. Wraps `fetch` below the
 * client, so retries, paging, limits and parsing stay exactly those of a single run; a slice's run
 * is an ordinary run that finds some answers already here.
 *
 * Only complete successful answers (2xx) are kept, keyed by method, URL and body (never headers: the
 * cache lives for one job, with one set of credentials). Two requests for the same answer at once
 * share one fetch. Past `maxBytes` nothing more is kept and requests go to the API again: slower,
 * never wrong.
 */
export interface ResponseCache {
  readonly fetch: typeof fetch;
  /** Answers served without a request, requests made, and bytes kept. */
  stats(): { readonly hits: number; readonly misses: number; readonly bytes: number };
}

interface Kept {
  readonly status: number;
  readonly statusText: string;
  readonly headers: [string, string][];
  readonly body: Uint8Array;
}

/** 256 MiB: the slices of a portfolio report; a bigger export is better not sliced in one job. */
export const DEFAULT_RESPONSE_CACHE_BYTES = 256 * 1024 * 1024;

export function createResponseCache(inner: typeof fetch = fetch, maxBytes = DEFAULT_RESPONSE_CACHE_BYTES): ResponseCache {
  const kept = new Map<string, Promise<Kept | undefined>>();
  let hits = 0;
  let misses = 0;
  let bytes = 0;

  const cachedFetch = async (input: Parameters<typeof fetch>[0], init?: RequestInit): Promise<Response> => {
    const key = await keyOf(input, init);
    const pending = kept.get(key);
    if (pending) {
      const answer = await pending;
      if (answer) {
        hits += 1;
        return responseOf(answer);
      }
    }
    misses += 1;
    const response = await inner(input, init);
    if (!response.ok || bytes >= maxBytes) return response;
    const reading = readAll(response);
    kept.set(key, reading);
    const answer = await reading;
    if (!answer) {
      kept.delete(key);
      return response;
    }
    bytes += answer.body.byteLength;
    return responseOf(answer);
  };
  return { fetch: cachedFetch, stats: () => ({ hits, misses, bytes }) };
}

async function keyOf(input: Parameters<typeof fetch>[0], init?: RequestInit): Promise<string> {
  const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
  const method = init?.method ?? (input instanceof Request ? input.method : 'GET');
  const body = typeof init?.body === 'string' ? init.body : init?.body === undefined || init.body === null ? '' : await new Response(init.body).text();
  return `${method} ${url} ${body}`;
}

/** The whole answer, or undefined when its body could not be read (the caller then gets the error). */
async function readAll(response: Response): Promise<Kept | undefined> {
  try {
    const body = new Uint8Array(await response.clone().arrayBuffer());
    return { status: response.status, statusText: response.statusText, headers: [...response.headers.entries()], body };
  } catch {
    return undefined;
  }
}

function responseOf(answer: Kept): Response {
  return new Response(answer.body.slice(), { status: answer.status, statusText: answer.statusText, headers: answer.headers });
}
