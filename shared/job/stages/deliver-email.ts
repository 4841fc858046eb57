import { EmailDeliveryError, errorMessage, ExporterError } from '../../core/errors';
import { messageRunKey, sendOnce } from '../../messages/message-claim';
import type { OutboxRecorder } from '../../messages/outbox';
import { reportEmailFor } from '../../messages/report-email';
import type { RefusedRecipient } from '../../messages/notices/recipient-notice';
import { SuppressionList } from '../../messages/recipients/suppressions';
import { emailReaders } from '../../report/definition/readers';
import { alertTargets, emailTarget } from '../../messages/alert-delivery';
import { keepOwed, targetNews } from '../../messages/alert-owed';
import type { RunNews } from '../../messages/reader-news';
import { ownedBy, ownSections } from '../../messages/person-actions';
import { isInline } from './resolve';
import type { DeliveryContext, ExportedJob } from './delivery-ports';

/**
 * The e-mail part of the deliver stage: one message per recipient (each with its own one-click
 * unsubscribe link, RFC 8058), none to an address the report's suppression list holds (unsubscribed,
 * bounced or complained: suppressions.ts), each claimed once per run and recipient in the ledger, so
 * a retry sends only to those an earlier attempt did not reach.
 *
 * Every recipient is mailed on its own: an address the mail service refuses for good (SES
 * `MessageRejected`) is named in the outcome, told to the owners once by the notices step (notice.ts), and
 * every other recipient is still mailed; the run stands. A failure another attempt may get past
 * (throttling) is thrown after the others were mailed, so the run's retry sends to that one alone.
 * Only when every recipient is refused does the run fail, as any delivery that reached nobody does.
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

type RecipientResult = { readonly address: string } & ({ readonly status: 'sent' | 'skipped' } | { readonly status: 'refused' | 'failed'; readonly error: unknown });

/** `outbox`: the run's messages are written there instead of sent (context.outbox, recorded by the deliver stage). */
export async function emailRecipients(job: ExportedJob, context: DeliveryContext, now: Date, news?: RunNews, outbox?: OutboxRecorder): Promise<EmailOutcome> {
  const { definition, result } = job;
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
  const from = email.from ?? context.sender;
  if (!from) throw new ExporterError('this report has e-mail recipients but no sender: set email.from or MAIL_FROM');
  const keys = await context.links.keys();
  const signing = { baseUrl: context.links.baseUrl, key: keys.current };
  const inline = isInline(job.request);
  const compose = await reportEmailFor({ ...definition, email }, result, signing, now, context.storage, { from, freshCopyLink: !inline, inline });
  const runKey = messageRunKey(definition.name, result.manifest.runId);
  const results: RecipientResult[] = [];
  const told = new Set(news ? alertTargets(definition).email.map(emailTarget) : []);
  const covered: string[] = [];
  for (const reader of wanted) {
    const target = emailTarget(reader.address);
    const lines = news && told.has(target) ? await targetNews(context.ledger, definition.name, target, news.news, news.beyond) : undefined;
    const banner = lines && lines.lines.length > 0 ? { news: { lines: lines.lines, readings: news!.readings } } : undefined;
    const sections = ownSections(ownedBy(job.result, reader));
    const own = banner || sections ? { ...banner, sections } : undefined;
    // Claimed before it is sent, marked sent after: a retry skips a sent one, and waits out (then
    // sends) one whose sender was killed between its claim and its mark.
    const claim = { ledger: context.ledger, runKey, channel: `email:${reader.address.toLowerCase()}`, log: context.log, now, leaseWait: context.leaseWait };
    const sent = await mailOne(reader.address, claim, () => transport.send(compose(reader, own)));
    results.push(sent);
    if (banner && (sent.status === 'sent' || sent.status === 'skipped')) {
      covered.push(target);
      if (lines && lines.owed > 0) await keepOwed(context.ledger, definition.name, target, job.result.manifest.runId, [], now);
    }
  }
  return { ...settle(results, skipped), ...(covered.length > 0 && { covered }) };
}

/** One recipient's message: sent, skipped (an earlier attempt sent it), refused for good, or failed for now. */
async function mailOne(address: string, claim: Parameters<typeof sendOnce>[0], send: () => Promise<unknown>): Promise<RecipientResult> {
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
