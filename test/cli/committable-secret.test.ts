import { execFileSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { committableSecretWarning } from '../../cli/committable-secret';
import { makeTempDir } from '../support/temp-dir';

describe('a credentials file git would commit', () => {
  const temp = makeTempDir('committable-secret');
  afterAll(() => temp.remove());
  let repos = 0;

  async function workTree(): Promise<string> {
    const dir = temp.path(`repo-${(repos += 1)}`);
    await mkdir(dir, { recursive: true });
    execFileSync('git', ['init', '-q'], { cwd: dir });
    await writeFile(join(dir, 'credentials.json'), '{"apiKey":"SECRET-KEY"}');
    return dir;
  }

  it('is warned about inside a work tree when nothing ignores it, naming the file and the fix, never the key', async () => {
    const dir = await workTree();
    const warning = await committableSecretWarning(join(dir, 'credentials.json'));
    expect(warning).toBe(
      `warning: ${join(dir, 'credentials.json')} holds the planning API key and sits in a git work tree without being ignored: ` +
        'one `git add .` commits it. Add credentials.json to .gitignore, or keep the file outside the work tree.\n',
    );
  });

  it('is not warned about once .gitignore covers it, nor outside any work tree', async () => {
    const dir = await workTree();
    await writeFile(join(dir, '.gitignore'), 'credentials.json\n');
    expect(await committableSecretWarning(join(dir, 'credentials.json'))).toBeUndefined();
    const outside = temp.path('plain');
    await mkdir(outside, { recursive: true });
    await writeFile(join(outside, 'credentials.json'), '{}');
    expect(await committableSecretWarning(join(outside, 'credentials.json'))).toBeUndefined();
  });

  it('says so when the file is tracked already, ignored or not', async () => {
    const dir = await workTree();
    execFileSync('git', ['add', 'credentials.json'], { cwd: dir });
    await writeFile(join(dir, '.gitignore'), 'credentials.json\n');
    expect(await committableSecretWarning(join(dir, 'credentials.json'))).toMatch(/holds the planning API key and is tracked by git: remove it from the repository \(git rm --cached credentials\.json\)/);
  });
});
