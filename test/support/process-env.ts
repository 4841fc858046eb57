/**
 * Setting and restoring the process environment for a command under test. Restoring changes
 * `process.env` in place: assigning it a copy (`process.env = saved`) would leave it a plain object
 * that no longer reaches the real environment, so a later test file in the same worker (test files
 * share a worker, vitest.config.ts) would set TMPDIR and `os.tmpdir()` would never see it.
 */
export function setProcessEnv(vars: Readonly<Record<string, string | undefined>>): () => void {
  const before = Object.fromEntries(Object.keys(vars).map((key) => [key, process.env[key]]));
  assign(vars);
  return () => assign(before);
}

/** Runs `run` with `vars` set in the process environment, and puts back what was there. */
export async function withProcessEnv<T>(vars: Readonly<Record<string, string | undefined>>, run: () => Promise<T>): Promise<T> {
  const restore = setProcessEnv(vars);
  try {
    return await run();
  } finally {
    restore();
  }
}

function assign(vars: Readonly<Record<string, string | undefined>>): void {
  for (const [key, value] of Object.entries(vars)) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
}
