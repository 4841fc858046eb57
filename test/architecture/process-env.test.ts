import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { testFiles } from '../support/test-tiers';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

describe('the process environment in tests', () => {
  it('is restored in place, never replaced by a copy (test files share a worker: a copy cuts process.env off the real environment for every later file)', () => {
    const replacing = testFiles(ROOT).filter((file) => /process\.env\s*=[^=]/.test(readFileSync(`${ROOT}${file}`, 'utf8')));
    expect(replacing).toEqual([]);
  });
});
