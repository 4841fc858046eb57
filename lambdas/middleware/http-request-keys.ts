import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import type { Logger } from '@aws-lambda-powertools/logger';

/** The request's id and route on every log line of the request (the lifecycle clears them afterwards). */
export function httpRequestKeys(logger: Pick<Logger, 'appendKeys'>): MiddlewareObj<APIGatewayProxyEventV2> {
  return {
    before: ({ event }) => {
      logger.appendKeys({ requestId: event.requestContext.requestId, route: event.routeKey });
    },
  };
}
