import { writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { makeDirectory } from '../core/files/make-directory';

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
