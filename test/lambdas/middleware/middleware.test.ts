import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { describe, expect, it, vi } from 'vitest';
import * as z from 'zod';
import { createPowertools, withLifecycle } from '../../../lambdas/lifecycle';
import { bodilessReads } from '../../../lambdas/middleware/bodiless-reads';
import { httpErrors } from '../../../lambdas/middleware/http-errors';
import { outcomeMetrics } from '../../../lambdas/middleware/outcome-metrics';
import { parseEvent } from '../../../lambdas/middleware/parse-event';
import { runLinkRefusals } from '../../../lambdas/middleware/run-link-refusals';
import { LinkTokenError, StorageError } from '../../../shared/core/errors';
import { silentLog } from '../../../shared/core/logger';
import { METRIC } from '../../../shared/core/names';
import { createApiRouter, type ApiDependencies } from '../../../shared/http/router';
import { httpApiEvent, lambdaContext } from '../../support/lambda-events';

/** The lifecycle's Powertools with the metrics kept in the test: what each middleware adds, by name. */
function recorded() {
  const powertools = createPowertools();
  powertools.metrics.setThrowOnEmptyMetrics(false);
  vi.spyOn(powertools.metrics, 'publishStoredMetrics').mockReturnValue(powertools.metrics);
  const added = vi.spyOn(powertools.metrics, 'addMetric');
  const single = vi.fn();
  vi.spyOn(powertools.metrics, 'singleMetric').mockReturnValue({ addMetric: single } as unknown as ReturnType<typeof powertools.metrics.singleMetric>);
  return { powertools, counted: () => added.mock.calls.map(([name, , value]) => [name, value]), single };
}

const context = lambdaContext('middleware');

describe('the middlewares of lambdas/middleware/', () => {
  it('parse-event hands the handler the parsed event and refuses another with the fields that are wrong', async () => {
    const { powertools } = recorded();
    const schema = z.object({ reports: z.array(z.string()).min(1) });
    const handler = withLifecycle(powertools, (event: z.output<typeof schema>) => Promise.resolve(event.reports.length), [parseEvent(schema)]);
    await expect(handler({ reports: ['a', 'b'], extra: true }, context)).resolves.toBe(2);
    await expect(handler({ reports: [] }, context)).rejects.toThrow(/reports/);
  });

  it('outcome-metrics counts what the answer says', async () => {
    const { powertools, counted } = recorded();
    const handler = withLifecycle(powertools, (n: number) => Promise.resolve(n), [
      outcomeMetrics(powertools.metrics, (n: number) => (n > 0 ? [[METRIC.DefinitionInvalid, n]] : [])),
    ]);
    await handler(3, context);
    await handler(0, context);
    expect(counted()).toEqual([[METRIC.DefinitionInvalid, 3]]);
  });

  it('http-errors answers an error that escapes the router by its status, and run-link-refusals counts a refused run link, and nothing else', async () => {
    const { powertools, counted } = recorded();
    const api = (route: () => Promise<APIGatewayProxyStructuredResultV2>) =>
      withLifecycle(powertools, (_event: APIGatewayProxyEventV2) => route(), [runLinkRefusals(powertools.metrics), httpErrors(silentLog)]);
    const event = httpApiEvent('GET', 'GET /run/{token}', '/run/abc', { pathParameters: { token: 'abc' } });

    const failed = await api(() => Promise.reject(new StorageError('the ledger answered 500')))(event, context);
    expect(failed.statusCode).toBe(500);
    expect(JSON.parse(String(failed.body))).toEqual({ message: 'internal error; quote this request id to the operators', requestId: event.requestContext.requestId });
    const refused = await api(() => Promise.reject(new LinkTokenError('expired', { publicMessage: 'invalid or expired link' })))(event, context);
    expect({ status: refused.statusCode, body: JSON.parse(String(refused.body)) as unknown }).toEqual({ status: 403, body: { message: 'invalid or expired link' } });
    const link = httpApiEvent('GET', 'GET /links/{token}', '/links/abc', { pathParameters: { token: 'abc' } });
    await api(() => Promise.resolve({ statusCode: 403, body: '' }))(link, context);
    expect(counted()).toEqual([[METRIC.RunLinkRefused, 1]]);
  });

  // Before: a GET with a body made the router throw before any route ran, and every open route answered 500.
  it('the export API answers a GET with a body as the GET without one', async () => {
    const { powertools } = recorded();
    const router = createApiRouter({ log: silentLog } as unknown as ApiDependencies);
    const handler = withLifecycle(powertools, (event: APIGatewayProxyEventV2, ctx) => router.resolve(event, ctx), [bodilessReads(), httpErrors(silentLog)]);
    const plain = httpApiEvent('GET', 'GET /exports/{id}', '/exports/bad!id', { pathParameters: { id: 'bad!id' } });
    for (const body of [{ body: 'x', isBase64Encoded: false }, { body: 'eA==', isBase64Encoded: true }]) {
      const answer = await handler({ ...plain, ...body }, context);
      expect({ status: answer.statusCode, body: answer.body }).toEqual({ status: 400, body: JSON.stringify({ message: 'the export id is malformed', issues: [{ path: 'id', message: 'expected the id returned by POST /exports' }] }) });
    }
  });
});
