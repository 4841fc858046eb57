import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SESv2Client } from '@aws-sdk/client-sesv2';
import * as sesLocalModule from 'aws-ses-v2-local';

/** One message as aws-ses-v2-local keeps it (GET /store). */
export interface StoredMail {
  readonly messageId: string;
  readonly from: string;
  readonly replyTo: string[];
  readonly destination: { to: string[]; cc: string[]; bcc: string[] };
  readonly subject: string;
  readonly body: { html?: string; text?: string };
  /** `content` is base64. */
  readonly attachments: { content: string; contentType: string; filename?: string; size: number }[];
  /** Custom headers of Simple content (List-Unsubscribe …), as sent. */
  readonly headers?: { name: string; value: string }[];
  readonly at: number;
}

export interface SesLocalHandle {
  readonly endpoint: string;
  readonly client: SESv2Client;
  /** The mails received since this server started (GET /store). */
  fetchStore(): Promise<StoredMail[]>;
  /** Empties the mail store, so a test sees only the mails it caused. */
  clearStore(): Promise<void>;
  close(): Promise<void>;
}

type StartServer = (config?: { host?: string; port?: number }) => Promise<Server>;

/**
 * Starts aws-ses-v2-local in-process (its package exports the server function) on a free port.
 * Its mail store is a module-level singleton shared by every server in the process, so the store
 * is cleared on start: tests in one file must not run their mail tests concurrently.
 */
export async function startSesLocal(): Promise<SesLocalHandle> {
  // The package is CommonJS with `exports.default`; depending on the loader's interop the function
  // is the default export or the default export's `default`.
  const candidate: unknown = (sesLocalModule as { default?: unknown }).default;
  const start = (typeof candidate === 'function' ? candidate : (candidate as { default?: unknown }).default) as StartServer;
  const server = await start({ host: '127.0.0.1', port: 0 });
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const clearStore = async (): Promise<void> => {
    const cleared = await fetch(`${endpoint}/clear-store`, { method: 'POST' });
    if (!cleared.ok) throw new Error(`aws-ses-v2-local: clear-store answered ${cleared.status}`);
  };
  await clearStore();
  const client = new SESv2Client({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'ANY_STRING', secretAccessKey: 'ANY_STRING' },
    maxAttempts: 1,
  });
  return {
    endpoint,
    client,
    clearStore,
    fetchStore: async () => {
      const response = await fetch(`${endpoint}/store`);
      if (!response.ok) throw new Error(`aws-ses-v2-local: /store answered ${response.status}`);
      return ((await response.json()) as { emails: StoredMail[] }).emails;
    },
    close: async () => {
      client.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
    },
  };
}
