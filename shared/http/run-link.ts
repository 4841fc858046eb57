import type { Clock } from '../core/clock';
import { randomUUID } from 'node:crypto';
import { errorMessage, LinkTokenError } from '../core/errors';
import type { Log } from '../core/logger';
import { linkTokenFailure, type LinkVerificationKeys } from '../links/link-token';
import { verifyRunLinkToken, type RunLinkClaims } from '../links/run-link-token';
import { cellText, webAddress } from '../email/email-format';
import { changeWithMark, changesSince } from '../email/figure-change';
import { canonicalLocale, formatDateInZone, localeProblem, readerFormat, type ReaderFormat } from '../core/format';
import { pageLocale } from './page-language';
import { manifestSchema, type Manifest } from '../report/manifest/manifest';
import { summaryFromManifest, summaryInLanguage } from '../report/run/run-summary';
import { fileForPeople, NAMES, type FileForPeople, type ReportNames } from '../report/names';
import type { Storage } from '../storage/storage';
import { EXPORT_ID_PATTERN, type JobStatus, type JobStatusStore } from '../job/status/job-status';
import type { JobLauncher } from '../job/request';
import type { DefinitionCatalog } from '../definitions/catalog';
import { lookupReport } from '../definitions/catalog';
import type { RunLinkLedger, StartLimit } from './run-link-ledger';
import { claimReportRun, heldRun, isStarting, type HeldRun } from './report-run';
import { alertsSchema, type AlertRule } from '../report/alerts/alert-rules';
import { readRules } from '../report/alerts/read-rules';
import { markedSummary } from '../messages/reader-news';

/**
 * The logic behind the run-link routes. A GET only shows (viewRunLink): the export running for the
 * token's report, one that finished less than `reuseMinutes` ago, or a page with a "Get a fresh
 * copy" button; mail scanners fetch every link in a message, so a GET must never start anything.
 * The button's POST acts (startRunLink): it starts an export, joins the one already running for
 * that report, or reuses a fresh one. The report's slot in the ledger is taken by one conditional
 * write before anything is counted, so racing opens start one export and count one start; joining
 * and reusing cost none (run-link-ledger.ts). Every outcome is a RunView, which run-page.ts renders
 * as HTML or JSON; nothing internal reaches a view.
 */
export interface RunLinkDependencies {
  /** The configured reports (a run link names one); only `title`, `timeZone` and `locale` are read here. */
  readonly definitions: DefinitionCatalog;
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
  /** The door's clock (core/clock.ts). */
  readonly clock: Clock;
  readonly newId?: () => string;
}

export interface RunFile extends FileForPeople {
  /** The name it is saved under (downloadName). */
  readonly name: string;
  readonly format: string;
  readonly bytes: number;
  /**
   * Relative to the run page (`/run/{token}`): `<token>/download?export=<id>&file=<path>`, which
   * checks the run link (revocation included) at every click before it redirects to S3.
   */
  readonly href: string;
}

export interface RunProgress {
  readonly datasetsDone: number;
  readonly datasetsTotal: number;
  readonly rows: number;
}

/** A headline figure of a finished export, as the e-mail writes it in the report's locale ("Open risks", "58", "−2 since 16/11/2026"). */
export interface RunFigure {
  readonly label: string;
  readonly value: string;
  readonly delta?: string | undefined;
  /** The Summary section it belongs to ("Risks", "Risks by ROAM"), the page's heading over its figures. */
  readonly group?: string | undefined;
}

export interface RunNote {
  readonly heading: string;
  /** A line per item; an item whose tracker address is known is linked to it (`url`, always http(s)). */
  readonly lines: readonly (string | { readonly text: string; readonly url: string })[];
}

export type RunView =
  | { readonly state: 'refused' }
  /** `gone`: the page was opened for an export that is no longer kept (a bookmark); the link itself is valid. */
  | { readonly state: 'ready'; readonly title: string; readonly gone?: boolean; readonly locale?: string | undefined }
  | { readonly state: 'limited'; readonly retryAfterSeconds: number; readonly title: string; readonly locale?: string | undefined }
  | {
      readonly state: 'running';
      readonly exportId: string;
      readonly title: string;
      readonly progress: RunProgress | undefined;
      /** The page's locale (BCP 47: the link's reader's, page-language.ts) for its words and the row count; absent: DEFAULT_LOCALE. */
      readonly locale?: string | undefined;
    }
  | {
      readonly state: 'done';
      readonly exportId: string;
      readonly title: string;
      readonly finishedAt: string;
      /** The report's zone: the page shows times as its readers' e-mails and workbooks do. */
      readonly timeZone: string;
      /** The page's locale (BCP 47: the link's reader's): its words, dates and figures as that reader's e-mail writes them; absent: DEFAULT_LOCALE. */
      readonly locale?: string | undefined;
      /** Finished within the reuse window: "your fresh copy"; an older one (a bookmark) says when it is from. */
      readonly fresh: boolean;
      readonly figures: readonly RunFigure[];
      /** The header of the figures' changes, their date said once ("Change since 22/11/2026"); absent without a comparison. */
      readonly changesSince?: string | undefined;
      /** After the figures, as the e-mail has them: "Needs attention" and "What changed since …", a line per item. */
      readonly notes?: readonly RunNote[] | undefined;
      readonly files: readonly RunFile[];
    }
  | { readonly state: 'failed'; readonly exportId: string; readonly title: string; readonly locale?: string | undefined };

/** Who opened the page, as far as their words go: the browser's `Accept-Language` (page-language.ts). */
export interface PageReader {
  readonly acceptLanguage?: string | undefined;
}

/** `GET /run/{token}`: the export to show (running, or finished and reusable), or the button. */
export async function viewRunLink(token: string | undefined, deps: RunLinkDependencies, reader: PageReader = {}): Promise<RunView> {
  const now = deps.clock();
  const claims = await admit(token, deps, now, (id) => deps.ledger.isRevoked(id), reader);
  if (!claims || token === undefined) return { state: 'refused' };
  const joined = await joinable(await heldRun(claims.report, deps, now), claims, token, deps, now);
  return joined ?? { state: 'ready', ...pageOf(claims) };
}

/** `POST /run/{token}` (the button): start, join or reuse an export of the token's report. */
export async function startRunLink(token: string | undefined, deps: RunLinkDependencies, reader: PageReader = {}): Promise<RunView> {
  const now = deps.clock();
  const claims = await admit(token, deps, now, (id) => deps.ledger.isRevoked(id), reader);
  if (!claims || token === undefined) return { state: 'refused' };
  const page = pageOf(claims);
  const at = now.toISOString();
  // The slot first (report-run.ts): of racing opens exactly one wins it, and only the winner counts
  // a start and writes a job; the others join it (as "starting" until its job exists).
  const claim = await claimReportRun(
    claims.report,
    () => ({ exportId: (deps.newId ?? randomUUID)(), startedAt: at }),
    deps,
    now,
    async (held) => {
      const view = await joinable(held, claims, token, deps, now);
      if (view) deps.log.info('run link joined an export', { report: claims.report, exportId: held?.slot.exportId, state: view.state, link: claims.jti });
      return view;
    },
    async () => ((await deps.ledger.canStart(claims.jti, now, deps.startLimit)) ? undefined : limited(claims, page, deps, now)),
  );
  if (claim.kind === 'answered') return claim.answer;
  // Three lost races in a row: someone else is starting this report right now; show theirs.
  if (claim.kind === 'lost') return claim.slot ? { state: 'running', exportId: claim.slot.exportId, ...page, progress: undefined } : { state: 'refused' };
  const id = claim.slot.exportId;
  if (!(await deps.ledger.takeStart(claims.jti, now, deps.startLimit))) {
    await deps.jobs.put({ id, report: claims.report, status: 'failed', createdAt: at, updatedAt: at, error: 'start limit reached' });
    return limited(claims, page, deps, now);
  }
  await deps.jobs.put({ id, report: claims.report, status: 'queued', createdAt: at, updatedAt: at });
  try {
    await deps.launcher.launch({ report: claims.report, exportId: id, source: 'api' });
  } catch (error) {
    deps.log.error('run link could not start the export job', { exportId: id, error: errorMessage(error) });
    await deps.jobs.update(id, { status: 'failed', error: 'the export could not be started; try again' }, now);
    return { state: 'failed', exportId: id, ...page };
  }
  deps.log.info('run link started an export', { report: claims.report, exportId: id, link: claims.jti });
  return { state: 'running', exportId: id, ...page, progress: undefined };
}

/**
 * The view of what holds the report's slot when it is worth joining: running (or just being
 * started), or finished less than `reuseMinutes` ago. Undefined when a new export is due.
 */
async function joinable(held: HeldRun | undefined, claims: AdmittedClaims, token: string, deps: RunLinkDependencies, now: Date): Promise<RunView | undefined> {
  if (!held) return undefined;
  if (!held.job) return held.running ? { state: 'running', exportId: held.slot.exportId, ...pageOf(claims), progress: undefined } : undefined;
  if (held.job.report !== claims.report) return undefined;
  const view = await viewOf(held.job, claims, token, deps, now);
  const fresh = now.getTime() - Date.parse(held.job.updatedAt) < deps.reuseMinutes * 60_000;
  return view.state === 'running' || (view.state === 'done' && fresh) ? view : undefined;
}

function limited(claims: AdmittedClaims, page: PageOf, deps: RunLinkDependencies, now: Date): RunView {
  deps.log.warn('run link start limit reached', { report: claims.report, link: claims.jti });
  const windowEnd = (Math.floor(now.getTime() / deps.startLimit.windowMs) + 1) * deps.startLimit.windowMs;
  return { state: 'limited', retryAfterSeconds: Math.ceil((windowEnd - now.getTime()) / 1000), ...page };
}

/**
 * `GET /run/{token}/status?export=<id>` and the page of one export: the state of an export the
 * token's report owns. One job-status read; revocation comes from `isRevoked` (cached).
 */
export async function showRun(token: string | undefined, exportId: string | undefined, deps: RunLinkDependencies, reader: PageReader = {}): Promise<RunView> {
  const now = deps.clock();
  const claims = await admit(token, deps, now, deps.isRevoked ?? ((id) => deps.ledger.isRevoked(id)), reader);
  if (!claims || token === undefined || exportId === undefined || !EXPORT_ID_PATTERN.test(exportId)) return { state: 'refused' };
  const job = await deps.jobs.get(exportId);
  if (!job) {
    // Just started by another open: the slot names it a moment before its job status exists.
    const slot = await deps.ledger.currentRun(claims.report);
    const starting = slot?.exportId === exportId && isStarting(slot, now);
    const page = pageOf(claims);
    // A bookmarked page of an export whose record has expired: the link is valid, that copy is not kept.
    return starting ? { state: 'running', exportId, ...page, progress: undefined } : { state: 'ready', ...page, gone: true };
  }
  // Another report's export id is refused exactly like a bad token: the link grants one report.
  if (job.report !== claims.report) return { state: 'refused' };
  return viewOf(job, claims, token, deps, now);
}

export type RunDownload = { readonly state: 'refused' } | { readonly state: 'gone' } | { readonly state: 'found'; readonly key: string; readonly name: string };

/**
 * `GET /run/{token}/download?export=<id>&file=<path>`: the storage key of one file of a finished
 * export, checked at every click against the run link itself (signature, expiry, configuration and
 * revocation, read from the ledger, not the cache), so revoking the run link stops its downloads at
 * once; the caller redirects to a presigned URL that lives a few minutes. `gone`: not (or no
 * longer) a file of a finished export of this report.
 */
export async function findRunDownload(
  token: string | undefined,
  exportId: string | undefined,
  file: string | undefined,
  deps: RunLinkDependencies,
): Promise<RunDownload> {
  const now = deps.clock();
  const claims = await admit(token, deps, now, (id) => deps.ledger.isRevoked(id));
  if (!claims || exportId === undefined || !EXPORT_ID_PATTERN.test(exportId)) return { state: 'refused' };
  const job = await deps.jobs.get(exportId);
  if (!job || job.report !== claims.report) return { state: 'refused' };
  if (job.status !== 'succeeded' || !job.manifestKey || file === undefined) return { state: 'gone' };
  const bytes = await deps.storage.getObject(job.manifestKey);
  const manifest = bytes ? manifestSchema.parse(JSON.parse(Buffer.from(bytes).toString('utf8'))) : undefined;
  const entry = manifest?.files.find((f) => f.path === file);
  if (!manifest || !entry) return { state: 'gone' };
  const title = titleOf(claims);
  return {
    state: 'found',
    key: `${job.manifestKey.slice(0, job.manifestKey.lastIndexOf('/'))}/${entry.path}`,
    name: downloadName(title, entry.path, fileForPeople(entry), manifest, timeZoneOf(claims)),
  };
}

async function admit(
  token: string | undefined,
  deps: RunLinkDependencies,
  now: Date,
  isRevoked: (linkId: string) => Promise<boolean>,
  reader: PageReader = {},
): Promise<AdmittedClaims | undefined> {
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
  const definition = await lookupReport(deps.definitions, claims.report);
  if (typeof definition !== 'object' || definition === null) {
    deps.log.warn('run link refused', { reason: 'report-not-configured', link: claims.jti });
    return undefined;
  }
  if (await isRevoked(claims.jti)) {
    deps.log.warn('run link refused', { reason: 'revoked', link: claims.jti });
    return undefined;
  }
  const written = definition as Readonly<Record<string, unknown>>;
  return { ...claims, definition: written, locale: pageLocale(claims.lang ?? ownLocale(written), reader.acceptLanguage) };
}

async function viewOf(job: JobStatus, claims: AdmittedClaims, token: string, deps: RunLinkDependencies, now: Date): Promise<RunView> {
  const page = pageOf(claims);
  if (job.status === 'queued' || job.status === 'running') {
    if (now.getTime() - Date.parse(job.updatedAt) > deps.staleAfterMs) return { state: 'failed', exportId: job.id, ...page };
    return { state: 'running', exportId: job.id, ...page, progress: job.progress };
  }
  if (job.status === 'failed' || !job.manifestKey) return { state: 'failed', exportId: job.id, ...page };
  const bytes = await deps.storage.getObject(job.manifestKey);
  // The files have expired (bucket lifecycle): to the person this is a run to start again.
  if (!bytes) return { state: 'failed', exportId: job.id, ...page };
  const manifest = manifestSchema.parse(JSON.parse(Buffer.from(bytes).toString('utf8')));
  const address = encodeURIComponent(token);
  return finishedView(manifest, {
    exportId: job.id,
    ...page,
    timeZone: timeZoneOf(claims),
    fresh: now.getTime() - Date.parse(job.updatedAt) < deps.reuseMinutes * 60_000,
    href: (path) => `${address}/download?export=${encodeURIComponent(job.id)}&file=${encodeURIComponent(path)}`,
    rules: rulesOf(claims),
  });
}

/**
 * The finished page's view of a run's manifest: its headline figures, notes and files in the
 * report's locale and zone. Also what `npm run pictures` draws from the demo's last run.
 */
export function finishedView(
  manifest: Manifest,
  run: {
    readonly exportId: string;
    readonly title: string;
    readonly timeZone: string;
    readonly locale: string;
    readonly fresh: boolean;
    readonly href: (path: string) => string;
    /** The report's alert rules: each headline figure beyond one of their lines says so, as the e-mail and chat do. */
    readonly rules?: readonly AlertRule[] | undefined;
  },
): Extract<RunView, { state: 'done' }> {
  const { exportId, title, timeZone, locale, fresh, href, rules } = run;
  const format = readerFormat(locale, timeZone);
  // The figures' labels in the page's language when the run stored its Summary in it (a reader's own locale).
  const summary = summaryInLanguage(manifest, locale);
  return {
    state: 'done',
    exportId,
    title,
    finishedAt: manifest.generatedAt,
    timeZone,
    locale,
    fresh,
    figures: headlineFigures(manifest, summary, format, rules ?? []),
    changesSince: changesHeader(summary, format),
    notes: readerNotes(summary, format),
    files: runFiles(manifest, { title, timeZone, href }),
  };
}

/** The files of a finished run as its page lists them, each named for people by its format (names.ts). */
export function runFiles(
  manifest: Pick<Manifest, 'files' | 'generatedAt'>,
  page: { readonly title: string; readonly timeZone: string; href(path: string): string },
  names: ReportNames = NAMES,
): RunFile[] {
  const files = manifest.files.map((file) => ({ file, shown: fileForPeople(file, names) }));
  // The primary file (the workbook) first: it is the button the page focuses and downloads.
  files.sort((a, b) => Number(b.shown.primary) - Number(a.shown.primary));
  return files.map(({ file, shown }) => ({
    ...shown,
    name: downloadName(page.title, file.path, shown, manifest, page.timeZone),
    format: file.format,
    bytes: file.bytes,
    href: page.href(file.path),
  }));
}

/**
 * The figures the e-mail opens with, written the same way and under the same headings: the Summary's
 * headline sections (risks, ROAM, OKR progress, PI objectives, predictability), each line, then each
 * row of its table by the figure the e-mail draws as a bar (OKR progress per theme, predictability
 * per board). A figure beyond one of the report's alert lines says so before its change, as the
 * e-mail and chat write it ("above your line of 29 · +1 since …"): the page's reader is one of the
 * report's, whose lines those are.
 */
function headlineFigures(manifest: Manifest, summary: StoredSummary, format: ReaderFormat, rules: readonly AlertRule[]): RunFigure[] {
  // The figures' rules alone: an event is news of the run, said by the messages, not a mark on a figure.
  const readings = readRules(rules.filter((r) => r.figure !== undefined), { figures: manifest.summary, changes: { rows: [] } }, format);
  return markedSummary(summary, readings, format)
    .sections.filter((s) => s.role === 'headline')
    .flatMap((s) => [
      ...s.lines.map((line) => ({ group: s.heading, label: line.label, value: cellText(line.value, line.type, format, false), delta: changeWithMark(line) })),
      ...barFigures(s, format),
    ]);
}

/** "Change since 22/11/2026": the figures' changes are each shown without their date, which this header says once. */
function changesHeader(summary: StoredSummary, format: ReaderFormat): string | undefined {
  const since = changesSince(summary.sections.filter((s) => s.role === 'headline'));
  return since === undefined ? undefined : format.t('delta.column', { date: since });
}

/** The run's Summary as its manifest stores it (the table layer's ReportSummary, which this layer reaches through the report's). */
type StoredSummary = ReturnType<typeof summaryFromManifest>;

/** A section of the run's Summary. */
type SummarySection = StoredSummary['sections'][number];

/** A headline table's rows as figures: the row's name (its first cell) and its barred figure; none for a table without a bar. */
function barFigures(section: SummarySection, format: ReaderFormat): RunFigure[] {
  const columns = section.grid?.columns ?? [];
  const bar = columns.findIndex((c) => c.bar === true);
  if (bar < 1) return [];
  return (section.grid?.rows ?? []).map((row) => ({
    group: section.heading,
    label: cellText(row.values[0] ?? '', undefined, format, false),
    value: cellText(row.values[bar] ?? null, columns[bar]!.type, format, false),
  }));
}

/** "Needs attention" and "What changed", in the Summary's order (the e-mail's): a line per item or change. */
function readerNotes(summary: StoredSummary, format: ReaderFormat): RunNote[] {
  return summary
    .sections.filter((s) => s.role === 'attention' || s.role === 'changes')
    .map((s) => ({
      heading: s.heading,
      lines: [
        ...s.lines.map((line) => linked((s.role === 'changes' && line === s.lines[0] ? '' : `${line.label}: `) + cellText(line.value, line.type, format, false), webAddress(line.link))),
        ...(s.grid?.rows ?? []).map((row) =>
          linked(row.values.filter((v) => v !== null && v !== undefined && v !== '').map((v) => cellText(v, undefined, format, false)).join(' · '), row.values.map(webAddress).find((u) => u !== undefined)),
        ),
      ],
    }));
}

/** A note's line, linked to the item's tracker page when one is known; text otherwise. */
function linked(text: string, url: string | undefined): RunNote['lines'][number] {
  return url === undefined ? text : { text, url };
}

/**
 * The name a browser saves a file under, for the person who downloads it:
 * `Demo company – PI objective items – 2026-11-23.csv`, the workbook `Demo company – 2026-11-23.xlsx`.
 */
export function downloadName(
  title: string,
  path: string,
  shown: Pick<FileForPeople, 'label' | 'primary'>,
  manifest: Pick<Manifest, 'generatedAt'>,
  timeZone: string,
): string {
  const file = path.split('/').pop() ?? path;
  const dot = file.lastIndexOf('.');
  const extension = dot > 0 ? file.slice(dot) : '';
  const table = shown.primary ? undefined : shown.label;
  const day = formatDateInZone(new Date(manifest.generatedAt), timeZone);
  // A title may carry characters a file system refuses; they become a dash.
  const safe = (text: string) => [...text].map((c) => (c < ' ' || '\\/:*?"<>|'.includes(c) ? '-' : c)).join('').trim();
  return [safe(title), table && safe(table), day].filter(Boolean).join(' – ') + extension;
}

/** A verified token of a configured report, with that report's definition (as written). */
type AdmittedClaims = RunLinkClaims & {
  readonly definition: Readonly<Record<string, unknown>>;
  /** The page's locale: the link's reader's (its `lang`), the report's, the browser's, or English (page-language.ts). */
  readonly locale: string;
};

function timeZoneOf(claims: AdmittedClaims): string {
  const zone = claims.definition.timeZone;
  return typeof zone === 'string' && zone.length > 0 ? zone : 'UTC';
}

/** The report's locale as its definition names it (a stored report was validated on upload), if it names one. */
function ownLocale(definition: Readonly<Record<string, unknown>>): string | undefined {
  const locale = definition.locale;
  return typeof locale === 'string' && localeProblem(locale) === undefined ? canonicalLocale(locale) : undefined;
}

/** What every view of the link's report carries: the report's title and the page's locale. */
type PageOf = { readonly title: string; readonly locale: string };

function pageOf(claims: AdmittedClaims): PageOf {
  return { title: titleOf(claims), locale: claims.locale };
}

/** The report's alert rules as its definition names them (a stored report was validated on upload); none when they do not parse. */
function rulesOf(claims: AdmittedClaims): readonly AlertRule[] {
  const alerts = alertsSchema.safeParse(claims.definition.alerts);
  return alerts.success ? alerts.data.rules : [];
}

function titleOf(claims: AdmittedClaims): string {
  const title = claims.definition.title;
  return typeof title === 'string' && title.length > 0 ? title : claims.report;
}
