/**
 * Runs one measurement in a fresh Node process, so each one starts from an empty heap and its peak
 * RSS is its own. Workers run as esbuild bundles on plain `node` (built once per bench run into
 * .bench-tmp/bundles), as the Lambdas run: `node --import tsx` would add its loader (~30 MB of RSS)
 * and on-the-fly compilation to every figure. A worker imports bench/lib/worker.ts, never this module (see there).
 * Long-running helpers (simulator, s3rver) use tsx. The peak is read two ways and the larger is kept: the
 * child's own `process.resourceUsage().maxRSS` (exact, reported with its result) and VmHWM of
 * /proc/<pid>/status polled by the parent (covers a child that dies before it can report).
 */
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { copyBesideBundle, PDF_FONTS } from '../../infra/constructs/exporter-function';
import { RESULT_PREFIX } from './worker';

export interface ChildOptions {
  /** V8 old-space limit of the child, in MB. */
  readonly maxOldSpaceMb?: number;
  readonly env?: Readonly<Record<string, string>>;
  /** Killed (SIGKILL) after this long. Default 10 minutes. */
  readonly timeoutMs?: number;
  /** Extra node flags, e.g. --expose-gc. */
  readonly nodeFlags?: readonly string[];
}

export interface ChildOutcome<T> {
  readonly ok: boolean;
  /** The worker's result (undefined when it failed). */
  readonly result: T | undefined;
  /** Peak RSS of the child in MiB (max of its own maxRSS and the polled VmHWM). */
  readonly peakRssMb: number;
  /** Spawn to exit. */
  readonly wallMs: number;
  readonly exitCode: number | null;
  readonly signal: NodeJS.Signals | null;
  /** Last lines of stderr, for a failure message. */
  readonly stderrTail: string;
}

/** Absolute path of a file under bench/, from a module's import.meta.url. */
export function benchPath(relative: string): string {
  return fileURLToPath(new URL(`../${relative}`, import.meta.url));
}

function readHwmKb(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const match = /^VmHWM:\s+(\d+)\s+kB/m.exec(status);
    return match ? Number(match[1]) : 0;
  } catch {
    return 0;
  }
}

function nodeArgs(options: ChildOptions): string[] {
  return [
    ...(options.maxOldSpaceMb ? [`--max-old-space-size=${options.maxOldSpaceMb}`] : []),
    ...(options.nodeFlags ?? []),
  ];
}

/** Scratch space of the benchmarks (git-ignored). */
export const TMP_DIR = fileURLToPath(new URL('../../.bench-tmp/', import.meta.url));

const bundles = new Map<string, Promise<string>>();

/** `bench/<script>` bundled with everything it imports into one ESM file (built once per run). */
export function bundleWorker(script: string): Promise<string> {
  let bundle = bundles.get(script);
  if (!bundle) {
    const dir = join(TMP_DIR, 'bundles');
    mkdirSync(dir, { recursive: true });
    const outfile = join(dir, `${basename(script, '.ts')}.mjs`);
    // The PDF renderer reads its fonts from fonts/ beside the bundle (shared/render/pdf/fonts.ts), as the
    // export function's bundling copies them; without them every worker that writes a PDF fails at once.
    copyBesideBundle(fileURLToPath(new URL('../../', import.meta.url)), dir, [PDF_FONTS]);
    bundle = build({
      entryPoints: [benchPath(script)],
      outfile,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: `node${process.versions.node.split('.')[0]}`,
      // CommonJS dependencies inside an ESM bundle expect `require`. The import is renamed: unminified,
      // a bundled module's own `import { createRequire }` (pdfkit's) keeps its name and would clash.
      banner: { js: "import { createRequire as __benchCreateRequire } from 'module'; const require = __benchCreateRequire(import.meta.url);" },
      logLevel: 'error',
    }).then(() => outfile);
    bundles.set(script, bundle);
  }
  return bundle;
}

/** Runs `bench/<script>` (bundled) with `input` (JSON) as its only argument and returns its result line. */
export async function runWorker<T>(script: string, input: unknown, options: ChildOptions = {}): Promise<ChildOutcome<T>> {
  const file = await bundleWorker(script);
  const started = performance.now();
  const child = spawn(process.execPath, [...nodeArgs(options), file, JSON.stringify(input)], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...options.env },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
    // Keep only what may still hold the result line.
    if (stdout.length > 1_000_000) stdout = stdout.slice(-500_000);
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-20_000);
  });
  let hwmKb = 0;
  const poll = setInterval(() => {
    if (child.pid !== undefined) hwmKb = Math.max(hwmKb, readHwmKb(child.pid));
  }, 20);
  const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 600_000);
  return new Promise<ChildOutcome<T>>((resolve) => {
    child.on('close', (exitCode, signal) => {
      clearInterval(poll);
      clearTimeout(timer);
      const line = stdout
        .split('\n')
        .reverse()
        .find((l) => l.startsWith(RESULT_PREFIX));
      let result: (T & { maxRssKb?: number }) | undefined;
      if (line && exitCode === 0) result = JSON.parse(line.slice(RESULT_PREFIX.length)) as T & { maxRssKb?: number };
      const peakKb = Math.max(hwmKb, result?.maxRssKb ?? 0);
      resolve({
        ok: result !== undefined,
        result,
        peakRssMb: Math.round(peakKb / 1024),
        wallMs: performance.now() - started,
        exitCode,
        signal,
        stderrTail: stderr.split('\n').slice(-15).join('\n'),
      });
    });
  });
}

/** A long-running helper process (simulator, s3rver) that talks over IPC. */
export interface ServiceProcess {
  readonly child: ChildProcess;
  request<R>(message: Record<string, unknown>): Promise<R>;
  close(): Promise<void>;
}

/** Forks `bench/<script>` with IPC and waits for its `{ type: 'ready', ... }` message. */
export async function startService<Ready>(script: string, input: unknown): Promise<{ service: ServiceProcess; ready: Ready }> {
  const child = fork(benchPath(script), [JSON.stringify(input)], {
    // --no-warnings: the AWS SDK's Node-version notice from s3rver's process is noise in the bench output.
    execArgv: ['--import', 'tsx', '--no-warnings'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  let nextId = 1;
  const waiting = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  let onReady: ((ready: Ready) => void) | undefined;
  let onFail: ((error: Error) => void) | undefined;
  const readyPromise = new Promise<Ready>((resolve, reject) => {
    onReady = resolve;
    onFail = reject;
  });
  child.on('message', (raw) => {
    const msg = raw as { type: string; id?: number; error?: string; value?: unknown };
    if (msg.type === 'ready') onReady?.(msg as unknown as Ready);
    else if (msg.type === 'reply' && msg.id !== undefined) {
      const w = waiting.get(msg.id);
      waiting.delete(msg.id);
      if (msg.error) w?.reject(new Error(msg.error));
      else w?.resolve(msg.value);
    }
  });
  child.on('exit', (code) => {
    const error = new Error(`${script} exited with code ${String(code)}`);
    onFail?.(error);
    for (const w of waiting.values()) w.reject(error);
    waiting.clear();
  });
  const ready = await readyPromise;
  const service: ServiceProcess = {
    child,
    request<R>(message: Record<string, unknown>): Promise<R> {
      const id = nextId++;
      return new Promise<R>((resolve, reject) => {
        waiting.set(id, { resolve: resolve as (v: unknown) => void, reject });
        child.send({ ...message, id });
      });
    },
    async close(): Promise<void> {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.send({ type: 'close', id: 0 });
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
  return { service, ready };
}

/** For services: answers requests from the parent; `close` runs `onClose` and exits. */
export function serveRequests(
  handlers: Record<string, (message: Record<string, unknown>) => unknown>,
  onClose: () => Promise<void>,
): void {
  process.on('message', (raw) => {
    const msg = raw as Record<string, unknown> & { type: string; id: number };
    if (msg.type === 'close') {
      void onClose().finally(() => process.exit(0));
      return;
    }
    const handler = handlers[msg.type];
    Promise.resolve()
      .then(() => {
        if (!handler) throw new Error(`unknown request ${msg.type}`);
        return handler(msg);
      })
      .then(
        (value) => process.send?.({ type: 'reply', id: msg.id, value }),
        (error: unknown) => process.send?.({ type: 'reply', id: msg.id, error: String(error) }),
      );
  });
  // The parent went away (Ctrl-C, crash): do not outlive it.
  process.on('disconnect', () => {
    void onClose().finally(() => process.exit(0));
  });
}
