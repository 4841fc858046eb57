import type { LinkSigning, MailPorts, ChannelJobDependencies } from '../../messages/message-ports';
import type { Outbox } from '../../messages/outbox';
import type { RunContext } from '../../report/run/context';
import type { ExportResult } from '../../report/run/result';
import type { RunDraft } from '../../report/run/run';
import type { ExportJobRequest } from '../request';

export type { Mailer, MailPorts } from '../../messages/message-ports';

/**
 * The ports of the deliver and alert stages (deliver.ts, alert.ts) and the job they
 * read: the mail and chat transports, the links' signing, the outbox. The transports' types are the
 * messages' own (messages/message-ports.ts): the stages hand messages/ this context as it is.
 */
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

/** What the deliver and alert stages read of the job's context. */
export type DeliveryContext = Pick<RunContext, 'clock' | 'log' | 'ledger' | 'settings' | 'storage' | 'leaseWait'> & DeliveryPorts;
