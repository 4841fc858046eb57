import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import { Tracer } from '@aws-lambda-powertools/tracer';
import { captureLambdaHandler } from '@aws-lambda-powertools/tracer/middleware';
import middy, { type MiddlewareObj } from '@middy/core';
import type { Context } from 'aws-lambda';
import { createLogger } from '../shared/core/logger';
import { METRICS_NAMESPACE, SERVICE_NAME } from '../shared/core/names';

/**
 * The one lifecycle of every handler: Powertools' logger, metrics and tracer, built once per
 * container, and the middy middlewares that add the Lambda context to every log line, clear the
 * request's keys afterwards (also when the handler throws), flush the metrics (with a cold-start
 * metric) and trace the invocation. A handler adds its own middlewares (lambdas/middleware/: what
 * parses its event, what it measures, how its errors are answered) as a list, and only translates.
 */
export interface Powertools {
  readonly logger: ReturnType<typeof createLogger>;
  readonly metrics: Metrics;
  readonly tracer: Tracer;
}

export function createPowertools(): Powertools {
  return {
    logger: createLogger(),
    metrics: new Metrics({ namespace: METRICS_NAMESPACE, serviceName: SERVICE_NAME }),
    tracer: new Tracer({ serviceName: SERVICE_NAME }),
  };
}

export function withLifecycle<E, R>(
  powertools: Powertools,
  handler: (event: E, context: Context) => Promise<R>,
  middlewares: readonly MiddlewareObj<E, R>[] = [],
): (event: unknown, context: Context) => Promise<R> {
  // No early timeout of middy's: the export keeps its own margin before Lambda's limit
  // (exportDeadline) to report a failure, and middy's timer, 5 ms before the limit, could only cut that
  // report short on a slow invocation, ending the same way Lambda's own timeout does.
  const wrapped = middy(handler, { timeoutEarlyInMillis: 0 })
    .use(captureLambdaHandler(powertools.tracer))
    .use(logMetrics(powertools.metrics, { captureColdStartMetric: true }))
    .use(injectLambdaContext(powertools.logger, { resetKeys: true }))
    // After the lifecycle's: their `after` and `onError` run after these, so metrics a middleware
    // adds are flushed and an error a middleware answers is still traced and logged with the request's keys.
    .use([...middlewares]);
  // Lambda hands over whatever it was given: a handler of AWS's own events parses them first
  // (middleware/parse-event.ts); the export API's router reads API Gateway's event itself.
  return (event, context) => wrapped(event as E, context);
}
