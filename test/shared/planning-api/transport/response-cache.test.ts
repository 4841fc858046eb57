import { describe, expect, it } from 'vitest';
import { createResponseCache } from '../../../../shared/planning-api/transport/response-cache';

/** An API answering `GET <path>` with the path and a per-path call count; /fail answers 503. */
function countingApi(): { fetch: typeof fetch; calls: string[] } {
  const calls: string[] = [];
  const api = (input: Parameters<typeof fetch>[0], init?: RequestInit): Promise<Response> => {
    const url = input instanceof Request ? input.url : input instanceof URL ? input.href : input;
    calls.push(`${init?.method ?? 'GET'} ${url} ${typeof init?.body === 'string' ? init.body : ''}`);
    if (url.endsWith('/fail')) return Promise.resolve(new Response('busy', { status: 503 }));
    return Promise.resolve(new Response(JSON.stringify({ url, n: calls.length }), { status: 200, headers: { 'content-type': 'application/json' } }));
  };
  return { fetch: api, calls };
}

describe('response cache', () => {
  it('fetches an answer once, for requests one after another and at the same time, keeping status, headers and body', async () => {
    const api = countingApi();
    const cache = createResponseCache(api.fetch);
    const first = await cache.fetch('https://api.test/a');
    const [second, third] = await Promise.all([cache.fetch('https://api.test/a'), cache.fetch('https://api.test/a')]);
    expect(api.calls).toEqual(['GET https://api.test/a ']);
    for (const answer of [first, second, third]) {
      expect(answer.status).toBe(200);
      expect(answer.headers.get('content-type')).toBe('application/json');
      expect(await answer.json()).toEqual({ url: 'https://api.test/a', n: 1 });
    }
    expect(cache.stats()).toMatchObject({ hits: 2, misses: 1 });
  });

  it('tells requests apart by method, URL and body, and never keeps a failed answer', async () => {
    const api = countingApi();
    const cache = createResponseCache(api.fetch);
    await cache.fetch('https://api.test/a?page=1');
    await cache.fetch('https://api.test/a?page=2');
    await cache.fetch('https://api.test/q', { method: 'POST', body: '{"ids":[1]}' });
    await cache.fetch('https://api.test/q', { method: 'POST', body: '{"ids":[2]}' });
    expect((await cache.fetch('https://api.test/fail')).status).toBe(503);
    expect((await cache.fetch('https://api.test/fail')).status).toBe(503);
    expect(api.calls).toHaveLength(6);
  });

  it('keeps nothing more past its byte limit, and still answers', async () => {
    const api = countingApi();
    const cache = createResponseCache(api.fetch, 10);
    await cache.fetch('https://api.test/a');
    await cache.fetch('https://api.test/b');
    expect(await (await cache.fetch('https://api.test/b')).json()).toMatchObject({ url: 'https://api.test/b' });
    expect(api.calls).toEqual(['GET https://api.test/a ', 'GET https://api.test/b ', 'GET https://api.test/b ']);
  });
});
