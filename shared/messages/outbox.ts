import { writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { makeDirectory } from '../core/files/make-directory';
import { mimeMessage } from '../email/mime';
import type { OutgoingEmail } from '../email/ses-mailer';

/** The run a message belongs to. */
export interface RunRef {
  readonly report: string;
  readonly runId: string;
  /** The run folder's key (`<report>/dt=…/run=…`). */
  readonly runFolder: string;
}

/**
 * Where the deliver stage writes a run's messages instead of sending them (the demo, `npm run export
 * -- --outbox`): `email.html`, `email.eml` and one `<channel>.json` per chat channel, each the exact
 * bytes the deployed stack would hand to SES or the webhook. Returns where the file went, for people.
 */
export interface Outbox {
  write(run: RunRef, name: string, body: string): Promise<string>;
}

/** An outbox in a directory, mirroring the run folders: `<root>/<run folder>/<name>`. */
export function directoryOutbox(root: string): Outbox {
  return {
    async write(run, name, body) {
      const path = join(root, ...run.runFolder.split('/'), name);
      await makeDirectory(dirname(path));
      await writeFile(path, body);
      return path;
    },
  };
}

/** Which message of a run the files hold: the report's own (`email.*`, `slack.json`) or its alert (`alert.*`, `alert-slack.json`). */
export type OutboxKind = 'report' | 'alert';

/**
 * One run's messages of one kind as the outbox keeps them, and where each file went (the stage's
 * `written`, for people). The deliver and alert stages both write through this, so the two kinds
 * are named by one rule and recorded one way.
 */
export interface OutboxRecorder {
  /** Where each file went, in the order written. */
  readonly written: readonly string[];
  /**
   * The e-mail as the outbox keeps it: the HTML part to open in a browser, the whole message (at
   * `at`) to open in a mail client; `email.html`/`email.eml` (`alert.…`) for `first` (the one
   * recipient, or the first of several: the demo's further readers, each with their own actions, leave
   * its first message where it was), `email-<address>.…` for each other.
   */
  mailer(at: Date, first: string | undefined): { readonly send: (email: OutgoingEmail) => Promise<unknown> };
  /** Writes a channel's body: `slack.json` (`alert-slack.json`); `<type>-<field>.json` where the message goes to two channels of one type. */
  channelWriter(targets: readonly { readonly type: string }[]): (target: OutboxChannel, body: string) => Promise<unknown>;
}

/** The part of a channel target the file name reads. */
interface OutboxChannel {
  readonly type: string;
  readonly webhook: { readonly key: string };
}

export function outboxRecorder(outbox: Outbox, run: RunRef, kind: OutboxKind): OutboxRecorder {
  const written: string[] = [];
  const write = async (name: string, body: string) => {
    written.push(await outbox.write(run, name, body));
  };
  const prefix = kind === 'alert' ? 'alert-' : '';
  return {
    written,
    mailer: (at, first) => ({
      send: async (email) => {
        const base = kind === 'alert' ? 'alert' : 'email';
        const to = email.to[0] ?? 'all';
        const name = to === first ? base : `${base}-${to.toLowerCase().replace(/[^a-z0-9@._-]+/g, '-')}`;
        await write(`${name}.html`, email.html);
        await write(`${name}.eml`, mimeMessage(email, at));
      },
    }),
    channelWriter: (targets) => async (target, body) => {
      const shared = targets.filter((t) => t.type === target.type).length > 1;
      const field = target.webhook.key.replace(/[^A-Za-z0-9._-]+/g, '-');
      await write(`${prefix}${shared ? `${target.type}-${field}` : target.type}.json`, body);
    },
  };
}
