import { readFileSync } from 'node:fs';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { isMarkedSlow } from './test-tiers.js';

/** What the order needs to know of one test file: its project (and that project's group) and its tier. */
export interface OrderedFile {
  readonly project: string;
  readonly group: number;
  readonly slow: boolean;
}

/**
 * The files in the order the two workers should take them: the projects whose files are mostly
 * marked slow first, then the others, the project with the most files last. vitest's own order runs
 * the projects by name (docs, fast, slow), so on a fresh clone, with no timings cached, the slow
 * tier's minute-long files started last and one worker idled while the other finished the last of
 * them; the fast tier's many sub-second files now fill the end instead. A project's files stay
 * together (a worker is reused only for the next file of its own project, and each new worker imports
 * the SDK, exceljs and aws-cdk-lib again), and keep their order within it: the sort is stable.
 */
export function longestFirst<T extends OrderedFile>(files: readonly T[]): T[] {
  const tally = new Map<string, { files: number; slow: number }>();
  for (const file of files) {
    const seen = tally.get(file.project) ?? { files: 0, slow: 0 };
    tally.set(file.project, { files: seen.files + 1, slow: seen.slow + (file.slow ? 1 : 0) });
  }
  const slowShare = (file: T): number => {
    const seen = tally.get(file.project);
    return seen ? seen.slow / seen.files : 0;
  };
  const size = (file: T): number => tally.get(file.project)?.files ?? 0;
  return [...files].sort((a, b) => a.group - b.group || slowShare(b) - slowShare(a) || size(a) - size(b));
}

/** vitest's sequencer (timings when cached, else file size, failed files first) with the projects in the order above. */
export class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const described = sorted.map((spec) => ({
      spec,
      project: spec.project.name,
      group: spec.project.config.sequence.groupOrder,
      slow: isMarkedSlow(readFileSync(spec.moduleId, 'utf8')),
    }));
    return longestFirst(described).map(({ spec }) => spec);
  }
}
