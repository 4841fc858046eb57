import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const GUIDES = ['README.md', 'docs/deploy.md'];

/**
 * The files the guides have a user write into the clone's root: `--write x.json`, `--outputs-file
 * x.json`, `> x.json`, "Write them to `x.json`", and the answer file of `aws lambda invoke … x.json`.
 * They hold the API key, the stack's names or a copy of the link keys, so none may be one `git add .`
 * away from a commit.
 */
function filesTheGuidesCreate(): string[] {
  const found = new Set<string>();
  const patterns = [
    /--write ([\w.-]+\.json)/g,
    /--outputs-file ([\w.-]+\.json)/g,
    /> ([\w.-]+\.json)/g,
    /Write them to `([\w.-]+\.json)`/g,
    /--payload '[^']*' ([\w.-]+\.json)/g,
  ];
  for (const guide of GUIDES) {
    const text = readFileSync(`${ROOT}${guide}`, 'utf8');
    for (const pattern of patterns) for (const match of text.matchAll(pattern)) found.add(match[1]!);
  }
  return [...found].sort();
}

function ignored(names: readonly string[]): string[] {
  try {
    return execFileSync('git', ['check-ignore', '--no-index', '--', ...names], { cwd: ROOT, encoding: 'utf8' }).split('\n').filter(Boolean);
  } catch (error) {
    // Exit 1: none of them is ignored.
    if ((error as { status?: number }).status === 1) return [];
    throw error;
  }
}

describe('what a user creates following the guides', () => {
  it('is found in the guides: the credentials, the starter report and the stack outputs at least', () => {
    expect(filesTheGuidesCreate()).toEqual(expect.arrayContaining(['cdk-outputs.json', 'credentials.json', 'report.json']));
  });

  it('is ignored by git in the clone, so `git add .` cannot commit a key', () => {
    const names = filesTheGuidesCreate();
    expect(ignored(names).sort()).toEqual(names);
  });

  it('is ignored in the root only: no file the repository tracks is ignored', () => {
    expect(execFileSync('git', ['ls-files', '--cached', '--ignored', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8' })).toBe('');
  });
});
