import { renderReportEmail, type ReportEmailInput } from '../email/email-content';
import type { EmailAttachment, OutgoingEmail } from '../email/ses-mailer';
import { fitsAsAttachment } from '../email/ses-mailer';
import type { LinkKey } from '../links/link-token';
import type { Storage } from '../storage/storage';
import { changesDigest } from '../report/changes/digest';
import { recipientAddresses, type ReportDefinition } from '../report/definition/definition';
import type { Reader } from '../report/definition/readers';
import type { ReportSummary, SummarySection } from '../table/table';
import type { ExportResult } from '../report/run/result';
import { fileForPeople, type ReportNames } from '../report/names';
import { EMAIL_TREND_RUNS, emailTrends } from '../report/trends/email';
import { readerFormat, type ReaderFormat } from '../core/format';
import type { RuleReading } from '../report/alerts/read-rules';
import type { OwedLine } from './alert-owed';
import { bannerSection, markedSummary } from './reader-news';
import { fileLinks, freshCopyLinkUrl, linksExpireAt, signingKey, unsubscribeLinkUrl, type SigningKey } from './message-links';
import { senderOf } from './message-ports';

/**
 * The weekly e-mail of a run: summary figures and one link per file; the workbook attached if asked
 * and small. `inline`: the definition came with the request, not from the operators, so it chooses
 * neither sender nor subject: the subject is the default one of its (prefixed, slug) name and the
 * sender is the configured one. Its title is shown in the body only (the Summary's title): even
 * quoted and cut, a caller's text in the subject line ("URGENT: reset your password") reads as the
 * organisation speaking.
 */
export async function buildReportEmail(
  definition: ReportDefinition & { email: NonNullable<ReportDefinition['email']> },
  result: ExportResult,
  options: ReportEmailOptions,
): Promise<OutgoingEmail> {
  const { linkBaseUrl, key, now, storage, ...choices } = options;
  const from = senderOf(definition, options.from, options.inline);
  return (await reportEmailFor(definition, result, signingKey(linkBaseUrl, key), now, storage, { ...choices, from }))();
}

export interface ReportEmailOptions {
  /** The configured sender (MAIL_FROM); the definition's `email.from` comes first (senderOf). */
  readonly from: string;
  readonly linkBaseUrl: string;
  readonly key: LinkKey;
  readonly now: Date;
  readonly storage: Storage;
  readonly freshCopyLink?: boolean;
  readonly inline?: boolean;
  /** The tables and formats by name (default NAMES; a test adds one of each). */
  readonly names?: ReportNames;
}

/** What a report e-mail says of itself: its sender (chosen: senderOf), whether it offers a fresh copy, an inline definition's, the names of its files. */
export type ReportEmailChoices = Pick<ReportEmailOptions, 'from' | 'freshCopyLink' | 'inline' | 'names'>;

/**
 * The run's e-mail, ready to be addressed: called with a reader (definition/readers.ts), the message
 * to that address alone, in that reader's language (the same figures, written by its locale), with its
 * own unsubscribe link in the footer and in `List-Unsubscribe` / `List-Unsubscribe-Post` (RFC 8058
 * one-click: the large mailbox providers ask it of bulk senders); called without, one message to every
 * recipient in the report's language (previews, tests). Its links are signed with `signing` at `now`; the
 * workbook is read once from `storage`.
 */
export async function reportEmailFor(
  definition: ReportDefinition & { email: NonNullable<ReportDefinition['email']> },
  result: ExportResult,
  signing: SigningKey,
  now: Date,
  storage: Pick<Storage, 'getObject'>,
  options: ReportEmailChoices,
): Promise<(reader?: Reader | string, own?: ReaderOwn) => OutgoingEmail> {
  const expiresAt = linksExpireAt(definition, now);
  const links = fileLinks(result, signing, { expiresAt, now }, options.names);
  // A run link of the configured report, valid as long as the file links (inline definitions have none).
  // A reader of another language than the report's gets a link that opens its page in theirs (one id: revoked together).
  const freshCopyUrl = (locale: string) =>
    options.freshCopyLink
      ? freshCopyLinkUrl(signing, { expiresAt, now }, { report: definition.name, runId: result.manifest.runId, message: 'email', lang: otherThan(locale, definition.locale) })
      : undefined;
  const contentIn = (locale: string): ReportEmailInput => {
    // The reader's locale and zone, resolved once: every word, figure and date of the message is written by it.
    const format = readerFormat(locale, definition.timeZone);
    return {
      reportName: options.inline ? definition.name : (definition.title ?? definition.name),
      generatedAt: new Date(result.manifest.generatedAt),
      format,
      ...(!options.inline && definition.email.subjectTemplate !== undefined && { subjectTemplate: definition.email.subjectTemplate }),
      summary: summaryIn(result, locale),
      links,
      linksExpireAt: expiresAt,
      changes: changesDigest(result.changes, format),
      trends: result.trends && emailTrends(result.trends, EMAIL_TREND_RUNS, format.messages),
      runId: result.manifest.runId,
      freshCopyUrl: freshCopyUrl(locale),
    };
  };
  const attachments = await attachedWorkbook(definition, result, storage, options.names);
  const { from } = options;
  const attached = attachments.length > 0 ? { attachments } : {};
  return (recipient, own) => {
    if (recipient === undefined) {
      const cc = definition.email.cc;
      return { from, to: recipientAddresses({ to: definition.email.to }), ...(cc && { cc }), ...renderReportEmail(contentIn(definition.locale)), ...attached };
    }
    const reader = typeof recipient === 'string' ? { address: recipient, locale: definition.locale } : recipient;
    const lang = otherThan(reader.locale, definition.locale);
    const unsubscribeUrl = unsubscribeLinkUrl(signing, now, { report: definition.name, address: reader.address, lang });
    const content = ownContent(contentIn(readableLocale(result, reader.locale, definition.locale)), own);
    return readerEmail(content, { from, address: reader.address, unsubscribeUrl, attached, report: definition.name });
  };
}

/**
 * What is one reader's own in the run's e-mail: the lines they are told of that the run crossed
 * (reader-news.ts: a banner, and the headline figures beyond their lines marked), and the sections
 * of what they own that needs them (person-actions.ts), before the report as every reader reads it.
 */
export interface ReaderOwn {
  readonly news?: { readonly lines: readonly OwedLine[]; readonly readings: readonly RuleReading[] } | undefined;
  readonly sections?: ((format: ReaderFormat) => readonly SummarySection[]) | undefined;
}

function ownContent(content: ReportEmailInput, own: ReaderOwn | undefined): ReportEmailInput {
  if (!own) return content;
  const format = content.format;
  const banner = own.news && bannerSection(own.news.lines, own.news.readings, format);
  const summary = own.news ? markedSummary(content.summary, own.news.readings, format) : content.summary;
  return { ...content, summary, lead: [...(banner ? [banner] : []), ...(own.sections?.(format) ?? [])] };
}

/** One reader's message: to that address alone, with its own unsubscribe link in the footer and the headers. */
function readerEmail(
  content: ReportEmailInput,
  to: { from: string; address: string; unsubscribeUrl: string; attached: { attachments?: EmailAttachment[] }; report: string },
): OutgoingEmail {
  const { unsubscribeUrl } = to;
  return {
    from: to.from,
    to: [to.address],
    ...renderReportEmail({ ...content, unsubscribeUrl }),
    ...to.attached,
    headers: [
      { name: 'List-Unsubscribe', value: `<${unsubscribeUrl}>` },
      { name: 'List-Unsubscribe-Post', value: 'List-Unsubscribe=One-Click' },
    ],
    tags: { report: to.report },
  };
}

/** The run's Summary in `locale`: the report's own, or the one the run wrote for readers of that language (result.ts). */
/** `locale` when it is not the report's own (a link then carries it: the report's pages know their report's). */
export function otherThan(locale: string, reportLocale: string): string | undefined {
  return locale === reportLocale ? undefined : locale;
}

export function summaryIn(result: ExportResult, locale: string): ReportSummary {
  return result.summaries?.[locale] ?? result.summary;
}

/**
 * The language a reader of `wanted` reads this run in: theirs when the run wrote its Summary in it (or
 * it is the report's), else the report's (a run whose manifest stored one language only, e.g. an older
 * one read back on a rerun: words and numbers stay of one language).
 */
export function readableLocale(result: ExportResult, wanted: string, reportLocale: string): string {
  return wanted === reportLocale || result.summaries?.[wanted] !== undefined ? wanted : reportLocale;
}

/** The workbook (the primary format's file) when the definition asks for it and it is small enough. */
async function attachedWorkbook(
  definition: ReportDefinition & { email: NonNullable<ReportDefinition['email']> },
  result: ExportResult,
  storage: Pick<Storage, 'getObject'>,
  names: ReportNames | undefined,
): Promise<EmailAttachment[]> {
  const workbook = result.manifest.files.find((f) => fileForPeople(f, names).primary);
  if (!definition.email.attachWorkbook || !workbook || !fitsAsAttachment(workbook.bytes)) return [];
  const content = await storage.getObject(`${result.runFolder}/${workbook.path}`);
  return content ? [{ fileName: workbook.path, contentType: workbook.contentType, content }] : [];
}
