import { randomUUID } from 'node:crypto';
import { isAPIGatewayProxyEventV2, Router } from '@aws-lambda-powertools/event-handler/http';
import type { RequestContext, RouteHandler } from '@aws-lambda-powertools/event-handler/types';
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
import { findRunDownload, showRun, startRunLink, viewRunLink, type RunLinkDependencies, type RunView } from './run-link';
import { errorAnswer, json, type Audience } from './http-errors';
import { renderRunPage, renderRunStatus } from './run-page';
import { claimReportRun } from './report-run';

/** The HTTP request as the API's routes need it, read from the router's request (requestOf). */
export interface ApiRequest {
  readonly method: string;
  /** The matched route as API Gateway names it, e.g. `POST /exports`, `GET /links/{token}`: for the logs. */
  readonly route: string;
  readonly pathParameters: Readonly<Record<string, string | undefined>>;
  readonly query?: Readonly<Record<string, string | undefined>>;
  readonly body: string | undefined;
  readonly requestId: string;
}

export interface ApiResponse {
  readonly statusCode: number;
  readonly headers: Record<string, string>;
  readonly body: string;
}

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
  readonly now: Clock;
  readonly newId?: () => string;
  /** Lifetime of the download links in a status answer. */
  readonly presignedSeconds?: number;
  /** The ledger of the report's unsubscribed recipients (`/unsubscribe/{token}`); without it those routes answer 404. */
  readonly suppressions?: Ledger;
  /** Run links (`GET /run/{token}`); without them those routes answer 404. */
  readonly runLinks?: Pick<RunLinkDependencies, 'ledger' | 'isRevoked' | 'reuseMinutes' | 'startLimit' | 'staleAfterMs'>;
}

const startExportSchema = z.strictObject({
  report: z.string().min(1).max(64).optional(),
  overrides: z.record(z.string(), z.unknown()).optional(),
  definition: z.record(z.string(), z.unknown()).optional(),
});

/**
 * Every link and run-link token is base64url "." base64url. Anything else (a stray percent escape, a
 * lone surrogate, which encodeURIComponent cannot even encode) is refused before it is used.
 */
const TOKEN_ALPHABET = /^[A-Za-z0-9_.-]{1,4096}$/;

function badRequest(message: string, issues: readonly { path: string; message: string }[]): ApiResponse {
  return json(400, { message, issues });
}

/** The e-mail's unsubscribe link: the page (GET) or the change (POST), unsubscribe.ts. */
async function unsubscribeRoute(request: ApiRequest, deps: ApiDependencies): Promise<ApiResponse> {
  const token = request.pathParameters.token;
  if (!deps.suppressions || token === undefined) return json(404, { message: 'no such route' });
  const unsubscribe = { ledger: deps.suppressions, linkKeys: deps.linkKeys, now: deps.now, log: deps.log };
  return request.method === 'POST' ? unsubscribeAction(token, request.body, unsubscribe) : unsubscribePage(token, unsubscribe);
}

/** The answer of one route, from the request as the routes take it. */
type RouteAnswer = (request: ApiRequest, deps: ApiDependencies) => Promise<ApiResponse>;

/**
 * The export API on the Powertools router: start an export (202, the work runs asynchronously
 * because reports take longer than API Gateway's 29 seconds), read its status with download links,
 * follow an e-mail link, the run links' pages and the unsubscribe link. Each route only hands the
 * request to its logic below; whatever a route throws is answered by the error's own status
 * (http-errors.ts), as JSON to programs or as the run page to people. A HEAD request is answered as
 * its GET (a link scanner's HEAD must not do more than its GET could).
 */
export function createApiRouter(deps: ApiDependencies): Router {
  const app = new Router();
  const routes: readonly [method: 'GET' | 'POST', path: `/${string}`, audience: Audience, answer: RouteAnswer][] = [
    ['POST', '/exports', 'program', startExport],
    ['GET', '/exports/:id', 'program', exportStatus],
    ['GET', '/links/:token', 'program', followLink],
    ['GET', '/run/:token', 'person', runPage],
    ['POST', '/run/:token', 'person', startFromRunPage],
    ['GET', '/run/:token/status', 'person', runStatus],
    ['GET', '/run/:token/download', 'person', runDownload],
    ['GET', '/unsubscribe/:token', 'program', unsubscribeRoute],
    ['POST', '/unsubscribe/:token', 'program', unsubscribeRoute],
  ];
  for (const [method, path, audience, answer] of routes) {
    app.route(route(audience, answer, deps), { method: method === 'GET' ? ['GET', 'HEAD'] : method, path });
  }
  app.notFound(() => Promise.resolve(json(404, { message: 'no such route' })));
  app.errorHandler(Error, async (error, reqCtx) => errorAnswer(error, await requestOf(reqCtx), reqCtx.get(AUDIENCE) === 'person' ? 'person' : 'program', deps.log));
  return app;
}

/** Where a route tells the error handler whom it answers (the request's store of the router). */
const AUDIENCE = 'audience';

/** A route of the router: whom it answers noted for the error handler, a token that cannot be one refused, then its answer. */
function route(audience: Audience, answer: RouteAnswer, deps: ApiDependencies): RouteHandler {
  return async (reqCtx) => {
    reqCtx.set(AUDIENCE, audience);
    const request = await requestOf(reqCtx);
    const token = request.pathParameters.token;
    if (token !== undefined && !TOKEN_ALPHABET.test(token)) return malformedToken(request, audience, deps);
    return answer(request, deps);
  };
}

/** The request as the routes take it: the router's path parameters and body, API Gateway's route key, query and request id. */
async function requestOf(reqCtx: RequestContext): Promise<ApiRequest> {
  const { event, req, params } = reqCtx;
  const gateway = isAPIGatewayProxyEventV2(event) ? event : undefined;
  return {
    method: req.method,
    route: gateway?.routeKey ?? `${req.method} ${reqCtx.route ?? new URL(req.url).pathname}`,
    pathParameters: params,
    query: gateway?.queryStringParameters ?? Object.fromEntries(new URL(req.url).searchParams),
    // The router has decoded a base64 body already; GET and HEAD carry none.
    body: req.method === 'GET' || req.method === 'HEAD' || req.bodyUsed ? undefined : await req.clone().text(),
    requestId: gateway?.requestContext.requestId ?? reqCtx.context.awsRequestId,
  };
}

async function startExport(request: ApiRequest, deps: ApiDependencies): Promise<ApiResponse> {
  let body: unknown;
  try {
    body = JSON.parse(request.body ?? '');
  } catch {
    return badRequest('the request body must be JSON', [{ path: '(body)', message: 'not valid JSON' }]);
  }
  const parsed = startExportSchema.safeParse(body);
  if (!parsed.success) {
    return badRequest(
      'the request body is invalid',
      parsed.error.issues.map((i) => ({
        path: i.path.length > 0 ? i.path.map(String).join('.') : '(body)',
        message: i.code === 'unrecognized_keys' ? `unknown field(s) ${i.keys.join(', ')}` : i.message,
      })),
    );
  }
  // A definition that cannot run is a ReportDefinitionError: answered 400 with its issues (http-errors.ts).
  const reportName = resolveDefinition(parsed.data, await configuredDefinition(parsed.data, deps.definitions), deps.inline).name;
  const now = deps.now();
  const start = await startOrJoin(parsed.data, reportName, deps, now);
  if (start.kind === 'join') {
    deps.log.info('export request joined a running export', { report: reportName, exportId: start.exportId, requestId: request.requestId });
    return accepted({ id: start.exportId, status: start.status, report: reportName, joined: true }, deps);
  }
  const id = start.exportId;
  await deps.jobs.put({ id, report: reportName, status: 'queued', createdAt: now.toISOString(), updatedAt: now.toISOString() });
  try {
    await deps.launcher.launch({ ...parsed.data, exportId: id, source: 'api' });
  } catch (error) {
    deps.log.error('could not start the export job', { exportId: id, error: errorMessage(error) });
    await deps.jobs.update(id, { status: 'failed', error: 'the export could not be started; try again' }, now);
    return json(503, { message: 'the export could not be started; try again', id });
  }
  return accepted({ id, status: 'queued', report: reportName, joined: false }, deps);
}

/** The 202 of `POST /exports`: the export to poll, and whether this request started it or joined it. */
function accepted(answer: { id: string; status: string; report: string; joined: boolean }, deps: ApiDependencies): ApiResponse {
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

async function exportStatus(request: ApiRequest, deps: ApiDependencies): Promise<ApiResponse> {
  const id = request.pathParameters.id;
  if (!id || !EXPORT_ID_PATTERN.test(id)) {
    return badRequest('the export id is malformed', [{ path: 'id', message: 'expected the id returned by POST /exports' }]);
  }
  const status = await deps.jobs.get(id);
  if (!status) return json(404, { message: `no export with id "${id}"` });
  if (status.status !== 'succeeded' || !status.manifestKey) return json(200, status);
  const bytes = await deps.storage.getObject(status.manifestKey);
  if (!bytes) return json(200, { ...status, status: 'failed', error: 'the files of this export have expired' });
  const manifest = manifestSchema.parse(JSON.parse(Buffer.from(bytes).toString('utf8')));
  const folder = status.manifestKey.slice(0, status.manifestKey.lastIndexOf('/'));
  const seconds = deps.presignedSeconds ?? 3600;
  const expiresAt = new Date(deps.now().getTime() + seconds * 1000).toISOString();
  const files = await Promise.all(
    manifest.files.map(async (f) => ({
      ...f,
      url: await deps.presign(`${folder}/${f.path}`, { expiresInSeconds: seconds, downloadName: f.path }),
      urlExpiresAt: expiresAt,
    })),
  );
  return json(200, { ...status, generatedAt: manifest.generatedAt, summary: manifest.summary, files });
}

async function followLink(request: ApiRequest, deps: ApiDependencies): Promise<ApiResponse> {
  const token = request.pathParameters.token;
  const forbidden = json(403, { message: LINK_TOKEN_PUBLIC_MESSAGE });
  if (!token) return forbidden;
  const resolution = await resolveLink(token, {
    keys: await deps.linkKeys(),
    presign: deps.presign,
    log: deps.log,
    now: deps.now(),
  });
  if (resolution.status === 403) return forbidden;
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
    now: deps.now,
    ...(deps.newId && { newId: deps.newId }),
  };
}

/**
 * `GET /run/{token}` shows and never starts: the export running for the report, a fresh one to
 * reuse, or the "Get a fresh copy" button; with `?export=<id>` it shows that export.
 */
async function runPage(request: ApiRequest, deps: ApiDependencies): Promise<ApiResponse> {
  const runDeps = runLinkDeps(deps);
  if (!runDeps) return json(404, { message: 'no such route' });
  const token = request.pathParameters.token;
  const exportId = request.query?.export;
  const view = exportId === undefined ? await viewRunLink(token, runDeps) : await showRun(token, exportId, runDeps);
  // A reusable copy found on opening the link downloads at once, as the export's own page does.
  return renderPage(view, token, deps, { download: exportId === undefined || request.query?.download === '1' });
}

/**
 * `POST /run/{token}` (the page's button, form-encoded `page=<page token>`): starts, joins or
 * reuses, then sends the browser to the export's own page (303, so a reload does not post again).
 * Without a valid page token nothing starts: the page is shown again with a fresh one.
 */
async function startFromRunPage(request: ApiRequest, deps: ApiDependencies): Promise<ApiResponse> {
  const runDeps = runLinkDeps(deps);
  if (!runDeps) return json(404, { message: 'no such route' });
  const token = request.pathParameters.token;
  const pageToken = new URLSearchParams(request.body ?? '').get('page') ?? undefined;
  const now = deps.now();
  if (token === undefined || !verifyRunPageToken(pageToken, token, await deps.linkKeys(), now)) {
    deps.log.warn('run link start refused', { reason: pageToken === undefined ? 'no-page-token' : 'bad-page-token', requestId: request.requestId });
    return renderPage(await viewRunLink(token, runDeps), token, deps);
  }
  const view = await startRunLink(token, runDeps);
  if (view.state !== 'running' && view.state !== 'done' && view.state !== 'failed') return renderPage(view, token, deps);
  const location = `${encodeURIComponent(token)}?export=${encodeURIComponent(view.exportId)}&download=1`;
  return { statusCode: 303, headers: { location, 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' }, body: '' };
}

/** `GET /run/{token}/download?export=<id>&file=<path>`: the run link is checked, then a short-lived redirect. */
async function runDownload(request: ApiRequest, deps: ApiDependencies): Promise<ApiResponse> {
  const runDeps = runLinkDeps(deps);
  if (!runDeps) return json(404, { message: 'no such route' });
  const token = request.pathParameters.token;
  const found = await findRunDownload(token, request.query?.export, request.query?.file, runDeps);
  if (found.state === 'refused') return renderPage({ state: 'refused' }, token, deps);
  if (found.state === 'gone') {
    return { ...(await renderPage(await viewRunLink(token, runDeps), token, deps)), statusCode: 404 };
  }
  const location = await deps.presign(found.key, { expiresInSeconds: DEFAULT_REDIRECT_TTL_SECONDS, downloadName: found.name });
  return { statusCode: 302, headers: { location, 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' }, body: '' };
}

/** The HTML page, with a fresh page token for its form when it has one. */
async function renderPage(view: RunView, token: string | undefined, deps: ApiDependencies, options: { download?: boolean } = {}): Promise<ApiResponse> {
  // A form wherever the page offers a fresh copy: nothing to show, a failure, or an export from earlier.
  const withForm = token !== undefined && (view.state === 'ready' || view.state === 'failed' || (view.state === 'done' && !view.fresh));
  const now = deps.now();
  const pageToken = withForm ? createRunPageToken(token, (await deps.linkKeys()).current, now) : undefined;
  return renderRunPage(view, token ?? '', { ...options, ...(pageToken !== undefined && { pageToken }) });
}

async function runStatus(request: ApiRequest, deps: ApiDependencies): Promise<ApiResponse> {
  const runDeps = runLinkDeps(deps);
  if (!runDeps) return json(404, { message: 'no such route' });
  return renderRunStatus(await showRun(request.pathParameters.token, request.query?.export, runDeps));
}

/** A token that cannot be a token: 400, the refusal page for people, JSON for the link routes. */
function malformedToken(request: ApiRequest, audience: Audience, deps: ApiDependencies): ApiResponse {
  deps.log.warn('request refused', { route: request.route, requestId: request.requestId, reason: 'malformed-token' });
  if (audience === 'program') return json(400, { message: 'the link is malformed; copy it again from the e-mail' });
  return { ...renderRunPage({ state: 'refused' }, ''), statusCode: 400 };
}
