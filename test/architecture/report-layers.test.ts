import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * shared/report/ in layers (docs/architecture.md): the linter refuses an import of an upper layer
 * (eslint.config.js, REPORT_LAYERS); this keeps what a linter cannot see: no two sub-folders import
 * each other with values, and no import circle among its files (type imports included).
 */
const REPORT = 'shared/report';

interface Import {
  readonly from: string;
  readonly to: string;
  readonly typeOnly: boolean;
}

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? tsFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));
}

function importsOf(file: string, known: ReadonlySet<string>): Import[] {
  const source = readFileSync(file, 'utf8');
  const found: Import[] = [];
  for (const m of source.matchAll(/^(?:import|export)\s+(type\s+)?([^'";]*?)\s*from\s*'(\.[^']+)'/gms)) {
    const target = normalize(join(dirname(file), m[3]!)).replace(/\.js$/, '');
    const to = [`${target}.ts`, join(target, 'index.ts')].find((candidate) => known.has(candidate));
    if (!to) continue;
    const names = m[2]!;
    const typeOnly = m[1] !== undefined || /^\{\s*(type\s+\w+(\s+as\s+\w+)?\s*,?\s*)+\}$/.test(names);
    found.push({ from: file, to, typeOnly });
  }
  return found;
}

/** A file's room: its sub-folder of shared/report, or its own name for the loose files (names.ts, registry.ts). */
const roomOf = (file: string) => relative(REPORT, file).split('/')[0]!.replace(/\.ts$/, '');

function reportImports(): Import[] {
  const files = tsFiles(REPORT);
  const known = new Set(files);
  return files.flatMap((f) => importsOf(f, known));
}

function circles(imports: readonly Import[]): string[][] {
  const next = new Map<string, string[]>();
  for (const i of imports) next.set(i.from, [...(next.get(i.from) ?? []), i.to]);
  const found: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const walk = (file: string, path: string[]): void => {
    state.set(file, 'open');
    for (const to of next.get(file) ?? []) {
      if (state.get(to) === 'open') found.push([...path.slice(path.indexOf(to)), to]);
      else if (!state.has(to)) walk(to, [...path, to]);
    }
    state.set(file, 'done');
  };
  for (const file of next.keys()) if (!state.has(file)) walk(file, [file]);
  return found;
}

describe('shared/report in layers', () => {
  const imports = reportImports();

  it('reads the imports of the report folder (the check below has something to check)', () => {
    expect(imports.length).toBeGreaterThan(100);
    expect(imports.some((i) => i.typeOnly)).toBe(true);
  });

  it('has no two sub-folders importing each other with values', () => {
    const valuePairs = new Set(imports.filter((i) => !i.typeOnly && roomOf(i.from) !== roomOf(i.to)).map((i) => `${roomOf(i.from)} -> ${roomOf(i.to)}`));
    const twoWay = [...valuePairs].filter((pair) => valuePairs.has(pair.split(' -> ').reverse().join(' -> ')));
    expect(twoWay).toEqual([]);
  });

  it('has no import circle among its files, type imports included', () => {
    expect(circles(imports)).toEqual([]);
  });

  it('finds a circle and a two-way pair when there is one (the checks can fail)', () => {
    const probe: Import[] = [
      { from: `${REPORT}/dataset/a.ts`, to: `${REPORT}/tables/b.ts`, typeOnly: true },
      { from: `${REPORT}/tables/b.ts`, to: `${REPORT}/dataset/a.ts`, typeOnly: false },
    ];
    expect(circles(probe)).toEqual([[`${REPORT}/dataset/a.ts`, `${REPORT}/tables/b.ts`, `${REPORT}/dataset/a.ts`]]);
  });
});
