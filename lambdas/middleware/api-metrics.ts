import { MetricUnit, type Metrics } from '@aws-lambda-powertools/metrics';
import type { MiddlewareObj, Request } from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { apiStatusMetric, METRIC } from '../../shared/core/names';

/**
 * One metric per answer class and route, so refused links and bad requests show on a dashboard, and
 * refused run links on their own, without the route dimension: the alarm watches that one series
 * for someone trying tokens (exporter-alarms in the stack). Counts the answers of http-errors.ts too.
 */
export function apiMetrics(metrics: Metrics): MiddlewareObj<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2> {
  const count = (request: Request<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>): void => {
    const { event, response } = request;
    if (response === undefined || response === null) return;
    const statusCode = response.statusCode ?? 200;
    if (statusCode === 403 && event.routeKey.includes(' /run/')) {
      metrics.singleMetric().addMetric(METRIC.RunLinkRefused, MetricUnit.Count, 1);
    }
    metrics.addDimension('route', event.routeKey);
    metrics.addMetric(apiStatusMetric(statusCode), MetricUnit.Count, 1);
  };
  return { after: count, onError: count };
}
