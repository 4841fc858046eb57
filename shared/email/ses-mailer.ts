import { GetAccountCommand, SESv2Client, SendEmailCommand } from '@aws-sdk/client-sesv2';
import * as z from 'zod';
import { EmailDeliveryError, transientAwsFailure } from '../core/errors';
import { emailAddress } from './email-address';

export { emailAddress } from './email-address';


export interface EmailAttachment {
  readonly fileName: string;
  readonly contentType: string;
  readonly content: Uint8Array;
}

export interface OutgoingEmail {
  readonly from: string;
  readonly to: readonly string[];
  readonly cc?: readonly string[];
  readonly subject: string;
  readonly html: string;
  readonly text: string;
  readonly attachments?: readonly EmailAttachment[];
  /** Extra headers (List-Unsubscribe, List-Unsubscribe-Post: RFC 8058). */
  readonly headers?: readonly { readonly name: string; readonly value: string }[];
  /** Message tags SES hands back with its bounce and complaint events (`report`). */
  readonly tags?: Readonly<Record<string, string>>;
}

/**
 * Attachments are limited to 7 MiB in total. SES accepts messages up to 40 MB, but base64 grows an
 * attachment by a third and many receiving servers refuse mail over 10 MB: 7 MiB encodes to about
 * 9.3 MiB, leaving room for the bodies. Larger workbooks are only linked.
 */
export const MAX_ATTACHMENT_BYTES = 7 * 1024 * 1024;

/** SES refuses more than 50 recipients per message. */
const MAX_RECIPIENTS = 50;

export function fitsAsAttachment(bytes: number): boolean {
  return bytes <= MAX_ATTACHMENT_BYTES;
}

const outgoingEmailSchema = z.object({
  from: emailAddress,
  to: z.array(emailAddress).min(1, 'needs at least one recipient'),
  cc: z.array(emailAddress).optional(),
  subject: z.string().min(1, 'must not be empty'),
});

/**
 * Sends mail through SES v2 `SendEmail` with Simple content. Simple content takes attachments too
 * (SES builds the MIME message), so no hand-written Raw MIME is needed.
 */
export class SesMailer {
  private readonly client: SESv2Client;

  private readonly configurationSet: string | undefined;

  /** `configurationSet`: SES's bounce and complaint events of every message go where its event destination says. */
  constructor(options: { client?: SESv2Client; configurationSet?: string | undefined } = {}) {
    this.client = options.client ?? new SESv2Client({});
    this.configurationSet = options.configurationSet;
  }

  /** The account's sending rate (sesSendRate), through this mailer's client. */
  sendRate(): Promise<number> {
    return sesSendRate(this.client);
  }

  async send(email: OutgoingEmail): Promise<{ messageId: string | undefined }> {
    const checked = outgoingEmailSchema.safeParse(email);
    if (!checked.success) {
      const issue = checked.error.issues[0];
      const path = issue?.path.map(String).join('.') ?? '';
      throw new EmailDeliveryError(`invalid e-mail: ${path} ${issue?.message ?? ''}`.trim(), { cause: checked.error });
    }
    const { from, to, cc = [], subject } = checked.data;
    if (to.length + cc.length > MAX_RECIPIENTS) {
      throw new EmailDeliveryError(`an e-mail can have at most ${MAX_RECIPIENTS} recipients, not ${to.length + cc.length}`);
    }
    const attachments = email.attachments ?? [];
    const attachedBytes = attachments.reduce((sum, a) => sum + a.content.byteLength, 0);
    if (attachedBytes > MAX_ATTACHMENT_BYTES) {
      throw new EmailDeliveryError(
        `attachments are ${attachedBytes} bytes; at most ${MAX_ATTACHMENT_BYTES} are sent (link the file instead)`,
      );
    }
    try {
      const response = await this.client.send(
        new SendEmailCommand({
          FromEmailAddress: from,
          Destination: { ToAddresses: to, ...(cc.length > 0 && { CcAddresses: cc }) },
          ...(this.configurationSet !== undefined && { ConfigurationSetName: this.configurationSet }),
          ...(email.tags && { EmailTags: Object.entries(email.tags).map(([Name, Value]) => ({ Name, Value: sesTagValue(Value) })) }),
          Content: {
            Simple: {
              Subject: { Data: subject, Charset: 'UTF-8' },
              Body: { Html: { Data: email.html, Charset: 'UTF-8' }, Text: { Data: email.text, Charset: 'UTF-8' } },
              ...(email.headers && email.headers.length > 0 && { Headers: email.headers.map((h) => ({ Name: h.name, Value: h.value })) }),
              ...(attachments.length > 0 && {
                Attachments: attachments.map((a) => ({
                  FileName: a.fileName,
                  ContentType: a.contentType,
                  RawContent: a.content,
                  ContentDisposition: 'ATTACHMENT' as const,
                  ContentTransferEncoding: 'BASE64' as const,
                })),
              }),
            },
          },
        }),
      );
      return { messageId: response.MessageId };
    } catch (error) {
      const detail = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      throw new EmailDeliveryError(`could not send "${subject}" to ${to.length + cc.length} recipient(s): ${detail}`, {
        cause: error,
        retryable: transientAwsFailure(error),
      });
    }
  }
}

/**
 * The account's sending rate, messages per second (SES `GetAccount`'s `SendQuota.MaxSendRate`: 1 in the
 * sandbox, 14 on a new production account, more as AWS raises it), read once per process by the paced mailer.
 */
export async function sesSendRate(client: SESv2Client): Promise<number> {
  try {
    const rate = (await client.send(new GetAccountCommand({}))).SendQuota?.MaxSendRate;
    if (rate === undefined || !(rate > 0)) throw new Error('GetAccount gave no SendQuota.MaxSendRate');
    return rate;
  } catch (error) {
    const detail = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    throw new EmailDeliveryError(`could not read the account's sending rate: ${detail}`, { cause: error, retryable: transientAwsFailure(error) });
  }
}

/**
 * Whether SES refused a message for the account's sending rate (`Throttling` "Maximum sending rate
 * exceeded" in SES v1's words, `TooManyRequestsException` in v2's): the message may go a moment later.
 * A daily quota exhausted (`LimitExceededException`) is not this: waiting seconds does not help.
 */
export function isSendThrottled(error: unknown): boolean {
  const cause = error instanceof EmailDeliveryError && error.cause instanceof Error ? error.cause : error;
  if (!(cause instanceof Error)) return false;
  return ['Throttling', 'ThrottlingException', 'TooManyRequestsException'].includes(cause.name) || /maximum sending rate exceeded/i.test(cause.message);
}

/** SES tag values may hold letters, digits, `_`, `-`, `.` and `@` only: anything else becomes `_`. */
function sesTagValue(value: string): string {
  return value.replace(/[^A-Za-z0-9_.@-]/g, '_').slice(0, 256);
}

/** The SES v2 client the adapter uses by default; the handler builds it to instrument it once. */
export function createSesClient(): SESv2Client {
  return new SESv2Client({});
}
