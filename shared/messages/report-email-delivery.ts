import { EmailDeliveryError, errorMessage, ExporterError } from '../core/errors';
import type { ReportDefinition } from '../report/definition/definition';
import { emailReaders, type Reader } from '../report/definition/readers';
import type { ExportResult } from '../report/run/result';
import type { Storage } from '../storage/storage';
import { alertTargets, emailTarget } from './alert-delivery';
import { keepOwed, targetNews } from './alert-owed';
import { messageRunKey, sendOnce, type SendClaim } from './message-claim';
import { signingKey } from './message-links';
import { senderOf, type MessagePorts } from './message-ports';
import type { RefusedRecipient } from './notices/recipient-notice';
import type { OutboxRecorder } from './outbox';
import { ownedBy, ownSections } from './person-actions';
import type { RunNews } from './reader-news';
import { reportEmailFor, type ReaderOwn } from './report-email';
import { SuppressionList } from './recipients/suppressions';

/**
 * The report e-mail of a run: one message per recipient (each with its own one-click unsubscribe
 * link, RFC 8058), none to an address the report's suppression list holds (unsubscribed, bounced or
 * complained: suppressions.ts), each claimed once per run and recipient in the ledger, so a retry
 * sends only to those an earlier attempt did not reach.
 *
 * Every recipient is mailed on its own: an address the mail service refuses for good (SES
 * `MessageRejected`) is named in the outcome, told to the owners once by the notices step
 * (job/stages/notice.ts), and every other recipient is still mailed; the run stands. A failure another
 * attempt may get past (throttling) is thrown after the others were mailed, so the run's retry sends
 * to that one alone. Only when every recipient is refused does the run fail, as any delivery that
 * reached nobody does.
 */
export interface EmailOutcome {
  /** `sent`: at least one message went out now; `skipped`: every one went out on an earlier attempt; `none`: nobody to e-mail. */
  readonly status: 'sent' | 'skipped' | 'none';
  /** Recipients not e-mailed because they are suppressed. */
  readonly suppressed: number;
  /** Recipients to e-mail this run (not suppressed), and how many of them have the message (now or before). */
  readonly recipients: number;
  readonly mailed: number;
  /** Recipients the mail service refused, with its answer. */
  readonly refused: readonly RefusedRecipient[];
  /** Alert targets (`email:<address>`) whose e-mail of this run opened with the lines crossed: they get no separate alert. */
  readonly covered?: readonly string[];
}

/**
 * What one run's e-mail is sent with: the report and its run, the job's context (its ledger, log,
 * links, mail transport and sender, the storage the workbook is attached from), `now`: the moment of
 * its claims, links and Date header; `inline`: the definition came with the request (no fresh-copy
 * link, the configured sender and the default subject); `news`: the run's alert news, a banner for a
 * recipient the alerts go to as well (reader-news.ts); `outbox`: the messages are written there
 * instead of sent.
 */
export interface RunEmailSends {
  readonly definition: ReportDefinition;
  readonly result: ExportResult;
  readonly context: MessagePorts & { readonly storage: Pick<Storage, 'getObject'> };
  readonly now: Date;
  readonly inline: boolean;
  readonly news: RunNews | undefined;
  readonly outbox: OutboxRecorder | undefined;
}

type RecipientResult = { readonly address: string } & ({ readonly status: 'sent' | 'skipped' } | { readonly status: 'refused' | 'failed'; readonly error: unknown });

/** E-mails the run's report to its recipients; see EmailOutcome for what is thrown and what is told. */
export async function deliverRunEmail(sends: RunEmailSends): Promise<EmailOutcome> {
  const { definition, result, context, now, inline, outbox } = sends;
  const email = definition.email;
  const nobody = { status: 'none', recipients: 0, mailed: 0, refused: [] } as const;
  if (!email) return { ...nobody, suppressed: 0 };
  const recipients = emailReaders(definition);
  const suppressed = await new SuppressionList(context.ledger).of(definition.name, recipients.map((r) => r.address));
  const wanted = recipients.filter((reader) => !(reader.address.toLowerCase() in suppressed));
  const skipped = recipients.length - wanted.length;
  if (wanted.length === 0) return { ...nobody, suppressed: skipped };
  const transport = outbox ? outbox.mailer(now, wanted[0]!.address) : context.mail;
  if (!transport) throw new ExporterError('this report has e-mail recipients but no mail sender is configured (MAIL_FROM)');
  if (!context.links) throw new ExporterError('this report has e-mail recipients but no link signing is configured (LINK_BASE_URL)');
  const from = senderOf(definition, context.sender, inline);
  if (!from) throw new ExporterError('this report has e-mail recipients but no sender: set email.from or MAIL_FROM');
  const keys = await context.links.keys();
  const signing = signingKey(context.links.baseUrl, keys.current);
  const compose = await reportEmailFor({ ...definition, email }, result, signing, now, context.storage, { from, freshCopyLink: !inline, inline });
  return mailReaders(sends, wanted, skipped, (reader, own) => transport.send(compose(reader, own)));
}

/** Each wanted reader's message, claimed and sent in turn, its alert news told; then the outcome of them all. */
async function mailReaders(sends: RunEmailSends, wanted: readonly Reader[], skipped: number, send: (reader: Reader, own?: ReaderOwn) => Promise<unknown>): Promise<EmailOutcome> {
  const { definition, result, context, now, news } = sends;
  const runKey = messageRunKey(definition.name, result.manifest.runId);
  const results: RecipientResult[] = [];
  const told = new Set(news ? alertTargets(definition).email.map(emailTarget) : []);
  const covered: string[] = [];
  for (const reader of wanted) {
    const target = emailTarget(reader.address);
    const lines = news && told.has(target) ? await targetNews(context.ledger, definition.name, target, news.news, news.beyond) : undefined;
    const banner = lines && lines.lines.length > 0 ? { news: { lines: lines.lines, readings: news!.readings } } : undefined;
    const sections = ownSections(ownedBy(result, reader));
    const own = banner || sections ? { ...banner, sections } : undefined;
    // Claimed before it is sent, marked sent after: a retry skips a sent one, and waits out (then
    // sends) one whose sender was killed between its claim and its mark.
    const claim = { ledger: context.ledger, runKey, channel: `email:${reader.address.toLowerCase()}`, log: context.log, now, leaseWait: context.leaseWait };
    const sent = await mailOne(reader.address, claim, () => send(reader, own));
    results.push(sent);
    if (banner && (sent.status === 'sent' || sent.status === 'skipped')) {
      covered.push(target);
      if (lines && lines.owed > 0) await keepOwed(context.ledger, definition.name, target, result.manifest.runId, [], now);
    }
  }
  return { ...settle(results, skipped), ...(covered.length > 0 && { covered }) };
}

/** One recipient's message: sent, skipped (an earlier attempt sent it), refused for good, or failed for now. */
async function mailOne(address: string, claim: SendClaim, send: () => Promise<unknown>): Promise<RecipientResult> {
  try {
    return { address, status: await sendOnce(claim, send) };
  } catch (error) {
    claim.log.warn('recipient not e-mailed', { channel: claim.channel, error: errorMessage(error) });
    return { address, status: error instanceof EmailDeliveryError && !error.retryable ? 'refused' : 'failed', error };
  }
}

/** The outcome of every recipient's message; throws what another attempt may get past, or a refusal of everyone. */
function settle(results: readonly RecipientResult[], suppressed: number): EmailOutcome {
  const failed = results.find((r) => r.status === 'failed');
  if (failed && 'error' in failed) throw failed.error;
  const mailed = results.filter((r) => r.status === 'sent' || r.status === 'skipped').length;
  const refusals = results.filter((r): r is RecipientResult & { error: unknown } => r.status === 'refused');
  if (mailed === 0 && refusals[0]) throw refusals[0].error;
  const refused = refusals.map((r) => ({ address: r.address, reason: refusalReason(r.error) }));
  const status = results.some((r) => r.status === 'sent') ? 'sent' : 'skipped';
  return { status, suppressed, recipients: results.length, mailed, refused };
}

/** What the mail service answered, in a line: the SDK error's name and message (our own wrapping left out). */
function refusalReason(error: unknown): string {
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
  const line = cause instanceof Error ? `${cause.name}: ${cause.message}` : errorMessage(error);
  return line.replace(/\s+/g, ' ').slice(0, 300);
}
