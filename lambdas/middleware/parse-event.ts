import type { MiddlewareObj } from '@middy/core';
import type * as z from 'zod';

/**
 * The event parsed at the door, before the handler sees it: the handler gets the schema's output.
 * The schemas are built on Powertools' event schemas (`@aws-lambda-powertools/parser/schemas`).
 * zod parses rather than the parser's own middleware: its ParseError drops the fields a union's
 * options refused ("Failed to parse schema"), and its error handler runs in `onError`, where a
 * throw skips the lifecycle's own (the metrics would not be flushed). A ZodError names every field.
 */
export function parseEvent<S extends z.ZodType>(schema: S): MiddlewareObj<z.output<S>> {
  return {
    before: (request) => {
      request.event = schema.parse(request.event);
    },
  };
}
