import type { OutgoingEmail } from '../../email/ses-mailer';
import type { LinkVerificationKeys } from '../../links/link-token';
import type { Outbox } from '../../messages/outbox';
import type { ChannelJobDependencies } from '../../messages/report-channels';
import type { RunContext } from '../../report/run/context';
import type { ExportResult } from '../../report/run/result';
import type { RunDraft } from '../../report/run/run';
import type { ExportJobRequest } from '../request';

/**
 * The ports of the deliver stage (deliver.ts, deliver-email.ts) and the job they read: the mail and
 * chat transports, the links' signing, the outbox. Apart from the stage, so its e-mail part and the
 * stage read them without importing each other.
 */
export interface Mailer {
  send(email: OutgoingEmail): Promise<unknown>;
}

/** Signs the long-lived file and run links of a message (`<baseUrl>/links/…`, `<baseUrl>/run/…`). */
export interface LinkSigning {
  readonly baseUrl: string;
  keys(): Promise<LinkVerificationKeys>;
}

/** The mail transport and the configured sender, shared by the messages and the owners' notices. */
export interface MailPorts {
  /** The configured sender (MAIL_FROM); a definition's `email.from` comes first. */
  readonly sender?: string | undefined;
  readonly mail?: Mailer | undefined;
}

export interface DeliveryPorts extends MailPorts {
  readonly links?: LinkSigning | undefined;
  /** Needed only for definitions with chat channels (`delivery.channels`). */
  readonly channels?: ChannelJobDependencies | undefined;
  /** When set, messages are written here instead of sent. */
  readonly outbox?: Outbox | undefined;
}

/**
 * A job whose run was published (or found published by an earlier attempt): the planned run grown by
 * its result, beside the request it answers. What deliver, alert and announce read.
 */
export interface ExportedJob extends RunDraft {
  readonly request: ExportJobRequest;
  readonly result: ExportResult;
}

/** What the deliver stage reads of the job's context. */
export type DeliveryContext = RunContext & DeliveryPorts;
