// @tier slow
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLinkToken } from '../../../shared/links/link-token';
import { createRunLinkToken } from '../../../shared/links/run-link-token';
import { createUnsubscribeToken } from '../../../shared/links/unsubscribe-token';
import { LINK_KEYS, startLambdaHarness, type LambdaHarness } from '../../support/lambda-harness';
import { httpApiEvent, lambdaContext } from '../../support/lambda-events';

/**
 * The export API serves only the route API Gateway authorised (its route key), and answers a GET
 * with a body as the GET. Before: crafted events on the open routes whose path named an IAM-only
 * route were served as it (status reads with download links, export starts), and a GET with a body
 * answered 500 on every open route.
 */
const REPORT = { name: 'guarded', datasets: { risks: {} }, formats: ['csv'] };
const NOW = new Date();
const DAY = 86_400_000;

describe('the export API routes by what API Gateway authorised', () => {
  let h: LambdaHarness;
  beforeAll(async () => {
    h = await startLambdaHarness({ guarded: REPORT });
  });
  afterAll(async () => {
    await h?.close();
  });

  const send = (method: 'GET' | 'POST', routeKey: string, path: string, options: Parameters<typeof httpApiEvent>[3] = {}) =>
    h.apiHandler(httpApiEvent(method, routeKey, path, options), lambdaContext('export-api'));
  const started = () => h.lambda.invocations.length;

  const OPEN_ROUTE_KEYS = ['GET /links/{token}', 'GET /run/{token}', 'GET /run/{token}/status', 'GET /run/{token}/download', 'GET /unsubscribe/{token}'];

  it.each(OPEN_ROUTE_KEYS)('refuses a path naming an IAM-only route under the open route key %s', async (routeKey) => {
    const before = started();
    const status = await send('GET', routeKey, '/exports/0123456789abcdef', { pathParameters: { token: '0123456789abcdef' } });
    expect({ status: status.statusCode, body: status.body }).toEqual({ status: 404, body: JSON.stringify({ message: 'no such route' }) });
    const start = await send('POST', routeKey.replace(/^GET/, 'POST'), '/exports', { body: JSON.stringify({ report: 'guarded' }) });
    expect({ status: start.statusCode, body: start.body }).toEqual({ status: 404, body: JSON.stringify({ message: 'no such route' }) });
    expect(started()).toBe(before);
  });

  it('refuses an IAM-only route key whose path names another route, and serves it when they agree', async () => {
    const other = await send('POST', 'POST /exports', '/run/abc', { body: 'page=x', pathParameters: { token: 'abc' } });
    expect(other.statusCode).toBe(404);
    const status = await send('GET', 'GET /exports/{id}', '/links/abc', { pathParameters: { id: 'abc' } });
    expect(status.statusCode).toBe(404);
    const served = await send('POST', 'POST /exports', '/exports', { body: JSON.stringify({ report: 'guarded' }) });
    expect(served.statusCode).toBe(202);
    const id = (JSON.parse(String(served.body)) as { id: string }).id;
    expect((await send('GET', 'GET /exports/{id}', `/exports/${id}`, { pathParameters: { id } })).statusCode).toBe(200);
    await h.lambda.settled();
  });

  it('answers a GET with a body on every open route as the GET without one', async () => {
    const expiresAt = new Date(NOW.getTime() + DAY);
    const paths: Record<string, string> = {
      'GET /links/{token}': `/links/${createLinkToken({ runKey: 'guarded/dt=2026-11-23/run=x', file: 'risks.csv', expiresAt }, LINK_KEYS.current, NOW)}`,
      'GET /run/{token}': `/run/${createRunLinkToken({ report: 'guarded', expiresAt }, LINK_KEYS.current, NOW).token}`,
      'GET /run/{token}/status': `/run/${createRunLinkToken({ report: 'guarded', expiresAt }, LINK_KEYS.current, NOW).token}/status`,
      'GET /run/{token}/download': `/run/${createRunLinkToken({ report: 'guarded', expiresAt }, LINK_KEYS.current, NOW).token}/download`,
      'GET /unsubscribe/{token}': `/unsubscribe/${createUnsubscribeToken({ report: 'guarded', address: 'ann@example.test' }, LINK_KEYS.current, NOW)}`,
    };
    for (const routeKey of OPEN_ROUTE_KEYS) {
      const path = paths[routeKey]!;
      const token = path.split('/')[2]!;
      const plain = await send('GET', routeKey, path, { pathParameters: { token } });
      // Each route answers its own way (the run page 200, the link and the download a redirect or refusal), never a 400 for the token or a 500.
      expect([plain.statusCode, routeKey]).not.toEqual(expect.arrayContaining([400]));
      expect(plain.statusCode, routeKey).toBeLessThan(500);
      for (const body of [{ body: '{"x":1}' }, { body: '{"x":1}', base64: true }]) {
        const withBody = await send('GET', routeKey, path, { pathParameters: { token }, ...body });
        // The run pages carry a fresh page token each time; everything else is the same answer.
        const stable = (text: unknown) => String(text).replace(/name="page" value="[^"]+"/g, 'name="page" value=""');
        expect({ status: withBody.statusCode, body: stable(withBody.body) }, routeKey).toEqual({ status: plain.statusCode, body: stable(plain.body) });
      }
    }
  });
});
