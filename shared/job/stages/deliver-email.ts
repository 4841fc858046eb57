import { ExporterError } from '../../core/errors';
import { mimeMessage } from '../../email/mime';
import type { ExportResult } from '../../report/run/result';
import { messageRunKey, sendOnce } from '../../messages/message-claim';
import type { Outbox, RunRef } from '../../messages/outbox';
import { reportEmailFor } from '../../messages/report-email';
import { SuppressionList } from '../../messages/recipients/suppressions';
import type { DeliveryContext, ExportedJob, Mailer } from './delivery-ports';

/**
 * The e-mail part of the deliver stage: one message per recipient (each with its own one-click
 * unsubscribe link, RFC 8058), none to an address the report's suppression list holds (unsubscribed,
 * bounced or complained: suppressions.ts), each claimed once per run and recipient in the ledger, so
 * a retry sends only to those an earlier attempt did not reach.
 */
export interface EmailOutcome {
  /** `sent`: at least one message went out now; `skipped`: every one went out on an earlier attempt; `none`: nobody to e-mail. */
  readonly status: 'sent' | 'skipped' | 'none';
  /** Recipients not e-mailed because they are suppressed. */
  readonly suppressed: number;
}

export async function emailRecipients(job: ExportedJob, context: DeliveryContext, at: Date): Promise<EmailOutcome> {
  const { definition, result } = job;
  const email = definition.email;
  if (!email) return { status: 'none', suppressed: 0 };
  const suppressed = await new SuppressionList(context.ledger).of(definition.name);
  const recipients = [...new Map([...email.to, ...(email.cc ?? [])].map((a) => [a.toLowerCase(), a])).values()];
  const wanted = recipients.filter((address) => !(address.toLowerCase() in suppressed));
  const skipped = recipients.length - wanted.length;
  if (wanted.length === 0) return { status: 'none', suppressed: skipped };
  const transport = context.outbox ? outboxMailer(context.outbox, result, at, wanted.length === 1) : context.mail;
  if (!transport) throw new ExporterError('this report has e-mail recipients but no mail sender is configured (MAIL_FROM)');
  if (!context.links) throw new ExporterError('this report has e-mail recipients but no link signing is configured (LINK_BASE_URL)');
  const from = email.from ?? context.sender;
  if (!from) throw new ExporterError('this report has e-mail recipients but no sender: set email.from or MAIL_FROM');
  const keys = await context.links.keys();
  const compose = await reportEmailFor({ ...definition, email }, result, {
    from,
    linkBaseUrl: context.links.baseUrl,
    key: keys.current,
    now: at,
    storage: context.storage,
    freshCopyLink: !job.inline,
    inline: job.inline,
  });
  const runKey = messageRunKey(definition.name, result.manifest.runId);
  let sent = false;
  for (const address of wanted) {
    // Claimed before it is sent: a retry or a repeated delivery of the run finds the claim and skips.
    const claim = { ledger: context.ledger, runKey, channel: `email:${address.toLowerCase()}`, log: context.log, now: at };
    if ((await sendOnce(claim, () => transport.send(compose(address)))) === 'sent') sent = true;
  }
  return { status: sent ? 'sent' : 'skipped', suppressed: skipped };
}

/**
 * The e-mail as the outbox keeps it: the HTML part to open in a browser, the whole message to open
 * in a mail client; `email.html`/`email.eml` for one recipient, `email-<address>.…` for each of several.
 */
function outboxMailer(outbox: Outbox, result: ExportResult, at: Date, single: boolean): Mailer {
  const run: RunRef = { report: result.manifest.report, runId: result.manifest.runId, runFolder: result.runFolder };
  return {
    async send(message) {
      const name = single ? 'email' : `email-${(message.to[0] ?? 'all').toLowerCase().replace(/[^a-z0-9@._-]+/g, '-')}`;
      await outbox.write(run, `${name}.html`, message.html);
      await outbox.write(run, `${name}.eml`, mimeMessage(message, at));
    },
  };
}
