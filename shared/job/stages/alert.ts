import type { AlertLine } from '../../channels/alert-message';
import type { ChannelResult } from '../../channels/deliver';
import { readerFormat } from '../../core/format';
import { mimeMessage } from '../../email/mime';
import type { OutgoingEmail } from '../../email/ses-mailer';
import { alertTargets, sendAlert } from '../../messages/alert-delivery';
import type { Outbox, RunRef } from '../../messages/outbox';
import { stepCrossing } from '../../report/alerts/crossing-state';
import { readRules } from '../../report/alerts/read-rules';
import { NO_TRANSPORT_HINT } from './deliver';
import { isInline } from './resolve';
import type { DeliveryContext, ExportedJob } from './delivery-ports';

/**
 * The alert stage, after deliver: reads the definition's alert rules (`alerts`, docs/reports.md)
 * against the figures and the comparison the run already computed, steps each rule's crossing state
 * in the ledger (report/alerts/crossing-state.ts: a line crossed is told of once, until the figure
 * came back and crossed again) and sends one short alert naming what crossed, claimed once per run
 * (messages/alert-delivery.ts). On-demand exports neither move the state nor alert: an alert is news
 * between the report's own runs. A report with `delivery.when: "alerts-only"` sends only this.
 */
export interface RunAlerts {
  /** An alert went out on this attempt (an e-mail or a chat post). */
  readonly sent: boolean;
  /** Why, in a sentence for people: `sent: openHighRisks above 29 (1 line crossed)`, `no line crossed`. */
  readonly reason: string;
  /** Each rule's state after this run: beyond its line, on the right side, or waiting (no value). */
  readonly rules: readonly { readonly rule: string; readonly state: 'beyond' | 'clear' | 'waiting'; readonly news: number }[];
  readonly channels: readonly ChannelResult[];
  /** Where the outbox put the alert (empty when it was sent). */
  readonly written: readonly string[];
}

const nothing = (reason: string): RunAlerts => ({ sent: false, reason, rules: [], channels: [], written: [] });

export async function alertRun(job: ExportedJob, context: DeliveryContext): Promise<RunAlerts> {
  const { definition, result } = job;
  const alerts = definition.alerts;
  if (!alerts) return nothing('the report names no alerts');
  if (isInline(job.request) || job.request.exportId !== undefined || (definition.deliveries?.length ?? 0) > 0) {
    return nothing('not evaluated: an on-demand export (or a whole report with deliveries) does not move the alerts');
  }
  // Without a transport the state would move while nobody is told: the crossing would be lost.
  if (!context.outbox && !context.mail && !context.channels) return nothing(`not evaluated: nothing here sends alerts (${NO_TRANSPORT_HINT})`);
  const format = readerFormat(definition.locale, definition.timeZone);
  const readings = readRules(alerts.rules, { figures: result.manifest.summary, changes: result.changes }, format);
  const run = { report: definition.name, runId: result.manifest.runId, generatedAt: new Date(result.manifest.generatedAt) };
  const lines: AlertLine[] = [];
  const rules: RunAlerts['rules'][number][] = [];
  for (const reading of readings) {
    const step = await stepCrossing(context.ledger, run, reading.id, reading.items ?? [], reading.hold);
    lines.push(...step.news.map((item) => ({ rule: reading.label, text: item.text })));
    const state = reading.items === undefined ? 'waiting' : reading.items.length > 0 ? 'beyond' : 'clear';
    rules.push({ rule: reading.id, state, news: step.news.length });
  }
  const crossed = rules.filter((r) => r.news > 0).map((r) => r.rule);
  if (lines.length === 0) return { ...nothing(`not sent: no line crossed since the run before (${describeStates(rules)})`), rules };
  const targets = alertTargets(definition);
  if (targets.email.length + targets.channels.length === 0) return { ...nothing(`not sent: ${crossed.join(', ')} crossed, and this delivery names nobody to tell`), rules };
  const written: string[] = [];
  const ref: RunRef = { report: definition.name, runId: result.manifest.runId, runFolder: result.runFolder };
  const outbox = context.outbox && recording(context.outbox, written);
  const now = context.clock();
  const sent = await sendAlert(definition, result, lines, {
    ledger: context.ledger,
    log: context.log,
    now,
    clock: context.clock,
    deadline: context.settings.deadline,
    mail: outbox ? { send: outboxMail(outbox, ref, now, targets.email.length === 1), from: context.sender ?? definition.email?.from } : context.mail && { send: (email) => context.mail!.send(email), from: context.sender },
    channels: context.channels,
    links: context.links,
    writeChannel: outbox && ((target, body) => outbox.write(ref, `alert-${target.type}${targets.channels.filter((c) => c.type === target.type).length > 1 ? `-${target.webhook.key.replace(/[^A-Za-z0-9._-]+/g, '-')}` : ''}.json`, body)),
  });
  const any = sent.emailed.length > 0 || sent.channels.some((c) => c.status === 'sent');
  const again = !any && sent.emailedBefore > 0 && sent.channels.every((c) => c.status === 'skipped');
  const reason = again
    ? `not sent again: an earlier attempt of run ${run.runId} sent its alert (${crossed.join(', ')})`
    : `${any ? 'sent' : 'not sent'}: ${crossed.join(', ')} crossed (${lines.length} ${lines.length === 1 ? 'line' : 'lines'})`;
  context.log.info('alert', { report: definition.name, runId: run.runId, crossed, reason });
  return { sent: any, reason, rules, channels: sent.channels, written };
}

function describeStates(rules: RunAlerts['rules']): string {
  return rules.map((r) => `${r.rule}: ${r.state === 'beyond' ? 'still beyond its line' : r.state === 'clear' ? 'clear' : 'no value yet'}`).join('; ');
}

function recording(outbox: Outbox, written: string[]): Outbox {
  return {
    async write(run, name, body) {
      const where = await outbox.write(run, name, body);
      written.push(where);
      return where;
    },
  };
}

/** The alert e-mail as the outbox keeps it: `alert.html` and `alert.eml` for one recipient, `alert-<address>.…` for each of several. */
function outboxMail(outbox: Outbox, run: RunRef, at: Date, single: boolean): (email: OutgoingEmail) => Promise<unknown> {
  return async (email) => {
    const name = single ? 'alert' : `alert-${(email.to[0] ?? 'all').toLowerCase().replace(/[^a-z0-9@._-]+/g, '-')}`;
    await outbox.write(run, `${name}.html`, email.html);
    await outbox.write(run, `${name}.eml`, mimeMessage(email, at));
  };
}
