import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import { Tracer } from '@aws-lambda-powertools/tracer';
import { captureLambdaHandler } from '@aws-lambda-powertools/tracer/middleware';
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { createLogger } from '../shared/core/logger';
import { METRICS_NAMESPACE, SERVICE_NAME } from '../shared/core/names';

/**
 * The one lifecycle of every handler: Powertools' logger, metrics and tracer, built once per
 * container, and the middy middlewares that add the Lambda context to every log line, clear the
 * request's keys afterwards (also when the handler throws), flush the metrics (with a cold-start
 * metric) and trace the invocation. Handlers only translate; they never write this wiring again.
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
): (event: E, context: Context) => Promise<R> {
  const wrapped = middy(handler)
    .use(captureLambdaHandler(powertools.tracer))
    .use(logMetrics(powertools.metrics, { captureColdStartMetric: true }))
    .use(injectLambdaContext(powertools.logger, { resetKeys: true }));
  return (event, context) => wrapped(event, context);
}
