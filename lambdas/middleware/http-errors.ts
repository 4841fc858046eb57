import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { Log } from '../../shared/core/logger';
import { errorAnswer } from '../../shared/http/http-errors';

/**
 * An error that escapes the router (an event it cannot read as an HTTP request) is answered
 * like the router's own, by its status (shared/http/http-errors.ts), never as a Lambda error, which
 * API Gateway would turn into a bare 500 without the request id to quote.
 */
export function httpErrors(log: Log): MiddlewareObj<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2> {
  return {
    onError: (request) => {
      const { event } = request;
      request.response = errorAnswer(request.error, { route: event.routeKey, requestId: event.requestContext.requestId, pathParameters: {} }, 'program', log);
    },
  };
}
