import type { ChannelDeliveryDependencies, WebhookUrlSource } from '../channels/deliver';
import type { WebhookPostSettings } from '../channels/webhook-post';
import type { Clock } from '../core/clock';
import type { Log } from '../core/logger';
import type { Sleep } from '../core/retry/retry';
import type { OutgoingEmail } from '../email/ses-mailer';
import type { Ledger } from '../ledger/ledger';
import type { LinkVerificationKeys } from '../links/link-token';
import type { ExportSettings } from '../report/definition/export-settings';

/**
 * What sending a run's messages reads of the job's context, each part under the name the context
 * gives it (job/run-job.ts `JobContext`): the stages hand the context itself, never a bag built from
 * it, so a transport, the clock or the ledger is one value with one name from the door to the send.
 */
export interface Mailer {
  send(email: OutgoingEmail): Promise<unknown>;
}

/** Signs the long-lived file and run links of a message (`<baseUrl>/links/…`, `<baseUrl>/run/…`). */
export interface LinkSigning {
  readonly baseUrl: string;
  keys(): Promise<LinkVerificationKeys>;
}

/** What the export job needs for chat channels: the webhook reader, and the poster's settings (tests). */
export interface ChannelJobDependencies {
  readonly webhooks: WebhookUrlSource;
  readonly post?: WebhookPostSettings;
}

/** The mail transport and the configured sender, shared by the messages and the owners' notices. */
export interface MailPorts {
  /** The configured sender (MAIL_FROM); a definition's `email.from` comes first. */
  readonly sender?: string | undefined;
  readonly mail?: Mailer | undefined;
}

/**
 * Who a report's mail comes from, the one rule for every message and notice of it: the definition's
 * `email.from`, else the configured sender (MAIL_FROM); an inline definition's always the configured
 * one (it may not choose its sender: resolve-definition.ts refuses one that tries).
 */
export function senderOf<Configured extends string | undefined>(definition: { readonly email?: { readonly from?: string | undefined } | undefined }, configured: Configured, inline = false): string | Configured {
  return inline ? configured : (definition.email?.from ?? configured);
}

/** The parts of the job's context a run's messages (report, alert) read. */
export interface MessagePorts extends MailPorts {
  readonly ledger: Ledger;
  readonly log: Log;
  /** The run's clock: read once per stage for the time of the claims and of the links; the webhook poster reads Retry-After dates and the deadline on it. */
  readonly clock: Clock;
  /** The job's deadline (epoch ms): webhook retries stop there. */
  readonly settings: Pick<ExportSettings, 'deadline'>;
  readonly links?: LinkSigning | undefined;
  /** Needed only for definitions with chat channels (`delivery.channels`). */
  readonly channels?: ChannelJobDependencies | undefined;
  /** Waits for a message another attempt claimed and never marked sent (message-claim.ts); without it the send fails retryable. */
  readonly leaseWait?: Sleep | undefined;
}

/** How the run's chat posts go out: the webhooks and the poster's settings of the context, each post claimed through `once`, or written (the outbox). */
export function channelPosting(context: MessagePorts, once: ChannelDeliveryDependencies['once'], write: ChannelDeliveryDependencies['write']): ChannelDeliveryDependencies {
  const { deadline } = context.settings;
  return {
    webhooks: context.channels?.webhooks,
    log: context.log,
    clock: context.clock,
    post: { ...context.channels?.post, ...(deadline !== undefined && { deadline }) },
    ...(once && { once }),
    write,
  };
}
