import { randomUUID } from 'node:crypto';
import { errorMessage, LinkTokenError } from '../core/errors';
import type { Log } from '../core/logger';
import { createLinkToken, linkTokenFailure, type LinkVerificationKeys } from '../links/link-token';
import { verifyRunLinkToken, type RunLinkClaims } from '../links/run-link-token';
import { manifestSchema } from '../report/manifest';
import type { Storage } from '../storage/storage';
import { EXPORT_ID_PATTERN, type JobStatus, type JobStatusStore } from './job-status';
import type { JobLauncher } from './ports';
import type { RunLinkLedger, StartLimit } from './run-link-ledger';

/**
 * The logic behind `GET /run/{token}`: a person opens a run link and gets a fresh export of the
 * token's report. Opening starts an export, joins the one already running for that report, or
 * reuses one that finished less than `reuseMinutes` ago; the ledger's conditional writes keep it to
 * one export per report and a few starts per token (run-link-ledger.ts). Every outcome is a
 * RunView, which run-page.ts renders as HTML or JSON; nothing internal reaches a view.
 */
export interface RunLinkDependencies {
  /** Configured definitions by name (a run link names one); only `title` is read here. */
  readonly definitions: Readonly<Record<string, unknown>>;
  readonly jobs: JobStatusStore;
  readonly launcher: JobLauncher;
  readonly storage: Storage;
  readonly ledger: RunLinkLedger;
  /** Revocation as status polls see it: may be cached for a minute (RevocationCache). */
  readonly isRevoked?: (linkId: string) => Promise<boolean>;
  readonly linkKeys: () => Promise<LinkVerificationKeys>;
  readonly log: Log;
  readonly reuseMinutes: number;
  readonly startLimit: StartLimit;
  /** A queued or running job whose status has not changed for this long is dead (export timeout + margin). */
  readonly staleAfterMs: number;
  /** Lifetime of the download links on a finished page. */
  readonly downloadLinkSeconds?: number;
  readonly now?: () => Date;
  readonly newId?: () => string;
}

export interface RunFile {
  readonly name: string;
  readonly format: 'xlsx' | 'csv';
  readonly bytes: number;
  /** Relative to the run page (`/run/{token}`): the download-link route, `../links/<token>`. */
  readonly href: string;
}

export interface RunProgress {
  readonly datasetsDone: number;
  readonly datasetsTotal: number;
  readonly rows: number;
}

export type RunView =
  | { readonly state: 'refused' }
  | { readonly state: 'limited'; readonly retryAfterSeconds: number; readonly title: string }
  | { readonly state: 'running'; readonly exportId: string; readonly title: string; readonly progress: RunProgress | undefined }
  | { readonly state: 'done'; readonly exportId: string; readonly title: string; readonly finishedAt: string; readonly files: readonly RunFile[] }
  | { readonly state: 'failed'; readonly exportId: string; readonly title: string };

export const DEFAULT_DOWNLOAD_LINK_SECONDS = 3600;
/** How often a lost race for the report's slot is retried before joining whatever holds it. */
const SLOT_ATTEMPTS = 3;

/** `GET /run/{token}`: start, join or reuse an export of the token's report. */
export async function openRunLink(token: string | undefined, deps: RunLinkDependencies): Promise<RunView> {
  const now = (deps.now ?? (() => new Date()))();
  const claims = await admit(token, deps, now, (id) => deps.ledger.isRevoked(id));
  if (!claims) return { state: 'refused' };
  const title = titleOf(claims.report, deps);

  for (let attempt = 0; attempt < SLOT_ATTEMPTS; attempt++) {
    const currentId = await deps.ledger.currentRun(claims.report);
    const current = currentId === undefined ? undefined : await deps.jobs.get(currentId);
    if (current && current.report === claims.report) {
      const view = await viewOf(current, claims, deps, now);
      const fresh = now.getTime() - Date.parse(current.updatedAt) < deps.reuseMinutes * 60_000;
      if (view.state === 'running' || (view.state === 'done' && fresh)) {
        deps.log.info('run link joined an export', { report: claims.report, exportId: current.id, state: view.state, link: claims.jti });
        return view;
      }
    }

    if (!(await deps.ledger.takeStart(claims.jti, now, deps.startLimit))) {
      deps.log.warn('run link start limit reached', { report: claims.report, link: claims.jti });
      const windowEnd = (Math.floor(now.getTime() / deps.startLimit.windowMs) + 1) * deps.startLimit.windowMs;
      return { state: 'limited', retryAfterSeconds: Math.ceil((windowEnd - now.getTime()) / 1000), title };
    }
    const id = (deps.newId ?? randomUUID)();
    const at = now.toISOString();
    // The job exists before the slot points at it, so a concurrent opener never sees a dangling id.
    await deps.jobs.put({ id, report: claims.report, status: 'queued', createdAt: at, updatedAt: at });
    if (!(await deps.ledger.swapRun(claims.report, currentId, id))) {
      await deps.jobs.update(id, { status: 'failed', error: 'superseded by a concurrent start' }, now);
      continue;
    }
    try {
      await deps.launcher.launch({ report: claims.report, exportId: id, source: 'api' });
    } catch (error) {
      deps.log.error('run link could not start the export job', { exportId: id, error: errorMessage(error) });
      await deps.jobs.update(id, { status: 'failed', error: 'the export could not be started; try again' }, now);
      return { state: 'failed', exportId: id, title };
    }
    deps.log.info('run link started an export', { report: claims.report, exportId: id, link: claims.jti });
    return { state: 'running', exportId: id, title, progress: undefined };
  }
  // Three lost races in a row: someone else is starting this report right now; show theirs.
  const winner = await deps.ledger.currentRun(claims.report);
  const job = winner === undefined ? undefined : await deps.jobs.get(winner);
  return job ? viewOf(job, claims, deps, now) : { state: 'refused' };
}

/**
 * `GET /run/{token}/status?export=<id>` and the page of one export: the state of an export the
 * token's report owns. One job-status read; revocation comes from `isRevoked` (cached).
 */
export async function showRun(token: string | undefined, exportId: string | undefined, deps: RunLinkDependencies): Promise<RunView> {
  const now = (deps.now ?? (() => new Date()))();
  const claims = await admit(token, deps, now, deps.isRevoked ?? ((id) => deps.ledger.isRevoked(id)));
  if (!claims || exportId === undefined || !EXPORT_ID_PATTERN.test(exportId)) return { state: 'refused' };
  const job = await deps.jobs.get(exportId);
  // Another report's export id is refused exactly like a bad token: the link grants one report.
  if (!job || job.report !== claims.report) return { state: 'refused' };
  return viewOf(job, claims, deps, now);
}

async function admit(
  token: string | undefined,
  deps: RunLinkDependencies,
  now: Date,
  isRevoked: (linkId: string) => Promise<boolean>,
): Promise<RunLinkClaims | undefined> {
  if (!token) return undefined;
  let claims: RunLinkClaims;
  try {
    claims = verifyRunLinkToken(token, await deps.linkKeys(), now);
  } catch (error) {
    if (!(error instanceof LinkTokenError)) throw error;
    // The token is a bearer credential: log why it was refused, never the token.
    deps.log.warn('run link refused', { reason: linkTokenFailure(error) ?? 'unknown' });
    return undefined;
  }
  if (!Object.hasOwn(deps.definitions, claims.report)) {
    deps.log.warn('run link refused', { reason: 'report-not-configured', link: claims.jti });
    return undefined;
  }
  if (await isRevoked(claims.jti)) {
    deps.log.warn('run link refused', { reason: 'revoked', link: claims.jti });
    return undefined;
  }
  return claims;
}

async function viewOf(job: JobStatus, claims: RunLinkClaims, deps: RunLinkDependencies, now: Date): Promise<RunView> {
  const title = titleOf(claims.report, deps);
  if (job.status === 'queued' || job.status === 'running') {
    if (now.getTime() - Date.parse(job.updatedAt) > deps.staleAfterMs) return { state: 'failed', exportId: job.id, title };
    return { state: 'running', exportId: job.id, title, progress: job.progress };
  }
  if (job.status === 'failed' || !job.manifestKey) return { state: 'failed', exportId: job.id, title };
  const bytes = await deps.storage.getObject(job.manifestKey);
  // The files have expired (bucket lifecycle): to the person this is a run to start again.
  if (!bytes) return { state: 'failed', exportId: job.id, title };
  const manifest = manifestSchema.parse(JSON.parse(Buffer.from(bytes).toString('utf8')));
  const runKey = job.manifestKey.slice(0, job.manifestKey.lastIndexOf('/'));
  const key = (await deps.linkKeys()).current;
  const expiresAt = new Date(now.getTime() + (deps.downloadLinkSeconds ?? DEFAULT_DOWNLOAD_LINK_SECONDS) * 1000);
  // The workbook first: it is the button the page focuses and downloads.
  const files = [...manifest.files].sort((a, b) => Number(b.format === 'xlsx') - Number(a.format === 'xlsx'));
  return {
    state: 'done',
    exportId: job.id,
    title,
    finishedAt: manifest.generatedAt,
    files: files.map((f) => ({
      name: f.path,
      format: f.format,
      bytes: f.bytes,
      href: `../links/${createLinkToken({ runKey, file: f.path, expiresAt }, key, now)}`,
    })),
  };
}

function titleOf(report: string, deps: RunLinkDependencies): string {
  const definition = deps.definitions[report];
  const title = typeof definition === 'object' && definition !== null ? (definition as { title?: unknown }).title : undefined;
  return typeof title === 'string' && title.length > 0 ? title : report;
}
