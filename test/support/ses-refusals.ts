import { createServer, request, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SESv2Client } from '@aws-sdk/client-sesv2';

/**
 * SES that refuses some recipients, in front of aws-ses-v2-local (which accepts every well-formed
 * request): a SendEmail to a refused address is answered as SES answers it (REST-JSON, the error
 * type in `x-amzn-ErrorType`: `MessageRejected` 400, as the sandbox answers an unverified
 * recipient; `TooManyRequestsException` 429 for throttling), everything else goes through to the
 * mail store. `refuse` may be changed between requests; `refused` counts the answers given.
 */
export interface SesRefusal {
  readonly status: number;
  readonly type: string;
  readonly message: string;
}

export const MESSAGE_REJECTED: SesRefusal = { status: 400, type: 'MessageRejected', message: 'Email address is not verified. The following identities failed the check in region EU-WEST-1: ' };
export const THROTTLED: SesRefusal = { status: 429, type: 'TooManyRequestsException', message: 'Maximum sending rate exceeded.' };

export interface RefusingSes {
  readonly endpoint: string;
  /** A client with the SDK's own retries off, as ses-local's. */
  readonly client: SESv2Client;
  /** Recipient address (lower-case) → how SES answers a message to it. */
  refuse: Map<string, SesRefusal>;
  refused: number;
  /**
   * The account's sending rate, as SES keeps it: at most `perSecond` messages in each second of `now`
   * (a test's clock), the rest answered THROTTLED. Undefined: no rate.
   */
  sendRate: { readonly perSecond: number; readonly now: () => number } | undefined;
  /** Messages answered THROTTLED for the sending rate. */
  throttled: number;
  /**
   * Requests that were the SDK's own retries (its `amz-sdk-request` header says attempt 2 or later), and
   * how many of those were throttled: a retry the SDK sends after its own backoff is not paced by anyone.
   */
  sdkRetries: number;
  sdkRetriesThrottled: number;
  close(): Promise<void>;
}

export async function startRefusingSes(target: string, refuse: Map<string, SesRefusal> = new Map()): Promise<RefusingSes> {
  const upstream = new URL(target);
  const front: RefusingSes = {
    endpoint: '',
    client: undefined as unknown as SESv2Client,
    refuse,
    refused: 0,
    sendRate: undefined,
    throttled: 0,
    sdkRetries: 0,
    sdkRetriesThrottled: 0,
    close: () => new Promise<void>((resolve) => {
      front.client.destroy();
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const overSendRate = overRate(front);
      if (sdkAttempt(req.headers) > 1) {
        front.sdkRetries += 1;
        if (overSendRate) front.sdkRetriesThrottled += 1;
      }
      const refusal = overSendRate ? THROTTLED : refusalFor(body, front.refuse);
      if (refusal) {
        front.refused += 1;
        const address = destinationOf(body).join(', ');
        res
          .writeHead(refusal.status, { 'content-type': 'application/json', 'x-amzn-errortype': refusal.type, 'x-amzn-requestid': 'refusing-ses' })
          .end(JSON.stringify({ message: refusal.type === 'MessageRejected' ? `${refusal.message}${address}` : refusal.message }));
        return;
      }
      const headers: IncomingHttpHeaders = { ...req.headers, host: upstream.host };
      const forward = request({ host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      forward.on('error', () => res.writeHead(502).end());
      forward.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const client = new SESv2Client({ endpoint, region: 'eu-west-1', credentials: { accessKeyId: 'ANY_STRING', secretAccessKey: 'ANY_STRING' }, maxAttempts: 1 });
  Object.assign(front, { endpoint, client });
  return front;
}

/** The SDK's attempt number of a request (`amz-sdk-request: attempt=2; max=3`), 1 when it does not say. */
function sdkAttempt(headers: IncomingHttpHeaders): number {
  const header = headers['amz-sdk-request'];
  const attempt = /attempt=(\d+)/.exec(typeof header === 'string' ? header : '')?.[1];
  return attempt ? Number(attempt) : 1;
}

function destinationOf(body: Buffer): string[] {
  try {
    const parsed = JSON.parse(body.toString('utf8')) as { Destination?: { ToAddresses?: string[]; CcAddresses?: string[] } };
    return [...(parsed.Destination?.ToAddresses ?? []), ...(parsed.Destination?.CcAddresses ?? [])];
  } catch {
    return [];
  }
}

function refusalFor(body: Buffer, refuse: Map<string, SesRefusal>): SesRefusal | undefined {
  for (const address of destinationOf(body)) {
    const refusal = refuse.get(address.toLowerCase());
    if (refusal) return refusal;
  }
  return undefined;
}

/** The second of the rate's clock being counted, and the messages taken in it. */
const windows = new WeakMap<RefusingSes, { second: number; taken: number }>();

/** Whether one more message would exceed the sending rate this second (counted when it does not). */
function overRate(front: RefusingSes): boolean {
  if (!front.sendRate) return false;
  const second = Math.floor(front.sendRate.now() / 1000);
  const window = windows.get(front);
  const taken = window?.second === second ? window.taken : 0;
  if (taken >= front.sendRate.perSecond) {
    front.throttled += 1;
    return true;
  }
  windows.set(front, { second, taken: taken + 1 });
  return false;
}
