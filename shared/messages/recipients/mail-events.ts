import { EventBridgeSchema } from '@aws-lambda-powertools/parser/schemas';
import * as z from 'zod';
import { errorMessage } from '../../core/errors';
import type { Log } from '../../core/logger';
import type { Clock } from '../../core/clock';
import { escapeHtml } from '../../email/email-content';
import type { Ledger } from '../../ledger/ledger';
import { senderOf, type MailPorts } from '../message-ports';
import { parseReportDefinition, recipientAddresses, type ReportDefinition } from '../../report/definition/definition';
import { ownersOf } from '../notices/failure-notice';
import type { DefinitionCatalog } from '../../definitions/catalog';
import { lookupReport } from '../../definitions/catalog';
import { resubscribeCommand, SuppressionList, type SuppressionReason, type Suppressions } from './suppressions';
import { ownersNoticeClaim } from './suppression-notice-claim';

/**
 * SES's events about the reports' e-mail (the stack's configuration set sends them to EventBridge):
 * an address whose mail bounced for good, or that marked it as spam, is no longer e-mailed that
 * report (suppressions.ts), and the report's owners are told, once per burst.
 *
 * An event is trusted only as far as it matches what was sent: a `Bounce` or `Complaint` event (a
 * `Delivery` that happens to carry a bounce object is not one), tagged with a report that exists,
 * naming addresses that are among that report's current recipients. Anything else changes nothing.
 *
 * A dead domain bounces every message of a run at once: a hundred events, a hundred invocations.
 * Each records its own address (its own ledger entry: no race); the first to claim the report's
 * notice (suppression-notice-claim.ts) waits for the burst to settle, then tells the owners of every
 * address not told yet in ONE e-mail, marks them told and gives the claim back; the others leave it
 * to the claimant. An address recorded after the claimant read the list is found by its recheck (or
 * by the next event), so none goes untold.
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

/** How long the claimant waits for the rest of a burst before telling the owners. */
export const BURST_SETTLE_MS = 20_000;

/** The mail and its sender named as the run context names them (MailPorts), so the owners' notices of both read alike. */
export interface MailEventDependencies extends MailPorts {
  readonly ledger: Ledger;
  readonly definitions: DefinitionCatalog;
  readonly log: Log;
  /** The time of the event's handling (suppressions' `since`, the claim). */
  readonly clock: Clock;
  /** Waits for the burst to settle (BURST_SETTLE_MS in the Lambda; a test waits on its events). */
  readonly settle: () => Promise<void>;
}

/** What an event changed: the addresses newly suppressed, and whether this invocation told the owners. */
export interface MailEventOutcome {
  readonly report?: string;
  readonly suppressed: string[];
  readonly told?: string[];
}

export async function handleMailEvent(event: SesMailEvent, deps: MailEventDependencies): Promise<MailEventOutcome> {
  const report = event.detail.mail.tags.report?.[0];
  const found = suppressible(event);
  const definition = report !== undefined && found ? await currentDefinition(report, deps) : undefined;
  if (!report || !found || !definition) {
    deps.log.info('mail event needs nothing', { eventType: event.detail.eventType, report: report && definition ? report : undefined });
    return { suppressed: [] };
  }
  const recipients = recipientsOf(definition);
  const addresses = [...new Set(found.addresses.map((a) => a.toLowerCase()))].filter((a) => recipients.has(a));
  if (addresses.length < found.addresses.length) deps.log.warn('mail event names addresses the report does not e-mail; ignored', { report, ignored: found.addresses.length - addresses.length });
  const list = new SuppressionList(deps.ledger);
  const suppressed: string[] = [];
  for (const address of addresses) {
    if (await list.suppress(report, address, found.reason, deps.clock())) suppressed.push(address);
  }
  // Not only the new ones: a retried event whose notice failed finds its address still untold.
  if (Object.keys(await list.untold(report, addresses)).length === 0) return { report, suppressed };
  const told = await tellOwnersOnce(definition, list, deps);
  return { report, suppressed, ...(told.length > 0 && { told }) };
}

/** SES's event types that suppress: a permanent bounce and a complaint, by the event's own type. */
function suppressible(event: SesMailEvent): { addresses: string[]; reason: SuppressionReason } | undefined {
  const { eventType, bounce, complaint } = event.detail;
  // A transient bounce (a full mailbox, a greylisting server) passes: SES retries, the next run may reach it.
  if (eventType === 'Bounce' && bounce?.bounceType === 'Permanent') return { addresses: bounce.bouncedRecipients.map((r) => r.emailAddress), reason: 'bounced' };
  if (eventType === 'Complaint' && complaint) return { addresses: complaint.complainedRecipients.map((r) => r.emailAddress), reason: 'complained' };
  return undefined;
}

/** The report the tag names, when it exists and parses; an unknown or malformed name is nothing to act on. */
async function currentDefinition(report: string, deps: MailEventDependencies): Promise<ReportDefinition | undefined> {
  try {
    const written = await lookupReport(deps.definitions, report);
    return written === undefined ? undefined : parseReportDefinition(written, `report "${report}"`);
  } catch (error) {
    deps.log.warn('mail event for a report that cannot be read; ignored', { error: errorMessage(error) });
    return undefined;
  }
}

/** The report's current recipients (lower-case): the only addresses an event may suppress. */
function recipientsOf(definition: ReportDefinition): Set<string> {
  return new Set((definition.email ? recipientAddresses(definition.email) : []).map((a) => a.toLowerCase()));
}

/**
 * Tells the owners of every untold suppression of the report in one e-mail, unless another
 * invocation holds the report's notice claim (it tells them). Returns the addresses told.
 */
async function tellOwnersOnce(definition: ReportDefinition, list: SuppressionList, deps: MailEventDependencies): Promise<string[]> {
  const report = definition.name;
  const recipients = [...recipientsOf(definition)];
  const claim = ownersNoticeClaim(deps.ledger, report);
  const told: string[] = [];
  // Each round: claim, wait for the burst, tell, give back, and look again for what arrived meanwhile.
  for (let round = 0; round < 3; round++) {
    const held = await claim.take(deps.clock());
    if (held === undefined) return told;
    try {
      // The burst is waited for once; what the recheck finds afterwards arrived late and is told at once.
      if (round === 0) await deps.settle();
      const untold = await list.untold(report, recipients);
      if (Object.keys(untold).length > 0) {
        await tellOwners(definition, untold, deps);
        await list.told(report, Object.keys(untold), deps.clock());
        told.push(...Object.keys(untold));
      }
    } finally {
      await held.release(deps.clock());
    }
    if (Object.keys(await list.untold(report, recipients)).length === 0) return told;
  }
  return told;
}

/** One e-mail to the report's owners naming the addresses and how to e-mail them again; throws when it could not be sent (the event is retried). */
async function tellOwners(definition: ReportDefinition, untold: Suppressions, deps: MailEventDependencies): Promise<void> {
  const report = definition.name;
  // Not to an owner whose own mail bounces or complains: SES would refuse the whole message in the sandbox.
  const stopped = await new SuppressionList(deps.ledger).of(report, ownersOf(definition));
  const owners = ownersOf(definition).filter((owner) => (stopped[owner.toLowerCase()]?.reason ?? 'unsubscribed') === 'unsubscribed');
  const from = senderOf(definition, deps.sender);
  const addresses = Object.keys(untold).sort();
  if (owners.length === 0 || !from || !deps.mail) {
    deps.log.warn('recipients suppressed; nobody could be told', { report, addresses: addresses.length });
    return;
  }
  const title = definition.title ?? report;
  const group = (reason: SuppressionReason) => addresses.filter((a) => untold[a]?.reason === reason);
  const lines = [
    ...paragraph(group('bounced'), `"${title}" is no longer e-mailed to these addresses: their mail bounced for good.`, `"${title}" is no longer e-mailed to this address: its mail bounced for good.`),
    ...paragraph(group('complained'), `"${title}" is no longer e-mailed to these addresses: they marked it as spam.`, `"${title}" is no longer e-mailed to this address: it was marked as spam.`),
    'To e-mail one again once fixed:',
    ...addresses.map((a) => `  ${resubscribeCommand(report, a)}`),
    '',
  ];
  const text = lines.join('\n');
  await deps.mail.send({
    from,
    to: owners,
    subject: `${title}: ${addresses.length === 1 ? 'a recipient is' : `${addresses.length} recipients are`} no longer e-mailed`,
    text,
    html: `<pre style="font-family:inherit;white-space:pre-wrap">${escapeHtml(text)}</pre>`,
  });
}

function paragraph(addresses: readonly string[], many: string, one: string): string[] {
  if (addresses.length === 0) return [];
  return [addresses.length === 1 ? one : many, ...addresses.map((a) => `  ${a}`), ''];
}
