import { MetricUnit, type Metrics } from '@aws-lambda-powertools/metrics';
import type { MiddlewareObj, Request } from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { METRIC } from '../../shared/core/names';

/**
 * The export API's one custom series: refused run links, counted for the alarm that watches for
 * someone trying tokens (exporter-alarms in the stack). Published with the invocation's other metrics
 * by Powertools' `logMetrics` (lifecycle.ts); the answers of every route by class are API Gateway's
 * own metrics. Counts the answers of http-errors.ts too.
 */
export function runLinkRefusals(metrics: Metrics): MiddlewareObj<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2> {
  const count = ({ event, response }: Request<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>): void => {
    if (response?.statusCode === 403 && event.routeKey.includes(' /run/')) metrics.addMetric(METRIC.RunLinkRefused, MetricUnit.Count, 1);
  };
  return { after: count, onError: count };
}
