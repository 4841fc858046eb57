// @tier slow
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SCRIPTS = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
/** The scripts of this repository (run with tsx); the others are the tools' own (vitest, tsc, eslint, cdk). */
const OURS = Object.entries(SCRIPTS).filter(([, command]) => command.startsWith('tsx '));

/** A digest of every file the scripts could write: docs, schemas, pictures. */
function trackedOutputs(): string {
  const hash = createHash('sha256');
  for (const dir of ['docs', 'schemas']) {
    for (const entry of readdirSync(join(ROOT, dir), { recursive: true, withFileTypes: true })) {
      if (!entry.isFile()) continue;
      const path = join(entry.parentPath, entry.name);
      hash.update(path).update(readFileSync(path));
    }
  }
  return hash.digest('hex');
}

function run(command: string, args: readonly string[]): Promise<{ code: number; out: string; err: string }> {
  const [tool, ...rest] = command.split(' ');
  return new Promise((done) => {
    execFile(join(ROOT, 'node_modules', '.bin', tool!), [...rest, ...args], { cwd: ROOT, timeout: 60_000 }, (error, out, err) => {
      done({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : -1, out, err });
    });
  });
}

describe('every npm run script of the repository', () => {
  it('is one of the scripts this test knows to run with tsx', () => {
    expect(OURS.map(([name]) => name).sort()).toEqual(
      ['bench', 'demo', 'discover', 'docs:glossary', 'docs:tables', 'export', 'link', 'local', 'pictures', 'preflight', 'reports', 'simulator'].sort(),
    );
  });

  // Each script starts its own tsx (seconds each on a busy machine); three at a time.
  it('prints its usage with --help, exits 0 and changes nothing', { timeout: 300_000 }, async () => {
    const before = trackedOutputs();
    const answers: { name: string; code: number; out: string; err: string }[] = [];
    for (let i = 0; i < OURS.length; i += 3) {
      answers.push(...(await Promise.all(OURS.slice(i, i + 3).map(async ([name, command]) => ({ name, ...(await run(command, ['--help'])) })))));
    }
    for (const { name, code, out, err } of answers) {
      expect(code, `${name}: ${err}`).toBe(0);
      expect(out, name).toMatch(new RegExp(`Usage|npm run ${name}`));
    }
    expect(trackedOutputs()).toBe(before);
  });

  it('refuses an argument it does not take, before writing anything', { timeout: 120_000 }, async () => {
    const before = trackedOutputs();
    for (const name of ['pictures', 'docs:tables', 'docs:glossary']) {
      const result = await run(SCRIPTS[name]!, ['--wat']);
      expect(result.code, name).toBe(2);
      expect(result.err, name).toContain('error: --wat is not an argument of this script (it takes none)');
    }
    expect(trackedOutputs()).toBe(before);
  });
});
