import type { AlertLine, AlertMessage } from '../channels/alert-message';
import { ALERT_PAYLOADS } from '../channels/alert-payloads';
import { channelWords } from '../channels/channel';
import { postToChannels, type ChannelDeliveryDependencies, type ChannelResult } from '../channels/deliver';
import type { ChannelTarget } from '../channels/delivery-option';
import type { Clock } from '../core/clock';
import { errorMessage, ExporterError } from '../core/errors';
import { readerFormat } from '../core/format';
import type { Log } from '../core/logger';
import type { OutgoingEmail } from '../email/ses-mailer';
import type { Ledger } from '../ledger/ledger';
import type { LinkKey, LinkVerificationKeys } from '../links/link-token';
import { createUnsubscribeToken } from '../links/unsubscribe-token';
import type { ReportDefinition } from '../report/definition/definition';
import type { ExportResult } from '../report/run/result';
import { alertEmail } from './alert-email';
import { messageRunKey, sendOnce } from './message-claim';
import type { ChannelJobDependencies } from './report-channels';
import { fileLinks } from './report-email';
import { SuppressionList } from './recipients/suppressions';

/**
 * Sends a run's alert (docs/reports.md, "Alerts") to the e-mail recipients and chat channels the
 * definition's `alerts.to` names (default: the report's own), each message claimed once per run in
 * the ledger (`alert:…` beside the report message's claims, message-claim.ts), so a retry of the run
 * sends only what an earlier attempt did not. A suppressed address (unsubscribed, bounced) gets none.
 */
export interface AlertTransports {
  readonly ledger: Ledger;
  readonly log: Log;
  /** The time of the claims and of the links (the run context's clock, read once). */
  readonly now: Date;
  readonly clock: Clock;
  /** The job's deadline (epoch ms): webhook retries stop there. */
  readonly deadline: number | undefined;
  readonly mail: { readonly send: (email: OutgoingEmail) => Promise<unknown>; readonly from: string | undefined } | undefined;
  readonly channels: ChannelJobDependencies | undefined;
  readonly links: { readonly baseUrl: string; readonly keys: () => Promise<LinkVerificationKeys> } | undefined;
  /** Writes each channel's body instead of posting it (the outbox). */
  readonly writeChannel?: ChannelDeliveryDependencies['write'] | undefined;
}

export interface AlertDelivery {
  /** Addresses e-mailed on this attempt. */
  readonly emailed: readonly string[];
  /** Addresses an earlier attempt of the run e-mailed already. */
  readonly emailedBefore: number;
  /** Addresses not e-mailed: unsubscribed or bounced. */
  readonly suppressed: number;
  readonly channels: readonly ChannelResult[];
}

/** Where the alerts of a definition go: `alerts.to`, else the report's e-mail recipients and chat channels. */
export function alertTargets(definition: ReportDefinition): { email: string[]; channels: ChannelTarget[] } {
  const to = definition.alerts?.to;
  if (to) return { email: [...(to.email ?? [])], channels: [...(to.channels ?? [])] };
  const email = definition.email ? [...definition.email.to, ...(definition.email.cc ?? [])] : [];
  return { email, channels: [...(definition.delivery?.channels ?? [])] };
}

export async function sendAlert(definition: ReportDefinition, result: ExportResult, lines: readonly AlertLine[], t: AlertTransports): Promise<AlertDelivery> {
  const targets = alertTargets(definition);
  const key = await signingKey(definition, t);
  const message = alertMessage(definition, result, lines, key && { baseUrl: key.baseUrl, key: key.key, now: t.now });
  const runKey = messageRunKey(definition.name, result.manifest.runId);
  const once = (channel: string, send: () => Promise<unknown>) => sendOnce({ ledger: t.ledger, runKey, channel: `alert:${channel}`, log: t.log, now: t.now }, send);
  const channels = await postToChannels(targets.channels, (channel) => alertPayload(channel.type, message), {
    webhooks: t.channels?.webhooks,
    log: t.log,
    clock: t.clock,
    post: { ...t.channels?.post, ...(t.deadline !== undefined && { deadline: t.deadline }) },
    once,
    write: t.writeChannel,
  });
  const recipients = [...new Map(targets.email.map((a) => [a.toLowerCase(), a])).values()];
  const suppressed = await new SuppressionList(t.ledger).of(definition.name, recipients);
  const wanted = recipients.filter((a) => !(a.toLowerCase() in suppressed));
  const emailed: string[] = [];
  if (wanted.length > 0) {
    const from = definition.email?.from ?? t.mail?.from;
    if (!t.mail || !from) throw new ExporterError('this report has alert recipients but no mail sender is configured (MAIL_FROM, or email.from)');
    for (const address of wanted) {
      const unsubscribeUrl = key && `${key.baseUrl}/unsubscribe/${createUnsubscribeToken({ report: definition.name, address }, key.key, t.now)}`;
      const email = alertEmail(message, definition.name, address, { from, unsubscribeUrl });
      if ((await once(`email:${address.toLowerCase()}`, () => t.mail!.send(email))) === 'sent') emailed.push(address);
    }
  }
  return { emailed, emailedBefore: wanted.length - emailed.length, suppressed: recipients.length - wanted.length, channels };
}

/** The alert of a run: its title, when it read the planning tool (in the report's locale), the lines crossed and the workbook's link. */
export function alertMessage(
  definition: ReportDefinition,
  result: ExportResult,
  lines: readonly AlertLine[],
  links: { baseUrl: string; key: LinkKey; now: Date } | undefined,
): AlertMessage {
  const format = readerFormat(definition.locale, definition.timeZone);
  const expiresAt = links && new Date(links.now.getTime() + definition.links.emailLinkDays * 86_400_000);
  const workbook = links && expiresAt && fileLinks(result, { linkBaseUrl: links.baseUrl, key: links.key, expiresAt, now: links.now }).find((f) => f.primary === true);
  return {
    title: format.t('alert.title', { title: result.summary.title || (definition.title ?? definition.name) }),
    generated: `${format.dateTime(new Date(result.manifest.generatedAt))} (${format.timeZone})`,
    runId: result.manifest.runId,
    lines,
    workbookUrl: workbook?.url,
    words: channelWords(format.messages),
  };
}

/** The current link key, or none (the alert goes out without links) when it cannot be read. */
async function signingKey(definition: ReportDefinition, t: AlertTransports): Promise<{ baseUrl: string; key: LinkKey } | undefined> {
  if (!t.links) return undefined;
  try {
    return { baseUrl: t.links.baseUrl.replace(/\/+$/, ''), key: (await t.links.keys()).current };
  } catch (error) {
    t.log.error('link keys unreadable: the alert goes out without links', { report: definition.name, error: errorMessage(error) });
    return undefined;
  }
}

/** A channel's alert; one without an entry in ALERT_PAYLOADS (a test fails for it) fails as a post would. */
function alertPayload(type: string, message: AlertMessage): unknown {
  const payload = ALERT_PAYLOADS[type];
  if (!payload) throw new Error(`the channel "${type}" cannot write an alert`);
  return payload(message);
}
