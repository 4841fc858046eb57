import { fileURLToPath, pathToFileURL } from 'node:url';

/**
 * Runs several of the repository's tsx scripts one after another in this one process, each as `npm run
 * <script> -- <args>` would start it (its file as argv[1], its arguments after), and prints what each did
 * as one JSON line: its exit code, what it wrote and the handles it left open. test/scripts/script-help.test.ts
 * starts this once with tsx instead of one tsx per script: each tsx start loads the SDK, exceljs and the
 * report code again (about 4 CPU seconds), and fifteen of them were a minute of a 2-core CI machine.
 *
 * A script ends three ways: it calls process.exit (stubbed here to throw, so nothing after it runs, as
 * in a real process), it sets process.exitCode, or it simply returns. A script that returns leaving a
 * server or a timer behind would keep a real process alive, so the handles it adds are reported.
 *
 *   tsx test/support/script-runs.ts '[{"file":"cli/demo.ts","args":["--help"]}, …]'
 */
export interface ScriptRun {
  file: string;
  args: string[];
}

export interface ScriptOutcome extends ScriptRun {
  code: number;
  out: string;
  err: string;
  /** Resources (servers, timers, sockets) the script left behind: a real process would not have exited. */
  leftOpen: string[];
}

/** Marks the line of results among whatever a script printed around it. */
export const OUTCOMES_MARK = 'script-runs:';

class ScriptExit extends Error {
  constructor(readonly code: number) {
    super(`process.exit(${code})`);
  }
}

function exitCodeOf(value: string | number | null | undefined): number {
  return value === undefined || value === null ? 0 : Number(value);
}

/** Collects what the script writes to one stream, in place of writing it. */
function capture(stream: NodeJS.WriteStream): { text: () => string; restore: () => void } {
  const write = stream.write.bind(stream);
  let text = '';
  stream.write = ((chunk: string | Uint8Array) => {
    text += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
    return true;
  });
  return { text: () => text, restore: () => void (stream.write = write) };
}

/** Lets what the script scheduled run out (a microtask chain, a write's callback) before it is judged. */
function settle(): Promise<void> {
  return new Promise((done) => setImmediate(done));
}

async function runScript(run: ScriptRun, index: number): Promise<ScriptOutcome> {
  const file = fileURLToPath(new URL(run.file, pathToFileURL(`${process.cwd()}/`)));
  const openBefore = process.getActiveResourcesInfo();
  let exit: number | undefined;
  // An exit called inside a promise the script did not await reaches here, not the import.
  const onRejection = (reason: unknown) => {
    if (!(reason instanceof ScriptExit)) throw reason;
    exit ??= reason.code;
  };
  process.on('unhandledRejection', onRejection);
  process.exitCode = undefined;
  process.argv = [process.argv[0]!, file, ...run.args];
  const out = capture(process.stdout);
  const err = capture(process.stderr);
  try {
    // The query makes a second run of one file evaluate it again rather than reuse the first.
    await import(`${pathToFileURL(file).href}?run=${index}`);
  } catch (error) {
    if (!(error instanceof ScriptExit)) throw error;
    exit = error.code;
  } finally {
    await settle();
    out.restore();
    err.restore();
    process.off('unhandledRejection', onRejection);
  }
  // A file system request still in flight (FSReqCallback, FSReqPromise: a read a module started as it
  // loaded) ends on its own: it delays a real process's exit by its I/O, never keeps it alive.
  const leftOpen = process.getActiveResourcesInfo().filter((resource) => !resource.startsWith('FSReq'));
  for (const resource of openBefore) {
    const at = leftOpen.indexOf(resource);
    if (at >= 0) leftOpen.splice(at, 1);
  }
  return { ...run, code: exit ?? exitCodeOf(process.exitCode), out: out.text(), err: err.text(), leftOpen };
}

async function main(runs: readonly ScriptRun[]): Promise<void> {
  process.exit = ((code?: string | number | null) => {
    throw new ScriptExit(exitCodeOf(code));
  });
  const outcomes: ScriptOutcome[] = [];
  for (const [index, run] of runs.entries()) outcomes.push(await runScript(run, index));
  process.stdout.write(`${OUTCOMES_MARK}${JSON.stringify(outcomes)}\n`);
  process.exitCode = 0;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main(JSON.parse(process.argv[2] ?? '[]') as ScriptRun[]);
