import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';

/**
 * The kill trials' one move: runs `script` (a test/support child, given `job` as JSON) in its own
 * process, waits for it to say `word` on stdout, kills it with SIGKILL and waits for it to be gone.
 * Fails when the child says anything else first, or ends by itself (a child that waits for the kill
 * must keep its event loop alive: a bare never-settling promise exits with code 13).
 */
export async function killOnWord(script: string, job: unknown, word: string): Promise<void> {
  const loader = pathToFileURL(join(process.cwd(), 'node_modules/tsx/dist/loader.mjs')).href;
  const child = spawn(process.execPath, ['--import', loader, join(process.cwd(), script), JSON.stringify(job)], { stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  for await (const line of createInterface({ input: child.stdout })) {
    if (line === word) break;
    throw new Error(`the child process said "${line}" before "${word}", the word it was to be killed on`);
  }
  child.kill('SIGKILL');
  const { code, signal } = await exited;
  if (signal !== 'SIGKILL') throw new Error(`the child process ended by itself (exit code ${String(code)}) before the SIGKILL`);
}
