import type { ChannelResult } from '../../channels/deliver';
import { errorMessage, ExporterError } from '../../core/errors';
import { readerFormat } from '../../core/format';
import { alertTargets, NOBODY, sendAlert, type AlertDelivery, type CoveredTargets } from '../../messages/alert-delivery';
import type { BeyondNow, OwedLine } from '../../messages/alert-owed';
import type { MailedRecipients } from '../../messages/notices/recipient-notice';
import { outboxRecorder, type RunRef } from '../../messages/outbox';
import { stepCrossing } from '../../report/alerts/crossing-state';
import { readRules, type RuleReading } from '../../report/alerts/read-rules';
import { NO_TRANSPORT_HINT } from './deliver';
import { isInline } from './resolve';
import type { DeliveryContext, ExportedJob } from './delivery-ports';

/**
 * The alert stage, after deliver: reads the definition's alert rules (`alerts`, docs/reports.md)
 * against the figures and the comparison the run already computed, steps each rule's crossing state
 * in the ledger (report/alerts/crossing-state.ts: a line crossed is told of once, until the figure
 * came back and crossed again) and sends one short alert naming what crossed, claimed once per run
 * (messages/alert-delivery.ts). On-demand exports neither move the state nor alert: an alert is news
 * between the report's own runs. A report with `delivery.when: "alerts-only"` sends only this.
 */
export interface RunAlerts {
  /** An alert went out on this attempt (an e-mail or a chat post). */
  readonly sent: boolean;
  /** Why, in a sentence for people: `sent: openHighRisks above 29 (1 line crossed)`, `no line crossed`. */
  readonly reason: string;
  /** Each rule's state after this run: beyond its line, on the right side, or waiting (no value). */
  readonly rules: readonly { readonly rule: string; readonly state: 'beyond' | 'clear' | 'waiting'; readonly news: number }[];
  readonly channels: readonly ChannelResult[];
  /** Where the outbox put the alert (empty when it was sent). */
  readonly written: readonly string[];
}

/** What the alert stage reads of the job's context: the deliver stage's ports but the run's storage (an alert attaches no file). */
type AlertContext = Omit<DeliveryContext, 'storage'>;

const nothing = (reason: string): RunAlerts => ({ sent: false, reason, rules: [], channels: [], written: [] });

/**
 * What a run's alert rules found, read before the run's messages go out (so a reader of both gets
 * one message: the weekly one, opened by the lines crossed) and sent after them: this run's news,
 * what each rule finds beyond its line now, and each rule's state. `skip`: not evaluated, and why.
 */
export type SteppedAlerts =
  | { readonly kind: 'skip'; readonly outcome: RunAlerts }
  | { readonly kind: 'read'; readonly news: readonly OwedLine[]; readonly beyond: BeyondNow; readonly readings: readonly RuleReading[]; readonly rules: RunAlerts['rules'] };

/**
 * Reads the rules against the run and steps each rule's crossing state in the ledger (once per run:
 * a retry reads the step its first attempt wrote). Never throws: a failure is the outcome's reason.
 */
export async function stepAlerts(job: ExportedJob, context: Pick<DeliveryContext, 'ledger' | 'log' | 'outbox' | 'mail' | 'channels'>): Promise<SteppedAlerts> {
  const { definition, result } = job;
  const skip = (reason: string): SteppedAlerts => ({ kind: 'skip', outcome: nothing(reason) });
  if (!definition.alerts) return skip('the report names no alerts');
  if (isInline(job.request) || job.request.exportId !== undefined || (definition.deliveries?.length ?? 0) > 0) {
    return skip('not evaluated: an on-demand export (or a whole report with deliveries) does not move the alerts');
  }
  // Without a transport the state would move while nobody is told: the crossing would be lost.
  if (!context.outbox && !context.mail && !context.channels) return skip(`not evaluated: nothing here sends alerts (${NO_TRANSPORT_HINT})`);
  try {
    const format = readerFormat(definition.locale, definition.timeZone);
    const readings = readRules(definition.alerts.rules, { figures: result.manifest.summary, changes: result.changes }, format);
    const run = { report: definition.name, runId: result.manifest.runId, generatedAt: new Date(result.manifest.generatedAt) };
    const news: OwedLine[] = [];
    const rules: RunAlerts['rules'][number][] = [];
    const beyond = new Map<string, ReadonlySet<string> | undefined>();
    for (const reading of readings) {
      const step = await stepCrossing(context.ledger, run, reading.id, reading.items ?? [], reading.hold);
      news.push(...step.news.map((item) => ({ ruleId: reading.id, key: item.key, rule: reading.label, text: item.text })));
      beyond.set(reading.id, reading.items && new Set(reading.items.map((i) => i.key)));
      const state = reading.items === undefined ? 'waiting' : reading.items.length > 0 ? 'beyond' : 'clear';
      rules.push({ rule: reading.id, state, news: step.news.length });
    }
    return { kind: 'read', news, beyond, readings, rules };
  } catch (error) {
    context.log.error('alerts not evaluated: the run stands', { report: definition.name, error: errorMessage(error) });
    return skip(`not sent: ${publicMessageOf(error)}`);
  }
}

/**
 * Sends the alert of what stepAlerts read to every target the run's own message did not already
 * tell (`covered`: the addresses and channels whose weekly message opened with the lines crossed).
 * Never throws: an alert that could not go out is said in `reason` (and owed to its target by the
 * next run, alert-owed.ts), and the published run stays published.
 */
export async function alertRun(job: ExportedJob, context: AlertContext, stepped: SteppedAlerts, covered: CoveredTargets = NOBODY): Promise<AlertedRun> {
  if (stepped.kind === 'skip') return { alerts: stepped.outcome };
  try {
    return await sendRunAlert(job, context, stepped, covered);
  } catch (error) {
    context.log.error('alerts not evaluated: the run stands', { report: job.definition.name, error: errorMessage(error) });
    return { alerts: nothing(`not sent: ${publicMessageOf(error)}`) };
  }
}

/**
 * What the alert stage hands on: what it did, and who its e-mail went to (none when it e-mailed
 * nobody), which the owners' notices step (notice.ts) reads for the alert recipients refused.
 */
export interface AlertedRun {
  readonly alerts: RunAlerts;
  readonly alertMailed?: MailedRecipients | undefined;
}

async function sendRunAlert(job: ExportedJob, context: AlertContext, stepped: SteppedAlerts & { kind: 'read' }, covered: CoveredTargets): Promise<AlertedRun> {
  const { definition, result } = job;
  const { news: lines, rules } = stepped;
  const run = { runId: result.manifest.runId };
  const crossed = rules.filter((r) => r.news > 0).map((r) => r.rule);
  const targets = alertTargets(definition);
  if (targets.email.length + targets.channels.length === 0) {
    const why = lines.length === 0 ? `not sent: no line crossed since the run before (${describeStates(rules)})` : `not sent: ${crossed.join(', ')} crossed, and this delivery names nobody to tell`;
    return { alerts: { ...nothing(why), rules } };
  }
  const ref: RunRef = { report: definition.name, runId: result.manifest.runId, runFolder: result.runFolder };
  const outbox = context.outbox && outboxRecorder(context.outbox, ref, 'alert');
  const sent = await sendAlert(definition, result, stepped, context, outbox, covered);
  const reason = alertReason(run.runId, crossed, lines.length, sent, rules);
  context.log.info('alert', { report: definition.name, runId: run.runId, crossed, reason });
  const any = sent.emailed.length > 0 || sent.channels.some((c) => c.status === 'sent') || sent.covered > 0;
  const alerts = { sent: any, reason, rules, channels: sent.channels, written: [...(outbox?.written ?? [])] };
  return { alerts, ...(sent.emailed.length + sent.notEmailed.length > 0 && { alertMailed: mailedOf(sent) }) };
}

/** Who the alert's e-mail went to: an address whose message an earlier attempt sent counts as mailed. */
function mailedOf(sent: AlertDelivery): MailedRecipients {
  const mailed = sent.emailed.length + sent.emailedBefore;
  const refused = sent.notEmailed.filter((n) => n.refused).map(({ address, reason }) => ({ address, reason }));
  return { recipients: mailed + sent.notEmailed.length, mailed, refused };
}

/** The alert's outcome in a sentence: what crossed, what an earlier run owed, who did not get it. */
function alertReason(runId: string, crossed: readonly string[], news: number, sent: AlertDelivery, rules: RunAlerts['rules']): string {
  const any = sent.emailed.length > 0 || sent.channels.some((c) => c.status === 'sent') || sent.covered > 0;
  const failedChannels = sent.channels.filter((c) => c.status === 'failed');
  const missed = [...sent.notEmailed.map((n) => `${n.address} (${n.reason})`), ...failedChannels.map((c) => `${c.type} (${c.error ?? 'failed'})`)];
  const missedNote = missed.length > 0 ? `; not delivered, owed to the next run: ${missed.join(', ')}` : '';
  if (news === 0 && !any) return `not sent: no line crossed since the run before (${describeStates(rules)})${missedNote}`;
  const owedNote = sent.owedSent > 0 ? `; with ${sent.owedSent} ${sent.owedSent === 1 ? 'line' : 'lines'} an earlier run could not deliver` : '';
  const again = !any && missed.length === 0 && sent.emailedBefore > 0 && sent.channels.every((c) => c.status === 'skipped');
  if (again) return `not sent again: an earlier attempt of run ${runId} sent its alert (${crossed.join(', ')})`;
  const what = news > 0 ? `${crossed.join(', ')} crossed (${news} ${news === 1 ? 'line' : 'lines'})` : 'what an earlier run could not deliver';
  const coveredNote = sent.covered > 0 ? `; ${sent.covered} ${sent.covered === 1 ? 'target' : 'targets'} told in the run's own message` : '';
  return `${any ? 'sent' : 'not sent'}: ${what}${news > 0 ? owedNote : ''}${coveredNote}${missedNote}`;
}

/** What an error says to people: ours carry a public message; anything else is said as a failure to send. */
function publicMessageOf(error: unknown): string {
  return error instanceof ExporterError ? error.publicMessage : `the alert could not be sent (${errorMessage(error)})`;
}

function describeStates(rules: RunAlerts['rules']): string {
  return rules.map((r) => `${r.rule}: ${r.state === 'beyond' ? 'still beyond its line' : r.state === 'clear' ? 'clear' : 'no value yet'}`).join('; ');
}
