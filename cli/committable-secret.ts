/**
 * A credentials file holds the planning API key; inside a git work tree and not ignored, one
 * `git add .` commits it. The commands that read one say so, once, before they use it.
 */
import { execFile } from 'node:child_process';
import { basename, dirname } from 'node:path';

/** git's exit status in `cwd`, or undefined when git could not run at all (not installed). */
function gitStatus(args: readonly string[], cwd: string): Promise<number | undefined> {
  return new Promise((done) => {
    execFile('git', args, { cwd, timeout: 10_000 }, (error) => {
      if (error === null) return done(0);
      done(typeof error.code === 'number' ? error.code : undefined);
    });
  });
}

/**
 * The warning for a secret file at `path` that git would commit (tracked already, or neither ignored
 * nor outside the work tree); undefined when it is safe or git is not there to ask.
 */
export async function committableSecretWarning(path: string): Promise<string | undefined> {
  const dir = dirname(path);
  const name = basename(path);
  if ((await gitStatus(['rev-parse', '--is-inside-work-tree'], dir)) !== 0) return undefined;
  if ((await gitStatus(['ls-files', '--error-unmatch', '--', name], dir)) === 0) {
    return `warning: ${path} holds the planning API key and is tracked by git: remove it from the repository (git rm --cached ${name}), add it to .gitignore, and rotate the key if it was ever pushed.\n`;
  }
  // check-ignore: 0 ignored, 1 not ignored, 128 could not tell.
  if ((await gitStatus(['check-ignore', '-q', '--', name], dir)) !== 1) return undefined;
  return `warning: ${path} holds the planning API key and sits in a git work tree without being ignored: one \`git add .\` commits it. Add ${name} to .gitignore, or keep the file outside the work tree.\n`;
}
