import { randomUUID } from 'node:crypto';
import { BadRequestError, ForbiddenError, isAPIGatewayProxyEventV2, NotFoundError, Router } from '@aws-lambda-powertools/event-handler/http';
import type { HttpMethod, Middleware, RequestContext } from '@aws-lambda-powertools/event-handler/types';
import * as z from 'zod';
import type { Ledger } from '../ledger/ledger';
import { unsubscribeAction, unsubscribePage } from './unsubscribe';
import type { Clock } from '../core/clock';
import { resolveLink } from '../links/link-redirect';
import { LINK_TOKEN_PUBLIC_MESSAGE, type LinkVerificationKeys } from '../links/link-token';
import type { PresignGet } from '../links/presign';
import type { Storage } from '../storage/storage';
import { errorMessage } from '../core/errors';
import type { Log } from '../core/logger';
import { manifestSchema } from '../report/manifest/manifest';
import { EXPORT_ID_PATTERN, type JobStatusStore } from '../job/status/job-status';
import type { JobLauncher } from '../job/request';
import type { DefinitionCatalog } from '../definitions/catalog';
import { configuredDefinition, resolveDefinition, type InlinePolicy } from '../job/stages/resolve-definition';
import { createRunPageToken, verifyRunPageToken } from '../links/run-page-token';
import { DEFAULT_REDIRECT_TTL_SECONDS } from '../links/link-redirect';
import { findRunDownload, showRun, startRunLink, viewRunLink, type PageReader, type RunLinkDependencies, type RunView } from './run-link';
import { pageLocale } from './page-language';
import { errorAnswer, json } from './http-errors';
import { renderRunPage, renderRunStatus, type PageResponse } from './run-page';
import { claimReportRun } from './report-run';

export interface ApiDependencies {
  readonly definitions: DefinitionCatalog;
  readonly jobs: JobStatusStore;
  readonly launcher: JobLauncher;
  readonly storage: Storage;
  readonly presign: PresignGet;
  readonly linkKeys: () => Promise<LinkVerificationKeys>;
  /** Public base URL of this API, for status URLs. */
  readonly apiBaseUrl: string;
  readonly log: Log;
  /** Whether (and how) inline definitions are accepted; default: off. */
  readonly inline?: InlinePolicy;
  /** The door's clock (core/clock.ts). */
  readonly clock: Clock;
  readonly newId?: () => string;
  /** Lifetime of the download links in a status answer. */
  readonly presignedSeconds?: number;
  /** The ledger of the report's unsubscribed recipients (`/unsubscribe/{token}`); without it those routes are not registered. */
  readonly suppressions?: Ledger;
  /** Run links (`GET /run/{token}`); without them those routes are not registered. */
  readonly runLinks?: Pick<RunLinkDependencies, 'ledger' | 'isRevoked' | 'reuseMinutes' | 'startLimit' | 'staleAfterMs'>;
}

const startExportSchema = z.strictObject({
  report: z.string().min(1).max(64).optional(),
  overrides: z.record(z.string(), z.unknown()).optional(),
  definition: z.record(z.string(), z.unknown()).optional(),
});

/**
 * The export API on the Powertools router: start an export (202, the work runs asynchronously
 * because reports take longer than API Gateway's 29 seconds), read its status with download links,
 * follow an e-mail link, the run links' pages and the unsubscribe link; the run links' and the
 * unsubscribe routes only when their dependencies are given. Each route takes the router's request
 * context and throws the router's error classes (or ours); the one error handler answers each by its
 * own status (http-errors.ts), as JSON to programs or as the run page to people. A HEAD request is
 * answered as its GET (a link scanner's HEAD must not do more than its GET could). A request is served
 * only by the route API Gateway authorised (authorisedRoute).
 */
export function createApiRouter(deps: ApiDependencies): Router {
  const app = new Router();
  app.use(authorisedRoute(deps.log));
  app.route((reqCtx) => startExport(reqCtx, deps), { method: 'POST', path: '/exports' });
  app.route((reqCtx) => exportStatus(reqCtx, deps), { method: READ, path: '/exports/:id' });
  const tokens = [wellFormedToken];
  app.route((reqCtx) => followLink(reqCtx, deps), { method: READ, path: '/links/:token', middleware: tokens });
  const runDeps = runLinkDeps(deps);
  if (runDeps) {
    app.route((reqCtx) => runPage(reqCtx, deps, runDeps), { method: READ, path: '/run/:token', middleware: tokens });
    app.route((reqCtx) => startFromRunPage(reqCtx, deps, runDeps), { method: 'POST', path: '/run/:token', middleware: tokens });
    app.route((reqCtx) => runStatus(reqCtx, runDeps), { method: READ, path: '/run/:token/status', middleware: tokens });
    app.route((reqCtx) => runDownload(reqCtx, deps, runDeps), { method: READ, path: '/run/:token/download', middleware: tokens });
  }
  const suppressions = deps.suppressions;
  if (suppressions) {
    const unsubscribe = { ledger: suppressions, linkKeys: deps.linkKeys, clock: deps.clock, log: deps.log, definitions: deps.definitions };
    app.route((reqCtx) => unsubscribePage(reqCtx.params.token!, unsubscribe, readerOf(reqCtx)), { method: READ, path: '/unsubscribe/:token', middleware: tokens });
    app.route(async (reqCtx) => unsubscribeAction(reqCtx.params.token!, await reqCtx.req.text(), unsubscribe, readerOf(reqCtx)), {
      method: 'POST',
      path: '/unsubscribe/:token',
      middleware: tokens,
    });
  }
  app.errorHandler(Error, (error, reqCtx) => Promise.resolve(answerError(error, reqCtx, deps.log)));
  return app;
}

/** A read route answers GET and HEAD alike. */
const READ: HttpMethod[] = ['GET', 'HEAD'];

const NO_SUCH_ROUTE = { message: 'no such route' } as const;

/** The one error handler: the router's own "no route for this path" says only that; every other error is answered by its status. */
function answerError(error: Error, reqCtx: RequestContext, log: Log): PageResponse {
  if (error instanceof NotFoundError && reqCtx.route === null) return json(404, NO_SUCH_ROUTE);
  const request = { route: routeKeyOf(reqCtx) ?? 'unknown', requestId: requestIdOf(reqCtx), pathParameters: reqCtx.params };
  return errorAnswer(error, { ...request, ...readerOf(reqCtx) }, reqCtx.route?.includes(' /run/') ? 'person' : 'program', log);
}

/**
 * API Gateway checks the caller against the route it matched (its route key: `POST /exports` needs
 * IAM, `GET /links/{token}` is open) and hands the raw path on beside it. The router matches the
 * path; a request whose path names another route than its route key (an event crafted, or a gateway
 * that matched differently) is refused as no route at all, never served as the route the path names.
 */
function authorisedRoute(log: Log): Middleware {
  return async ({ reqCtx, next }) => {
    const routeKey = routeKeyOf(reqCtx);
    if (reqCtx.route !== null && routeKey !== gatewayRouteKey(reqCtx.route)) {
      log.warn('request refused', { route: routeKey, requestId: requestIdOf(reqCtx), reason: 'path-names-another-route' });
      throw new NotFoundError(NO_SUCH_ROUTE.message);
    }
    await next();
  };
}

/** The router's route (`HEAD /run/:token`) as API Gateway names it (`GET /run/{token}`): a HEAD goes to the GET route. */
function gatewayRouteKey(route: string): string {
  return route.replace(/^HEAD /, 'GET ').replace(/:(\w+)/g, '{$1}');
}

function routeKeyOf(reqCtx: RequestContext): string | undefined {
  return isAPIGatewayProxyEventV2(reqCtx.event) ? reqCtx.event.routeKey : undefined;
}

function requestIdOf(reqCtx: RequestContext): string {
  return isAPIGatewayProxyEventV2(reqCtx.event) ? reqCtx.event.requestContext.requestId : reqCtx.context.awsRequestId;
}

/** The query as API Gateway parsed it (a repeated name joined with commas), else from the URL. */
function queryOf(reqCtx: RequestContext): Readonly<Record<string, string | undefined>> {
  if (isAPIGatewayProxyEventV2(reqCtx.event)) return reqCtx.event.queryStringParameters ?? {};
  return Object.fromEntries(new URL(reqCtx.req.url).searchParams);
}

/**
 * Every link and run-link token is base64url "." base64url. Anything else (a stray percent escape, a
 * lone surrogate, which encodeURIComponent cannot even encode) is refused before it is used: 400, the
 * refusal page for people, JSON for the link routes (http-errors.ts).
 */
const TOKEN_ALPHABET = /^[A-Za-z0-9_.-]{1,4096}$/;

const wellFormedToken: Middleware = async ({ reqCtx, next }) => {
  const token = reqCtx.params.token;
  if (token !== undefined && !TOKEN_ALPHABET.test(token)) throw new BadRequestError('the link is malformed; copy it again from the e-mail');
  await next();
};

/** A 400 naming what is wrong, each problem with its path. */
function invalid(message: string, issues: readonly { path: string; message: string }[]): BadRequestError {
  return new BadRequestError(message, undefined, { issues });
}

async function startExport(reqCtx: RequestContext, deps: ApiDependencies): Promise<PageResponse> {
  let body: unknown;
  try {
    body = JSON.parse(await reqCtx.req.text());
  } catch {
    throw invalid('the request body must be JSON', [{ path: '(body)', message: 'not valid JSON' }]);
  }
  const parsed = startExportSchema.safeParse(body);
  if (!parsed.success) {
    throw invalid(
      'the request body is invalid',
      parsed.error.issues.map((i) => ({
        path: i.path.length > 0 ? i.path.map(String).join('.') : '(body)',
        message: i.code === 'unrecognized_keys' ? `unknown field(s) ${i.keys.join(', ')}` : i.message,
      })),
    );
  }
  // A definition that cannot run is a ReportDefinitionError: answered 400 with its issues (http-errors.ts).
  const reportName = resolveDefinition(parsed.data, await configuredDefinition(parsed.data, deps.definitions), deps.inline).name;
  const now = deps.clock();
  const start = await startOrJoin(parsed.data, reportName, deps, now);
  if (start.kind === 'join') {
    deps.log.info('export request joined a running export', { report: reportName, exportId: start.exportId, requestId: requestIdOf(reqCtx) });
    return accepted({ id: start.exportId, status: start.status, report: reportName, joined: true }, deps);
  }
  const id = start.exportId;
  await deps.jobs.put({ id, report: reportName, status: 'queued', createdAt: now.toISOString(), updatedAt: now.toISOString() });
  try {
    await deps.launcher.launch({ ...parsed.data, exportId: id, source: 'api' });
  } catch (error) {
    deps.log.error('could not start the export job', { exportId: id, error: errorMessage(error) });
    await deps.jobs.update(id, { status: 'failed', error: 'the export could not be started; try again' }, now);
    // An answer, not an error: the caller is told the id of the export that failed to start.
    return json(503, { message: 'the export could not be started; try again', id });
  }
  return accepted({ id, status: 'queued', report: reportName, joined: false }, deps);
}

/** The 202 of `POST /exports`: the export to poll, and whether this request started it or joined it. */
function accepted(answer: { id: string; status: string; report: string; joined: boolean }, deps: ApiDependencies): PageResponse {
  const statusUrl = `${deps.apiBaseUrl.replace(/\/+$/, '')}/exports/${answer.id}`;
  return json(202, { ...answer, statusUrl }, { location: statusUrl });
}

type StartExport = z.infer<typeof startExportSchema>;

/** Only a plain start of a configured report joins: overrides or an inline definition make a different export. */
function joinsRunningExport(request: StartExport): boolean {
  return request.report !== undefined && request.definition === undefined && Object.keys(request.overrides ?? {}).length === 0;
}

/**
 * A plain start of a configured report joins the export already running for it, through the
 * report's slot that run links use too (report-run.ts): of racing requests exactly one starts.
 * A finished, failed or stale export is not joined, nor a slot whose starter died before writing
 * its job. Any other request starts its own export and leaves the slot alone.
 */
async function startOrJoin(
  request: StartExport,
  report: string,
  deps: ApiDependencies,
  now: Date,
): Promise<{ readonly kind: 'start'; readonly exportId: string } | { readonly kind: 'join'; readonly exportId: string; readonly status: string }> {
  const newId = () => (deps.newId ?? randomUUID)();
  const slots = deps.runLinks;
  if (!slots || !joinsRunningExport(request)) return { kind: 'start', exportId: newId() };
  const claim = await claimReportRun(
    report,
    () => ({ exportId: newId(), startedAt: now.toISOString() }),
    { ledger: slots.ledger, jobs: deps.jobs, staleAfterMs: slots.staleAfterMs },
    now,
    (held) => Promise.resolve(held?.running ? held : undefined),
  );
  if (claim.kind === 'won') return { kind: 'start', exportId: claim.slot.exportId };
  if (claim.kind === 'answered') return { kind: 'join', exportId: claim.answer.slot.exportId, status: claim.answer.job?.status ?? 'queued' };
  // Three lost races in a row: another request is starting this report right now; join it.
  return claim.slot ? { kind: 'join', exportId: claim.slot.exportId, status: 'queued' } : { kind: 'start', exportId: newId() };
}

async function exportStatus(reqCtx: RequestContext, deps: ApiDependencies): Promise<PageResponse> {
  const id = reqCtx.params.id;
  if (!id || !EXPORT_ID_PATTERN.test(id)) {
    throw invalid('the export id is malformed', [{ path: 'id', message: 'expected the id returned by POST /exports' }]);
  }
  const status = await deps.jobs.get(id);
  if (!status) throw new NotFoundError(`no export with id "${id}"`);
  if (status.status !== 'succeeded' || !status.manifestKey) return json(200, status);
  const bytes = await deps.storage.getObject(status.manifestKey);
  if (!bytes) return json(200, { ...status, status: 'failed', error: 'the files of this export have expired' });
  const manifest = manifestSchema.parse(JSON.parse(Buffer.from(bytes).toString('utf8')));
  const folder = status.manifestKey.slice(0, status.manifestKey.lastIndexOf('/'));
  const seconds = deps.presignedSeconds ?? 3600;
  const expiresAt = new Date(deps.clock().getTime() + seconds * 1000).toISOString();
  const files = await Promise.all(
    manifest.files.map(async (f) => ({
      ...f,
      url: await deps.presign(`${folder}/${f.path}`, { expiresInSeconds: seconds, downloadName: f.path }),
      urlExpiresAt: expiresAt,
    })),
  );
  return json(200, { ...status, generatedAt: manifest.generatedAt, summary: manifest.summary, files });
}

async function followLink(reqCtx: RequestContext, deps: ApiDependencies): Promise<PageResponse> {
  const resolution = await resolveLink(reqCtx.params.token!, {
    keys: await deps.linkKeys(),
    presign: deps.presign,
    log: deps.log,
    now: deps.clock(),
  });
  if (resolution.status === 403) throw new ForbiddenError(LINK_TOKEN_PUBLIC_MESSAGE);
  return {
    statusCode: 302,
    headers: { location: resolution.location, 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' },
    body: '',
  };
}

function runLinkDeps(deps: ApiDependencies): RunLinkDependencies | undefined {
  if (!deps.runLinks) return undefined;
  return {
    ...deps.runLinks,
    definitions: deps.definitions,
    jobs: deps.jobs,
    launcher: deps.launcher,
    storage: deps.storage,
    linkKeys: deps.linkKeys,
    log: deps.log,
    clock: deps.clock,
    ...(deps.newId && { newId: deps.newId }),
  };
}

/**
 * `GET /run/{token}` shows and never starts: the export running for the report, a fresh one to
 * reuse, or the "Get a fresh copy" button; with `?export=<id>` it shows that export.
 */
async function runPage(reqCtx: RequestContext, deps: ApiDependencies, runDeps: RunLinkDependencies): Promise<PageResponse> {
  const token = reqCtx.params.token!;
  const query = queryOf(reqCtx);
  const exportId = query.export;
  const reader = readerOf(reqCtx);
  const view = exportId === undefined ? await viewRunLink(token, runDeps, reader) : await showRun(token, exportId, runDeps, reader);
  // A reusable copy found on opening the link downloads at once, as the export's own page does.
  return renderPage(view, token, deps, reader, { download: exportId === undefined || query.download === '1' });
}

/**
 * `POST /run/{token}` (the page's button, form-encoded `page=<page token>`): starts, joins or
 * reuses, then sends the browser to the export's own page (303, so a reload does not post again).
 * Without a valid page token nothing starts: the page is shown again with a fresh one.
 */
async function startFromRunPage(reqCtx: RequestContext, deps: ApiDependencies, runDeps: RunLinkDependencies): Promise<PageResponse> {
  const token = reqCtx.params.token!;
  const pageToken = new URLSearchParams(await reqCtx.req.text()).get('page') ?? undefined;
  const now = deps.clock();
  const reader = readerOf(reqCtx);
  if (!verifyRunPageToken(pageToken, token, await deps.linkKeys(), now)) {
    deps.log.warn('run link start refused', { reason: pageToken === undefined ? 'no-page-token' : 'bad-page-token', requestId: requestIdOf(reqCtx) });
    return renderPage(await viewRunLink(token, runDeps, reader), token, deps, reader);
  }
  const view = await startRunLink(token, runDeps, reader);
  if (view.state !== 'running' && view.state !== 'done' && view.state !== 'failed') return renderPage(view, token, deps, reader);
  const location = `${encodeURIComponent(token)}?export=${encodeURIComponent(view.exportId)}&download=1`;
  return { statusCode: 303, headers: { location, 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' }, body: '' };
}

/** `GET /run/{token}/download?export=<id>&file=<path>`: the run link is checked, then a short-lived redirect. */
async function runDownload(reqCtx: RequestContext, deps: ApiDependencies, runDeps: RunLinkDependencies): Promise<PageResponse> {
  const token = reqCtx.params.token!;
  const query = queryOf(reqCtx);
  const found = await findRunDownload(token, query.export, query.file, runDeps);
  const reader = readerOf(reqCtx);
  if (found.state === 'refused') return renderPage({ state: 'refused' }, token, deps, reader);
  if (found.state === 'gone') {
    return { ...(await renderPage(await viewRunLink(token, runDeps, reader), token, deps, reader)), statusCode: 404 };
  }
  const location = await deps.presign(found.key, { expiresInSeconds: DEFAULT_REDIRECT_TTL_SECONDS, downloadName: found.name });
  return { statusCode: 302, headers: { location, 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' }, body: '' };
}

/** The HTML page, with a fresh page token for its form when it has one. */
async function renderPage(view: RunView, token: string, deps: ApiDependencies, reader: PageReader, options: { download?: boolean } = {}): Promise<PageResponse> {
  // A form wherever the page offers a fresh copy: nothing to show, a failure, or an export from earlier.
  const withForm = view.state === 'ready' || view.state === 'failed' || (view.state === 'done' && !view.fresh);
  const now = deps.clock();
  const pageToken = withForm ? createRunPageToken(token, (await deps.linkKeys()).current, now) : undefined;
  // A view of a refused link knows no report: the browser's language.
  return renderRunPage(view, token, { ...options, ...(pageToken !== undefined && { pageToken }), locale: pageLocale(undefined, reader.acceptLanguage) });
}

/** Who asked, as far as a page's words go: the browser's languages. */
function readerOf(reqCtx: RequestContext): PageReader {
  return { acceptLanguage: reqCtx.req.headers.get('accept-language') ?? undefined };
}

async function runStatus(reqCtx: RequestContext, runDeps: RunLinkDependencies): Promise<PageResponse> {
  return renderRunStatus(await showRun(reqCtx.params.token, queryOf(reqCtx).export, runDeps, readerOf(reqCtx)));
}
