import * as z from 'zod';
import { errorMessage } from '../../core/errors';
import { escapeHtml } from '../../email/email-content';
import type { OutgoingEmail } from '../../email/ses-mailer';
import { ledgerKey } from '../../ledger/ledger';
import { ledgerRecord } from '../../ledger/ledger-record';
import type { ReportDefinition } from '../../report/definition/definition';
import { ownersOf } from './failure-notice';
import { applyNotice, type NoticeRule, type OwnerNoticePorts } from './owner-notice';

/**
 * Recipients the mail service refused (SES `MessageRejected`: an unverified address in the sandbox,
 * an address SES will not take) are the owners' business: every other recipient was mailed and the
 * run stands, so nobody else would notice. The owners (`email.onFailure`, else `to`, less the refused
 * addresses themselves) get one e-mail when an address joins the refused set, not one per run; the
 * set last told is kept in the ledger (`notify/<report>/refused`). A rule of the owners' notice engine
 * (owner-notice.ts), so two attempts of one run tell it once and a send that fails is tried again at
 * the next run. An alert's recipients (`post: 'alert'`) are a set of their own
 * (`notify/<report>/refused alert`): an address may take the report and be refused the alert, or
 * be an alert's recipient only, and neither set should make the other look changed.
 */
export interface RefusedRecipient {
  /** The address as the definition lists it. */
  readonly address: string;
  /** What the mail service answered, in a line. */
  readonly reason: string;
}

const toldSchema = z.object({ addresses: z.array(z.string()), runId: z.string() });
type Told = z.infer<typeof toldSchema>;

/** Who one e-mail of a run (the report's, or its alert) went to: what the deliver and alert stages hand the owners' notices. */
export interface MailedRecipients {
  /** Recipients of the run, and how many of them have the message. */
  readonly recipients: number;
  readonly mailed: number;
  readonly refused: readonly RefusedRecipient[];
}

interface RunRefusals extends MailedRecipients {
  readonly runId: string;
}

/** What was refused: the report's message, or an alert. */
export type RefusedPost = 'message' | 'alert';

/** Tells the owners of newly refused recipients; the set shrinking is recorded quietly. Never throws. */
export async function noticeRefusedRecipients(
  definition: ReportDefinition,
  run: RunRefusals,
  deps: OwnerNoticePorts,
  post: RefusedPost = 'message',
): Promise<'sent' | 'unchanged' | 'recorded' | 'lost-race' | 'failed'> {
  try {
    const result = await applyNotice(refusedRule(definition, deps, post), run, (email) => deps.mail.send(email));
    if (result.outcome === 'not-sent') throw result.error;
    return result.outcome;
  } catch (error) {
    deps.log.error('owners not told of refused recipients', { report: definition.name, error: errorMessage(error) });
    return 'failed';
  }
}

function refusedRule(definition: ReportDefinition, deps: OwnerNoticePorts, post: RefusedPost): NoticeRule<Told, RunRefusals, OutgoingEmail> {
  const alert = post === 'alert';
  return {
    record: ledgerRecord(deps.ledger, ledgerKey('notify', definition.name, alert ? 'refused alert' : 'refused'), toldSchema, {
      what: `the refused ${alert ? 'alert ' : ''}recipients told of "${definition.name}"`,
      invalid: 'absent',
    }),
    transition: (previous, run) => {
      const before = previous?.addresses ?? [];
      const now = [...new Set(run.refused.map((r) => r.address.toLowerCase()))].sort();
      if (now.length === before.length && now.every((a, i) => a === before[i])) return undefined;
      const added = run.refused.filter((r) => !before.includes(r.address.toLowerCase()));
      const owners = ownersOf(definition).filter((owner) => !now.includes(owner.toLowerCase()));
      return { next: { addresses: now, runId: run.runId }, message: added.length > 0 && owners.length > 0 ? refusedNotice(definition, run, added, owners, deps.sender, post) : undefined };
    },
    initial: (run) => ({ addresses: [], runId: run.runId }),
  };
}

function refusedNotice(definition: ReportDefinition, run: RunRefusals, added: readonly RefusedRecipient[], owners: readonly string[], from: string, post: RefusedPost): OutgoingEmail {
  const title = definition.title ?? definition.name;
  const alert = post === 'alert';
  const lines = [
    `${alert ? 'The alert of run' : 'Run'} ${run.runId} of "${title}" could not be e-mailed to ${added.length === 1 ? 'this address' : 'these addresses'}: the mail service refused ${added.length === 1 ? 'it' : 'them'}.`,
    '',
    ...added.map((r) => `  ${r.address}: ${r.reason}`),
    '',
    alert
      ? `The alert was sent to ${run.mailed} of ${run.recipients} recipients; the run is kept. Each run sends it to the refused ${added.length === 1 ? 'address' : 'addresses'} again until it goes out or the figure is back on its side of the line.`
      : `The report was sent to ${run.mailed} of ${run.recipients} recipients; the export is kept.`,
    'What to do: check the address. In the SES sandbox every recipient must be a verified identity (or ask AWS to move the account out of the sandbox); otherwise correct the address or remove it from the report\'s recipients.',
    'You are told again only when another address is refused.',
  ];
  const text = `${lines.join('\n')}\n`;
  return {
    from,
    to: owners,
    subject: `${title}: ${added.length === 1 ? '1' : added.length} ${alert ? 'alert ' : ''}${added.length === 1 ? 'recipient' : 'recipients'} could not be e-mailed`,
    text,
    html: `<pre style="font-family:inherit;white-space:pre-wrap">${escapeHtml(text)}</pre>`,
  };
}
