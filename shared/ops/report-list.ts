import { errorMessage } from '../core/errors';
import type { DefinitionStore } from '../definitions/definition-store';
import { nextRun } from '../definitions/next-run';
import type { ReportScheduler } from '../definitions/report-schedule';
import type { StoredDefinition } from '../definitions/stored-definition';
import { recipientAddresses } from '../report/definition/definition';
import { ledgerKey, type Ledger } from '../ledger/ledger';
import { latestPointerSchema, manifestSchema } from '../report/manifest/manifest';
import type { Storage } from '../storage/storage';
import { notificationStateKey } from '../messages/notices/failure-notice';
import { notificationStateSchema } from '../messages/notices/owner-notice';
import { SuppressionList } from '../messages/recipients/suppressions';
import { operatorFindings } from '../report/dataset/field-audit';
import { alertsLine, alertStates } from './report-alerts';

/**
 * The run list of `npm run reports -- list`: each stored report with its schedule, when it runs
 * next, whether its schedule exists, and its last run with the result in words ("succeeded; not
 * sent: nothing changed since run … and delivery.when is \"changed\"", "failed: …").
 */
export interface ReportListEntry {
  readonly name: string;
  readonly title: string;
  /** `cron(0 7 ? * MON *) Europe/Berlin`, or `on demand`. */
  readonly schedule: string;
  readonly nextRun?: Date;
  /**
   * Stored reports whose next run is the same minute as this one's, this one included: a crowded minute
   * is late by minutes, not lost (docs/deploy.md, "Capacity"), and the operators see where the crowd is.
   */
  readonly sameMinute?: number;
  /** Whether the scheduler holds the schedule the stored report asks for (undefined: not checked). */
  readonly scheduleState?: 'present' | 'missing' | 'outdated';
  /**
   * `source`: where the run read and as whom (the planning API's addresses, the company prefix, the
   * exporting account), from its manifest: the operators' business, kept out of the readers' pages.
   */
  readonly lastRun?: { readonly at: string; readonly runId: string; readonly result: string; readonly source?: string };
  /** What is wrong with a stored object that is not a valid report. */
  readonly problem?: string;
  /** The report's alert rules and who is told, then where each rule stands after the last run (report-alerts.ts). */
  readonly alerts?: readonly string[];
  /** Recipients the report no longer e-mails: unsubscribed, bounced or complained (suppressions.ts). */
  readonly notEmailed?: readonly { readonly address: string; readonly reason: string; readonly since: string }[];
}

export interface ReportListDependencies {
  readonly store: DefinitionStore;
  readonly now: Date;
  /** The run ledger scoped to the reports' storage: last runs. */
  readonly ledger?: Ledger;
  /** The reports' storage: the last run's manifest (whether its message went out). */
  readonly storage?: Storage;
  readonly scheduler?: Pick<ReportScheduler, 'get'>;
}

export async function listReports(deps: ReportListDependencies): Promise<ReportListEntry[]> {
  const entries: ReportListEntry[] = [];
  for (const name of await deps.store.names()) entries.push(await entryOf(name, deps));
  return withSameMinute(entries);
}

/** Each scheduled entry with how many reports share its next minute. */
function withSameMinute(entries: readonly ReportListEntry[]): ReportListEntry[] {
  const minuteOf = (at: Date): number => Math.floor(at.getTime() / 60_000);
  const counts = new Map<number, number>();
  for (const e of entries) if (e.nextRun) counts.set(minuteOf(e.nextRun), (counts.get(minuteOf(e.nextRun)) ?? 0) + 1);
  return entries.map((e) => (e.nextRun ? { ...e, sameMinute: counts.get(minuteOf(e.nextRun)) ?? 1 } : e));
}

async function entryOf(name: string, deps: ReportListDependencies): Promise<ReportListEntry> {
  let stored: StoredDefinition | undefined;
  try {
    stored = await deps.store.read(name, { fresh: true });
  } catch (error) {
    return { name, title: name, schedule: '—', problem: errorMessage(error) };
  }
  if (!stored) return { name, title: name, schedule: '—', problem: 'deleted while listing' };
  const schedule = stored.schedule;
  const next = schedule ? nextRun(schedule, deps.now) : undefined;
  const lastRun = deps.ledger ? await lastRunOf(name, deps.ledger, deps.storage) : undefined;
  const scheduleState = deps.scheduler && schedule ? await scheduleStateOf(name, schedule, deps.scheduler) : undefined;
  const email = stored.parsed.email;
  const suppressed = deps.ledger && email ? await new SuppressionList(deps.ledger).of(name, recipientAddresses(email)) : {};
  const notEmailed = Object.entries(suppressed).map(([address, s]) => ({ address, reason: s.reason, since: s.since }));
  const alertRules = alertsLine(stored.parsed);
  const alerts = alertRules === undefined ? [] : [alertRules, ...(deps.ledger ? await alertStates(stored.parsed, deps.ledger) : [])];
  return {
    name,
    title: stored.parsed.title ?? name,
    schedule: schedule ? `${schedule.cron} ${schedule.timeZone}` : 'on demand',
    ...(next && { nextRun: next }),
    ...(scheduleState && { scheduleState }),
    ...(lastRun && { lastRun }),
    ...(alerts.length > 0 && { alerts }),
    ...(notEmailed.length > 0 && { notEmailed }),
  };
}

/** Whether the scheduler holds the schedule a stored report asks for (the run list, and `npm run preflight`). */
export async function scheduleStateOf(name: string, wanted: { cron: string; timeZone: string }, scheduler: Pick<ReportScheduler, 'get'>): Promise<ReportListEntry['scheduleState']> {
  const actual = await scheduler.get(name);
  if (!actual) return 'missing';
  return actual.cron === wanted.cron.trim() && actual.timeZone === wanted.timeZone ? 'present' : 'outdated';
}

/** The later of the last published run and the start of a failure streak, in words. */
async function lastRunOf(name: string, ledger: Ledger, storage: Storage | undefined): Promise<ReportListEntry['lastRun']> {
  const latest = latestPointerSchema.safeParse((await ledger.get(ledgerKey('latest', name)))?.value);
  const notice = notificationStateSchema.safeParse((await ledger.get(notificationStateKey(name)))?.value);
  const failing = notice.success && notice.data.status === 'failing' ? notice.data : undefined;
  if (failing && (!latest.success || failing.since > latest.data.generatedAt)) {
    return { at: failing.since, runId: failing.runId, result: `failed: ${failing.reason ?? 'see the export-report log'}` };
  }
  if (!latest.success) return undefined;
  const told = storage ? await resultOf(storage, latest.data.manifest) : { result: [], source: undefined };
  return {
    at: latest.data.generatedAt,
    runId: latest.data.runId,
    result: ['succeeded', ...told.result].join('; '),
    ...(told.source !== undefined && { source: told.source }),
  };
}

/**
 * What the run's manifest says beyond "succeeded": the path of a fanned-out run, and its message's
 * fate; and where it read from, as whom.
 */
async function resultOf(storage: Storage, manifestKey: string): Promise<{ result: string[]; source: string | undefined }> {
  const bytes = await storage.getObject(manifestKey);
  if (!bytes) return { result: [], source: undefined };
  const manifest = manifestSchema.safeParse(JSON.parse(Buffer.from(bytes).toString('utf8')));
  if (!manifest.success) return { result: [], source: undefined };
  const { path, delivery, source } = manifest.data;
  const fannedOut = path?.via === 'fan-out' ? [`written by the fan-out${path.reason ? ` (${path.reason})` : ''}`] : [];
  const findings = operatorFindings(manifest.data.summary).length;
  const unprinted = (manifest.data.summary.unprintedText ?? []).reduce((sum, u) => sum + u.characters, 0);
  const noted = [
    ...(findings > 0 ? [`${findings} served ${findings === 1 ? 'field is' : 'fields are'} in no column or of an unexpected shape (see the manifest)`] : []),
    ...(unprinted > 0 ? [`the PDF printed ${unprinted} ${unprinted === 1 ? 'character' : 'characters'} its fonts lack as "?" (see the manifest)`] : []),
  ];
  return {
    result: [...fannedOut, ...(delivery ? [delivery.reason] : []), ...noted],
    source: `${source.baseUrl} (legacy API ${source.legacyBaseUrl}), company prefix ${source.companyPrefix}, as ${source.email}`,
  };
}
