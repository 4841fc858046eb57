import { errorMessage } from '../core/errors';
import type { ReportEmailLink } from '../email/email-model';
import { createLinkToken, type LinkKey } from '../links/link-token';
import { createRunLinkToken, messageRunLinkId } from '../links/run-link-token';
import { createUnsubscribeToken } from '../links/unsubscribe-token';
import type { ReportDefinition } from '../report/definition/definition';
import { fileForPeople, NAMES, type ReportNames } from '../report/names';
import type { ExportResult } from '../report/run/result';
import type { MessagePorts } from './message-ports';
import { daysAfter } from '../core/clock';


/**
 * The signed links of a run's messages, made in one place: the file links and the "get a fresh copy"
 * run link every message carries (report e-mail, chat, alert), valid for the definition's
 * `links.emailLinkDays` from the moment the message is made.
 */
export interface SigningKey {
  /** The link endpoint, without a trailing slash (signingKey() trims it once for every link). */
  readonly baseUrl: string;
  readonly key: LinkKey;
}

/** The signing of a run's messages: the configured base URL trimmed of its slash once, with the current key. */
export function signingKey(baseUrl: string, key: LinkKey): SigningKey {
  return { baseUrl: baseUrl.replace(/\/+$/, ''), key };
}

/** When the links of a message made at `now` stop working. */
export function linksExpireAt(definition: ReportDefinition, now: Date): Date {
  return daysAfter(now, definition.links.emailLinkDays);
}

/**
 * The current signing key of the context's links, or none when no link endpoint is configured or its
 * keys cannot be read: the message then goes out without links (`unreadable` says so in the log).
 */
export async function currentSigningKey(context: Pick<MessagePorts, 'links' | 'log'>, report: string, unreadable: string): Promise<SigningKey | undefined> {
  if (!context.links) return undefined;
  try {
    return signingKey(context.links.baseUrl, (await context.links.keys()).current);
  } catch (error) {
    context.log.error(unreadable, { report, error: errorMessage(error) });
    return undefined;
  }
}

/** When a message's links are signed (`now`) and until when they work. */
export interface LinkTimes {
  readonly now: Date;
  readonly expiresAt: Date;
}

/**
 * Long-lived links for every file of a run: `<baseUrl>/links/<token>`, each named for people by its
 * format (names.ts). They take the SigningKey itself, never a base URL of their own: its URL is the
 * trimmed one (signingKey()).
 */
export function fileLinks(result: ExportResult, signing: SigningKey, times: LinkTimes, names: ReportNames = NAMES): ReportEmailLink[] {
  return result.manifest.files.map((file) => ({
    ...fileForPeople(file, names),
    bytes: file.bytes,
    url: `${signing.baseUrl}/links/${createLinkToken({ runKey: result.runFolder, file: file.path, expiresAt: times.expiresAt }, signing.key, times.now)}`,
  }));
}

/** The "get a fresh copy" run link of a run's message (`<baseUrl>/run/<token>`), the same for every attempt of the run. */
export function freshCopyLinkUrl(signing: SigningKey, times: LinkTimes, link: { report: string; runId: string; message: string; lang?: string | undefined }): string {
  const id = messageRunLinkId(link.report, link.runId, link.message);
  const token = createRunLinkToken({ report: link.report, expiresAt: times.expiresAt, id, lang: link.lang }, signing.key, times.now).token;
  return `${signing.baseUrl}/run/${token}`;
}

/** A recipient's one-click unsubscribe link (`<baseUrl>/unsubscribe/<token>`, RFC 8058), for the report e-mail and the alert e-mail alike. */
export function unsubscribeLinkUrl(signing: SigningKey, now: Date, claims: { report: string; address: string; lang?: string | undefined }): string {
  return `${signing.baseUrl}/unsubscribe/${createUnsubscribeToken(claims, signing.key, now)}`;
}

/** The primary file's (the workbook's) link of a run's message signed at `now`, valid as long as the definition's links are from then (or until `expiresAt`). */
export function workbookLink(definition: ReportDefinition, result: ExportResult, signing: SigningKey, now: Date, expiresAt = linksExpireAt(definition, now)): string | undefined {
  return fileLinks(result, signing, { expiresAt, now }).find((f) => f.primary === true)?.url;
}

/** The buttons of a run's chat message: the workbook, and a fresh copy of the report (none for an inline definition). */
export interface ChatLinks {
  readonly workbookUrl: string | undefined;
  readonly freshCopyUrl: string | undefined;
}

/** The chat message's links, signed once for every channel of the run. */
export function chatLinks(definition: ReportDefinition, result: ExportResult, signing: SigningKey, now: Date, freshCopyLink: boolean): ChatLinks {
  const expiresAt = linksExpireAt(definition, now);
  const freshCopyUrl = freshCopyLink
    ? freshCopyLinkUrl(signing, { expiresAt, now }, { report: definition.name, runId: result.manifest.runId, message: 'chat' })
    : undefined;
  return { workbookUrl: workbookLink(definition, result, signing, now, expiresAt), freshCopyUrl };
}
