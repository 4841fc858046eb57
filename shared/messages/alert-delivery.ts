import type { AlertLine, AlertMessage } from '../channels/channel';
import { channelWords } from '../channels/channel';
import { describeWebhook, postToChannels, type ChannelDeliveryDependencies, type ChannelResult } from '../channels/deliver';
import type { ChannelTarget } from '../channels/delivery-option';
import { EmailDeliveryError, errorMessage, ExporterError } from '../core/errors';
import { readerFormat, type ReaderFormat } from '../core/format';
import { readRules } from '../report/alerts/read-rules';
import { emailReaders } from '../report/definition/readers';
import { recipientAddresses, type ReportDefinition } from '../report/definition/definition';
import type { ExportResult } from '../report/run/result';
import { alertEmail } from './alert-email';
import { keepOwed, owedTo, withOwed, type BeyondNow, type OwedLine } from './alert-owed';
import { messageRunKey, sendOnce } from './message-claim';
import { currentSigningKey, unsubscribeLinkUrl, workbookLink, type SigningKey } from './message-links';
import { channelPosting, senderOf, type MessagePorts } from './message-ports';
import type { OutboxRecorder } from './outbox';
import type { RunNews } from './reader-news';
import { SuppressionList } from './recipients/suppressions';

/**
 * Sends a run's alert (docs/reports.md, "Alerts") to the e-mail recipients and chat channels the
 * definition's `alerts.to` names (default: the report's own), each message claimed once per run in
 * the ledger (`alert:…` beside the report message's claims, message-claim.ts), so a retry of the run
 * sends only what an earlier attempt did not. A suppressed address (unsubscribed, bounced) gets none.
 *
 * Each recipient and channel is on its own: one refused address or failing webhook is named in the
 * outcome and silences nobody else, and what it did not get is owed to it (alert-owed.ts): the next
 * run sends it again, with its own news, until it goes out or the figure came back. Never throws.
 */
/**
 * The targets (`email:<address>`, `<type>:<secret>:<field>`, as the alert claims them) whose weekly
 * message of this run opened with the lines crossed: one message per reader per run.
 */
export type CoveredTargets = ReadonlySet<string>;
export const NOBODY: CoveredTargets = new Set();

/** A target's name in the alert's claims and what it is owed: `email:<address>` or `<type>:<secret>:<field>`. */
export const emailTarget = (address: string) => `email:${address.toLowerCase()}`;
export const channelTarget = (target: ChannelTarget) => `${target.type}:${target.webhook.secretId}:${target.webhook.key}`;

export interface AlertDelivery {
  /** Addresses e-mailed on this attempt. */
  readonly emailed: readonly string[];
  /** Addresses an earlier attempt of the run e-mailed already. */
  readonly emailedBefore: number;
  /** Addresses not e-mailed: unsubscribed or bounced. */
  readonly suppressed: number;
  /**
   * Addresses the alert did not reach on this attempt, and why: owed to them by the next run.
   * `refused`: the mail service refused the address for good (SES `MessageRejected`), the owners' business.
   */
  readonly notEmailed: readonly { readonly address: string; readonly reason: string; readonly refused: boolean }[];
  readonly channels: readonly ChannelResult[];
  /** Lines sent now that an earlier run could not deliver (to any target). */
  readonly owedSent: number;
  /** Targets not sent a separate alert: the run's own message told them. */
  readonly covered: number;
}

/** Where the alerts of a definition go: `alerts.to`, else the report's e-mail recipients and chat channels. */
export function alertTargets(definition: ReportDefinition): { email: string[]; channels: ChannelTarget[] } {
  const to = definition.alerts?.to;
  if (to) return { email: [...(to.email ?? [])], channels: [...(to.channels ?? [])] };
  const email = definition.email ? recipientAddresses(definition.email) : [];
  return { email, channels: [...(definition.delivery?.channels ?? [])] };
}

/** One run's alert as every target shares it: the run, its news and what each rule finds beyond its line now. */
interface AlertRun {
  readonly definition: ReportDefinition;
  readonly result: ExportResult;
  readonly news: readonly OwedLine[];
  readonly beyond: BeyondNow;
}

/**
 * How a run's alert goes out: the job's context (its mail the outbox's where the alert is written),
 * the alert's moment (the clock read once, as it starts: the time of the claims and the links), the
 * current link key (none: the alert goes out without links) and the workbook's link signed with it.
 */
interface AlertSending {
  readonly context: MessagePorts;
  readonly now: Date;
  readonly signing: SigningKey | undefined;
  readonly workbookUrl: string | undefined;
}

/** What one target was sent: `sent` (now), `before` (an earlier attempt), `failed`, or `none` (nothing to tell it). */
type TargetOutcome =
  | { readonly status: 'sent' | 'before' | 'none'; readonly owed: number }
  | { readonly status: 'failed'; readonly reason: string; readonly refused: boolean; readonly owed: number };

/**
 * `outbox`: the alert is written there instead of sent; `covered`: targets the run's own message told
 * already (its banner), which get no separate alert.
 */
export async function sendAlert(
  definition: ReportDefinition,
  result: ExportResult,
  news: Pick<RunNews, 'news' | 'beyond'>,
  context: MessagePorts,
  outbox: OutboxRecorder | undefined,
  covered: CoveredTargets = NOBODY,
): Promise<AlertDelivery> {
  const targets = alertTargets(definition);
  const now = context.clock();
  const signing = await currentSigningKey(context, definition.name, 'link keys unreadable: the alert goes out without links');
  const mail = outbox ? outbox.mailer(now, targets.email.length === 1 ? targets.email[0] : undefined) : context.mail;
  const sending: AlertSending = { context: { ...context, mail }, now, signing, workbookUrl: signing && workbookLink(definition, result, signing, now) };
  const run: AlertRun = { definition, result, news: news.news, beyond: news.beyond };
  const posted = await alertChannels(run, sending, targets.channels, covered, outbox?.channelWriter(targets.channels));
  const recipients = [...new Map(targets.email.map((a) => [a.toLowerCase(), a])).values()];
  const suppressed = await new SuppressionList(context.ledger).of(definition.name, recipients);
  const wanted = recipients.filter((a) => !(a.toLowerCase() in suppressed) && !covered.has(emailTarget(a)));
  const told = [...recipients.map(emailTarget), ...targets.channels.map(channelTarget)].filter((target) => covered.has(target)).length;
  const emailed: string[] = [];
  const notEmailed: { address: string; reason: string; refused: boolean }[] = [];
  let owedSent = posted.owedSent;
  // Each recipient in their own language (definition/readers.ts); an address of alerts.to alone, in the report's.
  const locales = new Map(emailReaders(definition).map((r) => [r.address.toLowerCase(), r.locale]));
  for (const address of wanted) {
    const locale = locales.get(address.toLowerCase()) ?? definition.locale;
    const outcome = await toTarget(run, sending, emailTarget(address), locale, (message, once) => emailOne(run, sending, address, message, once));
    if (outcome.status === 'sent') {
      emailed.push(address);
      owedSent += outcome.owed;
    }
    if (outcome.status === 'failed') notEmailed.push({ address, reason: outcome.reason, refused: outcome.refused });
  }
  return { emailed, emailedBefore: wanted.length - emailed.length - notEmailed.length, suppressed: Object.keys(suppressed).length, notEmailed, channels: posted.channels, owedSent, covered: told };
}

/** The alert to each chat channel the run's own message did not tell, each claimed once per run. */
async function alertChannels(
  run: AlertRun,
  sending: AlertSending,
  targets: readonly ChannelTarget[],
  covered: CoveredTargets,
  write: ChannelDeliveryDependencies['write'],
): Promise<{ channels: ChannelResult[]; owedSent: number }> {
  const channels: ChannelResult[] = [];
  let owedSent = 0;
  for (const target of targets.filter((c) => !covered.has(channelTarget(c)))) {
    let posted: ChannelResult | undefined;
    const outcome = await toTarget(run, sending, channelTarget(target), target.locale ?? run.definition.locale, async (message, once) => {
      [posted] = await postToChannels([target], (channel) => channel.alertPayload(message), channelPosting(sending.context, once, write));
      if (posted?.status === 'failed') throw new Error(posted.error ?? 'the post failed');
      return posted?.status === 'skipped' ? 'skipped' : 'sent';
    });
    if (outcome.status === 'sent') owedSent += outcome.owed;
    if (posted) channels.push(posted);
    else if (outcome.status === 'failed') channels.push({ type: target.type, webhook: describeWebhook(target.webhook), status: 'failed', error: outcome.reason });
  }
  return { channels, owedSent };
}

type Once = (channel: string, send: () => Promise<unknown>) => Promise<'sent' | 'skipped'>;

/**
 * One target's alert: this run's news and what the target is still owed; a failure keeps all of it
 * owed (the next run sends it), a success clears what was owed. Failures are returned, never thrown.
 */
async function toTarget(
  run: AlertRun,
  sending: AlertSending,
  target: string,
  locale: string,
  send: (message: AlertMessage, once: Once) => Promise<'sent' | 'skipped'>,
): Promise<TargetOutcome> {
  const { definition, result } = run;
  const { context, now } = sending;
  const runKey = messageRunKey(definition.name, result.manifest.runId);
  const once: Once = (channel, post) => sendOnce({ ledger: context.ledger, runKey, channel: `alert:${channel}`, log: context.log, now }, post);
  let lines: OwedLine[] = [];
  let owed: OwedLine[] = [];
  try {
    owed = await owedTo(context.ledger, definition.name, target, run.beyond);
    lines = withOwed(run.news, owed);
    if (lines.length === 0) return { status: 'none', owed: 0 };
    const message = alertMessage(definition, result, lines, sending.workbookUrl, locale);
    const status = await send(message, once);
    if (owed.length > 0) await keepOwed(context.ledger, definition.name, target, result.manifest.runId, [], now);
    return { status: status === 'sent' ? 'sent' : 'before', owed: owed.length };
  } catch (error) {
    const reason = errorMessage(error);
    context.log.error('alert not delivered: owed to the next run', { report: definition.name, target: target.startsWith('email:') ? target : target.split(':')[0], error: reason });
    await keepOwed(context.ledger, definition.name, target, result.manifest.runId, lines, now).catch((kept: unknown) => {
      context.log.error('the alert owed could not be kept', { report: definition.name, error: errorMessage(kept) });
    });
    return { status: 'failed', reason, refused: error instanceof EmailDeliveryError && !error.retryable, owed: owed.length };
  }
}

/** The alert e-mail to one address, claimed once per run. */
async function emailOne(run: AlertRun, sending: AlertSending, address: string, message: AlertMessage, once: Once): Promise<'sent' | 'skipped'> {
  const { definition } = run;
  const { context, signing, now } = sending;
  const { mail } = context;
  const from = senderOf(definition, context.sender);
  if (!mail || !from) throw new ExporterError('this report has alert recipients but no mail sender is configured (MAIL_FROM, or email.from)');
  const unsubscribeUrl = signing && unsubscribeLinkUrl(signing, now, { report: definition.name, address });
  const email = alertEmail(message, definition.name, address, { from, unsubscribeUrl });
  return once(`email:${address.toLowerCase()}`, () => mail.send(email));
}

/**
 * The alert of a run in the target's `locale` (default: the report's): its title, when it read the
 * planning tool, the lines crossed and the workbook's link.
 */
export function alertMessage(
  definition: ReportDefinition,
  result: ExportResult,
  lines: readonly AlertLine[],
  workbookUrl: string | undefined,
  locale: string = definition.locale,
): AlertMessage {
  const format = readerFormat(locale, definition.timeZone);
  return {
    title: format.t('alert.title', { title: result.summary.title || (definition.title ?? definition.name) }),
    generated: `${format.dateTime(new Date(result.manifest.generatedAt))} (${format.timeZone})`,
    runId: result.manifest.runId,
    lines: locale === definition.locale ? lines : linesIn(definition, result, lines, format),
    workbookUrl,
    words: channelWords(format.messages),
  };
}

/**
 * The lines crossed in another language than the report's: each rule read again in `format`'s words
 * (its name, its figure and line as that language writes them). A line an earlier run owes that this
 * run no longer finds beyond its line keeps the words it was read in.
 */
function linesIn(definition: ReportDefinition, result: ExportResult, lines: readonly AlertLine[], format: ReaderFormat): AlertLine[] {
  const readings = readRules(definition.alerts?.rules ?? [], { figures: result.manifest.summary, changes: result.changes }, format);
  return lines.map((line) => {
    const owed = line as Partial<OwedLine>;
    const reading = readings.find((r) => r.id === owed.ruleId);
    const item = reading && [...(reading.items ?? []), ...(reading.hold ?? [])].find((i) => i.key === owed.key);
    return reading && item ? { ...line, rule: reading.label, text: item.text } : line;
  });
}
