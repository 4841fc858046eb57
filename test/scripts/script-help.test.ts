// @tier slow
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { OUTCOMES_MARK, type ScriptOutcome } from '../support/script-runs';

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

/** The file `npm run <name>` starts: the script's command is `tsx <file>`. */
function fileOf(name: string): string {
  return SCRIPTS[name]!.split(' ')[1]!;
}

/**
 * Runs the scripts with their arguments in one tsx process (test/support/script-runs.ts), each as `npm
 * run` starts it: one tsx start instead of one per script (each loads the SDK, exceljs and the report code).
 */
function runAll(runs: readonly { name: string; args: string[] }[]): Promise<(ScriptOutcome & { name: string })[]> {
  const tsx = join(ROOT, 'node_modules', '.bin', 'tsx');
  const argument = JSON.stringify(runs.map(({ name, args }) => ({ file: fileOf(name), args })));
  return new Promise((done, fail) => {
    execFile(tsx, ['test/support/script-runs.ts', argument], { cwd: ROOT, timeout: 120_000 }, (error, out, err) => {
      const line = out.split('\n').find((l) => l.startsWith(OUTCOMES_MARK));
      if (error !== null || line === undefined) return fail(new Error(`the script runner failed: ${err}`));
      const outcomes = JSON.parse(line.slice(OUTCOMES_MARK.length)) as ScriptOutcome[];
      done(outcomes.map((outcome, i) => ({ ...outcome, name: runs[i]!.name })));
    });
  });
}

describe('every npm run script of the repository', () => {
  it('is one of the scripts this test knows to run with tsx', () => {
    expect(OURS.map(([name]) => name).sort()).toEqual(
      ['bench', 'demo', 'discover', 'docs:glossary', 'docs:tables', 'export', 'link', 'local', 'pictures', 'preflight', 'reports', 'simulator'].sort(),
    );
  });

  // One tsx process runs all fifteen (it was one tsx per script: 33 s of a CI run, now about 6).
  it('prints its usage with --help, exits 0, leaves nothing running and changes nothing; refuses an argument it does not take, before writing anything', { timeout: 180_000 }, async () => {
    const before = trackedOutputs();
    const refusing = ['pictures', 'docs:tables', 'docs:glossary'];
    const outcomes = await runAll([
      ...OURS.map(([name]) => ({ name, args: ['--help'] })),
      ...refusing.map((name) => ({ name, args: ['--wat'] })),
    ]);
    expect(outcomes.map(({ name, args }) => `${name} ${args[0]}`)).toEqual([...OURS.map(([name]) => `${name} --help`), ...refusing.map((name) => `${name} --wat`)]);
    for (const { name, args, code, out, err, leftOpen } of outcomes) {
      if (args[0] === '--help') {
        expect(code, `${name}: ${err}`).toBe(0);
        expect(out, name).toMatch(new RegExp(`Usage|npm run ${name}`));
      } else {
        expect(code, name).toBe(2);
        expect(err, name).toContain('error: --wat is not an argument of this script (it takes none)');
      }
      expect(leftOpen, `${name} ${args[0]} would keep its process running`).toEqual([]);
    }
    expect(trackedOutputs()).toBe(before);
  });
});
