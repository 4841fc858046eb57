import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, posix, relative, sep } from 'node:path';

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

/** The simulator's vocabulary: the one module whose default the docs project changes (test/support/simulator-vocabulary.ts). */
const VOCABULARY_MODULE = 'simulator/vocabulary.ts';
const SIMULATOR_DIR = 'simulator/';
/**
 * A relative import that runs: a statement at a line's start (`import … from`, `export … from`, a bare
 * `import '…'`), not `import type`/`export type` (erased before the file runs), or a dynamic
 * `import('…')`. Anchored at the line's start so the import inside a string (a lint probe's source,
 * test/architecture/import-boundaries.test.ts) is not one.
 */
const IMPORT = /^\s*(?:import|export)\s+(?!type\s)[^'";]*?\bfrom\s*['"](\.{1,2}\/[^'"]+)['"]|^\s*import\s*['"](\.{1,2}\/[^'"]+)['"]|\bimport\(\s*['"](\.{1,2}\/[^'"]+)['"]/gm;
const START_SIMULATOR = /\bstartSimulator\(([^)]*)\)/g;

/** The file a relative specifier names: `x.js` and `x` are `x.ts`, a folder is its `index.ts`. */
function resolveImport(root: string, from: string, specifier: string): string | undefined {
  const base = posix.join(posix.dirname(from), specifier.replace(/\.js$/, ''));
  return [`${base}.ts`, base, `${base}/index.ts`].find((candidate) => isFile(join(root, candidate)));
}

function isFile(path: string): boolean {
  return existsSync(path) && statSync(path).isFile();
}

/** Every file `files` import, directly or not (the simulator's own files too), with its relative imports. */
function importGraph(root: string, files: readonly string[]): Map<string, string[]> {
  const importsOf = new Map<string, string[]>();
  const pending = [...files];
  for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
    if (importsOf.has(file)) continue;
    const targets = [...readFileSync(join(root, file), 'utf8').matchAll(IMPORT)]
      .map((match) => resolveImport(root, file, match[1] ?? match[2] ?? match[3] ?? ''))
      .filter((target): target is string => target !== undefined);
    importsOf.set(file, targets);
    pending.push(...targets);
  }
  return importsOf;
}

/** The files whose imports reach the vocabulary module: grown until the set stops growing, so import cycles need no care. */
function reachingVocabulary(importsOf: ReadonlyMap<string, readonly string[]>): Set<string> {
  const reaching = new Set<string>([VOCABULARY_MODULE]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const [file, targets] of importsOf) {
      if (!reaching.has(file) && targets.some((t) => reaching.has(t))) {
        reaching.add(file);
        grew = true;
      }
    }
  }
  return reaching;
}

/**
 * True when the file names the vocabulary of every simulator it starts (`startSimulator({ …,
 * vocabulary: 'contract' })`), starts one itself or through a kit file, and reaches the vocabulary
 * through no kit file (outside simulator/) that does not pin it in turn (a kit reaching it without
 * starting a simulator might use the default itself): the docs project cannot change what it sees,
 * so running it there proves nothing twice. `seen` stops an import cycle from counting as a pin.
 */
function pinsVocabulary(root: string, file: string, graph: VocabularyGraph, seen: ReadonlySet<string> = new Set()): boolean {
  const starts = [...readFileSync(join(root, file), 'utf8').matchAll(START_SIMULATOR)];
  if (!starts.every((start) => /\bvocabulary:/.test(start[1] ?? ''))) return false;
  const kits = (graph.importsOf.get(file) ?? []).filter((t) => !t.startsWith(SIMULATOR_DIR) && graph.reaching.has(t));
  const inner = new Set([...seen, file]);
  if (!kits.every((kit) => !seen.has(kit) && kit !== file && pinsVocabulary(root, kit, graph, inner))) return false;
  return starts.length > 0 || kits.length > 0;
}

interface VocabularyGraph {
  readonly importsOf: ReadonlyMap<string, readonly string[]>;
  readonly reaching: ReadonlySet<string>;
}

/**
 * The test files whose outcome the simulator's vocabulary can change, so the docs-vocabulary project
 * (vitest.config.ts) runs just these: those whose relative imports reach the vocabulary module,
 * directly or through the test kit, less those that name the vocabulary of every simulator they start.
 * A file reaching only a vocabulary-free part of the simulator (its random numbers) is not among them.
 * A file that reaches it only by spawning a command would be missed; none does today (the demo's and
 * the CLI's tests import the commands they run).
 */
export function simulatorTestFiles(root: string, files: readonly string[]): string[] {
  const importsOf = importGraph(root, files);
  const reaching = reachingVocabulary(importsOf);
  return files.filter((file) => reaching.has(file) && !pinsVocabulary(root, file, { importsOf, reaching }));
}
