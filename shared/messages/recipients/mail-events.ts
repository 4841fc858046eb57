import { EventBridgeSchema } from '@aws-lambda-powertools/parser/schemas';
import * as z from 'zod';
import { errorMessage } from '../../core/errors';
import type { Log } from '../../core/logger';
import { escapeHtml } from '../../email/email-content';
import type { OutgoingEmail } from '../../email/ses-mailer';
import type { Ledger } from '../../ledger/ledger';
import { parseReportDefinition } from '../../report/definition/definition';
import { ownersOf } from '../notices/failure-notice';
import type { DefinitionCatalog } from '../../definitions/catalog';
import { lookupReport } from '../../definitions/catalog';
import { resubscribeCommand, SuppressionList, type SuppressionReason } from './suppressions';

/**
 * SES's events about the reports' e-mail (the stack's configuration set sends them to EventBridge):
 * an address whose mail bounced for good, or that marked it as spam, is no longer e-mailed that
 * report (suppressions.ts), and the report's owners are told once per address, with how to undo it.
 * Which report: the `report` tag every report e-mail carries. Transient bounces change nothing.
 */
const recipientsSchema = z.array(z.object({ emailAddress: z.string() })).default([]);
const sesMailDetailSchema = z.looseObject({
  eventType: z.string(),
  mail: z.looseObject({ tags: z.record(z.string(), z.array(z.string())).default({}) }),
  bounce: z.looseObject({ bounceType: z.string(), bouncedRecipients: recipientsSchema }).optional(),
  complaint: z.looseObject({ complainedRecipients: recipientsSchema }).optional(),
});
/** What handleMailEvent reads of an SES event. */
export const sesMailEventSchema = z.looseObject({ 'detail-type': z.string(), detail: sesMailDetailSchema });
export type SesMailEvent = z.infer<typeof sesMailEventSchema>;

/** An SES event as EventBridge delivers it, checked at the door: Powertools' EventBridge envelope around SES's detail. */
export const sesEventBridgeSchema = EventBridgeSchema.extend({ detail: sesMailDetailSchema });

export interface MailEventDependencies {
  readonly ledger: Ledger;
  readonly definitions: DefinitionCatalog;
  readonly send: ((email: OutgoingEmail) => Promise<unknown>) | undefined;
  readonly from: string | undefined;
  readonly log: Log;
  readonly now: Date;
}

/** What an event changed: the addresses newly suppressed (already suppressed ones are not told again). */
export async function handleMailEvent(event: SesMailEvent, deps: MailEventDependencies): Promise<{ report?: string; suppressed: string[] }> {
  const report = event.detail.mail.tags.report?.[0];
  const found = suppressible(event);
  if (!report || !found) {
    deps.log.info('mail event needs nothing', { eventType: event.detail.eventType, report });
    return { suppressed: [] };
  }
  const list = new SuppressionList(deps.ledger);
  const suppressed: string[] = [];
  for (const address of found.addresses) {
    if (await list.suppress(report, address, found.reason, deps.now)) suppressed.push(address.toLowerCase());
  }
  if (suppressed.length > 0) await tellOwners(report, suppressed, found.reason, deps);
  return { report, suppressed };
}

function suppressible(event: SesMailEvent): { addresses: string[]; reason: SuppressionReason } | undefined {
  const { bounce, complaint } = event.detail;
  // A transient bounce (a full mailbox, a greylisting server) passes: SES retries, the next run may reach it.
  if (bounce && bounce.bounceType === 'Permanent') return { addresses: bounce.bouncedRecipients.map((r) => r.emailAddress), reason: 'bounced' };
  if (complaint) return { addresses: complaint.complainedRecipients.map((r) => r.emailAddress), reason: 'complained' };
  return undefined;
}

/** One e-mail to the report's owners naming the addresses and how to e-mail them again. Never throws. */
async function tellOwners(report: string, addresses: readonly string[], reason: SuppressionReason, deps: MailEventDependencies): Promise<void> {
  try {
    const written = await lookupReport(deps.definitions, report);
    if (written === undefined) return;
    const definition = parseReportDefinition(written, `report "${report}"`);
    const owners = ownersOf(definition).filter((owner) => !addresses.includes(owner.toLowerCase()));
    const from = definition.email?.from ?? deps.from;
    if (owners.length === 0 || !from || !deps.send) {
      deps.log.warn('recipients suppressed; nobody could be told', { report, addresses: addresses.length });
      return;
    }
    const why = reason === 'bounced' ? 'their mail bounced for good' : 'they marked it as spam';
    const undo = addresses.map((a) => resubscribeCommand(report, a));
    const text = [`"${definition.title ?? report}" is no longer e-mailed to ${addresses.join(', ')}: ${why}.`, '', 'To e-mail them again once fixed:', ...undo.map((u) => `  ${u}`), ''].join('\n');
    await deps.send({
      from,
      to: owners,
      subject: `${definition.title ?? report}: ${addresses.length === 1 ? 'a recipient is' : `${addresses.length} recipients are`} no longer e-mailed`,
      text,
      html: `<p>${escapeHtml(text.split('\n')[0]!)}</p><p>To e-mail them again once fixed:</p><pre>${escapeHtml(undo.join('\n'))}</pre>`,
    });
  } catch (error) {
    deps.log.error('owners not told of suppressed recipients', { report, error: errorMessage(error) });
  }
}
