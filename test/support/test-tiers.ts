import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

/**
 * The two test tiers, decided by a marker inside each file rather than by its name or folder: a
 * rename or a move cannot silently carry a minutes-long test into the tier run while editing.
 * A slow test file starts with this exact line. vitest.config.ts reads it, and
 * test/architecture/test-tiers.test.ts checks that every file doing slow work carries it.
 */
export const SLOW_MARKER = '// @tier slow';

/** Rows of the large fixtures (a 100,000-row render or export); a test file that uses them is slow. */
export const LARGE_ROWS = 100_000;

/** True when the file's first line is the slow marker. */
export function isMarkedSlow(source: string): boolean {
  return (source.split('\n', 1)[0] ?? '').trimEnd() === SLOW_MARKER;
}

/** Every `*.test.ts` under `dir`, as paths relative to `root` with forward slashes (the form vitest globs take). */
export function testFiles(root: string, dir = 'test'): string[] {
  const found: string[] = [];
  const walk = (at: string): void => {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      const path = join(at, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.test.ts')) found.push(relative(root, path).split(sep).join('/'));
    }
  };
  walk(join(root, dir));
  return found.sort();
}

/** The test files of the slow tier: those whose first line is SLOW_MARKER. */
export function slowTestFiles(root: string): string[] {
  return testFiles(root).filter((file) => isMarkedSlow(readFileSync(join(root, file), 'utf8')));
}
