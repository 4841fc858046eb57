import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import config from '../../vitest.config';
import { isMarkedSlow, simulatorTestFiles, SLOW_MARKER, slowTestFiles, testFiles } from '../support/test-tiers';

/**
 * The tier of a test file is its first line, so these checks keep the marker honest: work that
 * takes minutes of CPU must carry it, wherever the file lives and whatever it is called.
 */

const ROOT = process.cwd();
const source = (file: string) => readFileSync(join(ROOT, file), 'utf8');

/** What makes a test file slow, each recognised from its source. */
const SLOW_WORK: readonly { readonly what: string; readonly sign: (text: string, file: string) => boolean }[] = [
  { what: 'uses the large fixtures (LARGE_ROWS)', sign: (text) => /import {[^}]*\bLARGE_ROWS\b[^}]*} from '[./]+\/support\/test-tiers'/.test(text) },
  { what: 'starts the Lambda harness', sign: (text) => /from '[./]+\/support\/lambda-harness'/.test(text) },
  { what: 'drives a browser', sign: (text) => /from '[./]+\/support\/browser'/.test(text) },
  { what: 'prints with LibreOffice (soffice)', sign: (text) => /['"]soffice['"]/.test(text) },
  {
    what: 'synthesises the CDK stack',
    sign: (text, file) => /from '(aws-cdk-lib|cdk-nag)[^']*'/.test(text) || (file.startsWith('test/infra/') && /from '\.\/support'/.test(text)),
  },
];

describe('test tiers', () => {
  it('marks every test file doing slow work as slow, whatever its name or folder', () => {
    const unmarked = testFiles(ROOT).flatMap((file) => {
      const text = source(file);
      if (isMarkedSlow(text)) return [];
      return SLOW_WORK.filter((w) => w.sign(text, file)).map((w) => `${file} ${w.what} but does not start with "${SLOW_MARKER}"`);
    });
    expect(unmarked).toEqual([]);
  });

  it('recognises the marker on the first line only, and no other tier', () => {
    const misplaced = testFiles(ROOT).filter((file) => {
      const lines = source(file).split('\n');
      return lines.some((line, i) => /^\s*\/\/\s*@tier\b/.test(line) && !(i === 0 && line.trimEnd() === SLOW_MARKER));
    });
    expect(misplaced).toEqual([]);
    expect(isMarkedSlow(`${SLOW_MARKER}\nimport x from 'y';`)).toBe(true);
    expect(isMarkedSlow(`import x from 'y';\n${SLOW_MARKER}\n`)).toBe(false);
    expect(isMarkedSlow('// @tier slowish\n')).toBe(false);
  });

  it('gives vitest exactly the marked files as the slow tier and excludes them from the fast one', () => {
    const projects = (config.test?.projects ?? []) as { test: { name: string; include?: string[]; exclude?: string[] } }[];
    const fast = projects.find((p) => p.test.name === 'fast')!;
    const slow = projects.find((p) => p.test.name === 'slow')!;
    const marked = slowTestFiles(ROOT);
    expect(slow.test.include).toEqual(marked);
    expect(fast.test.exclude).toEqual(marked);
    // The 100,000-row render once ran in the fast tier after a rename its file-name pattern missed.
    expect(marked).toContain('test/shared/render/xlsx/workbook-large.test.ts');
  });

  it('runs the fast tests that reach the simulator, and only those, again against the docs vocabulary', () => {
    const projects = (config.test?.projects ?? []) as { test: { name: string; include?: string[]; env?: Record<string, string> } }[];
    const docs = projects.find((p) => p.test.name === 'docs')!;
    expect(docs.test.env).toEqual({ SIMULATOR_VOCABULARY: 'docs' });
    const marked = new Set(slowTestFiles(ROOT));
    const fast = testFiles(ROOT).filter((file) => !marked.has(file));
    expect(docs.test.include).toEqual(simulatorTestFiles(ROOT, fast));
    // Directly, through the test kit (local-job → simulator), and not at all (a pure unit test).
    expect(docs.test.include).toContain('test/simulator/tenant.test.ts');
    expect(docs.test.include).toContain('test/shared/report/run/run-export.test.ts');
    expect(docs.test.include).not.toContain('test/architecture/test-tiers.test.ts');
    expect(docs.test.include).not.toContain('test/shared/core/retry/retry.test.ts');
    // Reaching only the simulator's random numbers, and naming the vocabulary of every simulator started:
    // the docs project could not change what either sees (the second once cost CI half a minute there).
    expect(docs.test.include).not.toContain('test/shared/report/changes/keys/spilled-key-prints.test.ts');
    expect(docs.test.include).not.toContain('test/shared/report/changes/changes-export.test.ts');
    expect(docs.test.include).not.toContain('test/simulator/vocabulary.test.ts');
    // Through a kit (support/fleet.ts) that names the vocabulary of every simulator it starts.
    expect(docs.test.include).not.toContain('test/shared/job/fleet.test.ts');
    // Naming the simulator only inside a string (a lint probe's source): no import of it runs.
    expect(docs.test.include).not.toContain('test/architecture/import-boundaries.test.ts');
    // Naming the vocabulary of some of its simulators, not all: the others speak the project's.
    expect(docs.test.include).toContain('test/shared/planning-api/client.simulator.test.ts');
  });
});
