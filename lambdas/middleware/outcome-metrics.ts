import { MetricUnit, type Metrics } from '@aws-lambda-powertools/metrics';
import type { MiddlewareObj } from '@middy/core';
import type { MetricName } from '../../shared/core/names';

/** A count to add for an outcome. */
export type OutcomeCount = readonly [name: MetricName, count: number];

/** Metrics on the handler's outcome: `measure` says which counts an answer adds (flushed by the lifecycle). */
export function outcomeMetrics<R>(metrics: Metrics, measure: (response: R) => readonly OutcomeCount[]): MiddlewareObj<unknown, R> {
  return {
    after: (request) => {
      for (const [name, count] of measure(request.response as R)) metrics.addMetric(name, MetricUnit.Count, count);
    },
  };
}
