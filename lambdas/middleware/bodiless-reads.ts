import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';

/**
 * A GET or HEAD is answered as one, whatever body came with it: the body is dropped before the
 * router reads the event. A web Request cannot carry a body on those methods, so the router's
 * conversion threw and every open route answered 500 to a GET with a body (anyone could fire the
 * 5xx alarm with one).
 */
export function bodilessReads(): MiddlewareObj<APIGatewayProxyEventV2> {
  return {
    before: (request) => {
      const { event } = request;
      const method = event.requestContext?.http?.method?.toUpperCase();
      if ((method !== 'GET' && method !== 'HEAD') || event.body === undefined) return;
      const { body: _dropped, ...rest } = event;
      request.event = { ...rest, isBase64Encoded: false };
    },
  };
}
