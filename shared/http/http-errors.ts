import { HttpError } from '@aws-lambda-powertools/event-handler/http';
import { errorMessage, ExporterError } from '../core/errors';
import type { Log } from '../core/logger';
import { readerFormat } from '../core/format';
import { pageLocale } from './page-language';
import { renderRunPage, renderRunStatus, type PageResponse } from './run-page';

/** Whom a route answers: programs get JSON, people (the run link's pages) get a page. */
export type Audience = 'program' | 'person';

const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' };

export function json(statusCode: number, body: unknown, headers: Record<string, string> = {}): PageResponse {
  return { statusCode, headers: { ...JSON_HEADERS, ...headers }, body: JSON.stringify(body) };
}

/** The status an error is answered with: our errors carry theirs, the router's own too; anything else is ours to fix. */
export function httpStatusOf(error: unknown): number {
  if (error instanceof ExporterError) return error.httpStatus;
  if (error instanceof HttpError) return error.statusCode;
  return 500;
}

interface FailedRequest {
  readonly route: string;
  readonly requestId: string;
  readonly pathParameters: Readonly<Record<string, string | undefined>>;
  /** The browser's languages: a page for a person is in the first we have words for. */
  readonly acceptLanguage?: string | undefined;
}

/**
 * What a failed request is answered, by the error's status. A 4xx is the caller's to fix: it is told
 * the public message of our error or the message of the router's (and the issues, each with its
 * path). A 5xx is ours: the caller gets only the request id to quote, the operators the log. People
 * get the run page instead, never JSON and never internals: the refusal for a request the router
 * refused (a malformed link), else "try again" with the status.
 */
export function errorAnswer(error: unknown, request: FailedRequest, audience: Audience, log: Log): PageResponse {
  const statusCode = httpStatusOf(error);
  const where = { route: request.route, requestId: request.requestId, error: errorMessage(error) };
  const refused = statusCode < 500 ? toldCaller(error) : undefined;
  if (audience === 'person') {
    // Nothing of the link is known here (it may be what failed): the browser's language.
    const locale = pageLocale(undefined, request.acceptLanguage);
    if (refused && error instanceof HttpError) {
      log.warn('request refused', where);
      return { ...renderRunPage({ state: 'refused' }, '', { locale }), statusCode };
    }
    log.error('run link request failed', where);
    const view = { state: 'failed', exportId: '', title: readerFormat(locale, 'UTC').t('runPage.failedTitle'), locale } as const;
    const page = request.route.endsWith('/status') ? renderRunStatus(view) : renderRunPage(view, request.pathParameters.token ?? '');
    return { ...page, statusCode };
  }
  if (refused) {
    log.warn('request refused', where);
    return json(statusCode, refused);
  }
  log.error('request failed', { ...where, error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) });
  return json(statusCode, { message: 'internal error; quote this request id to the operators', requestId: request.requestId });
}

/** What a caller is told of its own mistake: our error's public message or the router's error's message, with the issues either carries. */
function toldCaller(error: unknown): { message: string; issues?: unknown } | undefined {
  if (error instanceof ExporterError) return { message: error.publicMessage, ...('issues' in error && { issues: error.issues }) };
  if (error instanceof HttpError) return { message: error.message, ...(error.details?.issues !== undefined && { issues: error.details.issues }) };
  return undefined;
}
