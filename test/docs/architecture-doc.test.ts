import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
// @ts-expect-error -- the lint config is plain JavaScript without type declarations
import { importBoundaries } from '../../eslint.config.js';
import { LEDGER_KINDS } from '../../shared/core/names';

/**
 * docs/architecture.md is what a newcomer reads first, so it must say what the linter enforces: the
 * same layers, the same imports allowed, the same AWS adapters, and every folder of shared/ drawn.
 * The README's folder table, the npm scripts the documents cite and the ledger kinds of
 * docs/run-atomicity.md are held to the tree, package.json and the code the same way.
 */

interface BoundaryConfig {
  files: string[];
  ignores?: string[];
  rules: { 'no-restricted-imports': [string, { patterns: { regex?: string; message: string }[] }] };
}

const doc = readFileSync(new URL('../../docs/architecture.md', import.meta.url), 'utf8');
const configs = importBoundaries as BoundaryConfig[];
const LAYER_GLOB = /^shared\/([a-z0-9-]+)\/\*\*\/\*\.ts$/;
const layerConfigs = configs.filter((c) => LAYER_GLOB.test(c.files[0]!) && !c.ignores);
const layers = layerConfigs.map((c) => LAYER_GLOB.exec(c.files[0]!)![1]!);

/** What the linter lets each layer import: every other layer but those its "may import only" rule forbids. */
function enforced(): Record<string, string[]> {
  return Object.fromEntries(
    layerConfigs.map((c, i) => {
      const layer = layers[i]!;
      const rule = c.rules['no-restricted-imports'][1].patterns.find((p) => p.message.includes('may import only'));
      const forbidden = rule?.regex ? /\(([^()]*)\)\(\/\|\$\)$/.exec(rule.regex)![1]!.split('|') : [];
      return [layer, layers.filter((l) => l !== layer && !forbidden.includes(l)).sort()];
    }),
  );
}

/** The layer table of the document: `| \`layer\` | allowed, … |`; "everything above" is every layer listed before. */
function documented(): Record<string, string[]> {
  const rows = [...doc.matchAll(/^\| `([a-z0-9-]+)` \| ([^|]+) \|$/gm)].map((m) => [m[1]!, m[2]!.trim()] as const);
  return Object.fromEntries(
    rows.map(([layer, allowed], i) => {
      if (allowed === 'nothing else in `shared/`') return [layer, []];
      if (allowed === 'everything above') return [layer, rows.slice(0, i).map(([l]) => l).sort()];
      return [layer, allowed.split(',').map((l) => l.trim()).sort()];
    }),
  );
}

describe('docs/architecture.md', () => {
  it('lists every layer the linter knows, each with the imports the linter allows', () => {
    expect(documented()).toEqual(enforced());
  });

  it('covers every folder of shared/ as a layer, in the table and in the diagram', () => {
    const folders = readdirSync(new URL('../../shared/', import.meta.url), { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name)
      .sort();
    expect([...layers].sort()).toEqual(folders);
    const diagram = /```mermaid\n([\s\S]*?)```/.exec(doc)![1]!;
    expect(folders.filter((f) => !diagram.includes(`${f}/<br/>`))).toEqual([]);
  });

  it('names every AWS adapter the linter allows the SDK', () => {
    const adapters = configs.map((c) => c.files[0]!).filter((f) => f.startsWith('shared/') && f.endsWith('.ts') && !f.includes('*'));
    expect(adapters.length).toBeGreaterThan(0);
    const paragraph = /Only the \*\*AWS adapters\*\*[\s\S]*?\n- /.exec(doc)![0];
    expect(adapters.filter((file) => !paragraph.includes(`\`${file.replace(/^shared\//, '')}\``))).toEqual([]);
  });
});

const ROOT = new URL('../../', import.meta.url);
const read = (path: string) => readFileSync(new URL(path, ROOT), 'utf8');
const foldersOf = (path: string) =>
  readdirSync(new URL(path, ROOT), { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name);

/** Top-level folders of the project: not hidden, not ignored by git (node_modules, cdk.out, …). */
function projectFolders(): string[] {
  const ignored = read('.gitignore')
    .split('\n')
    .map((line) => line.trim().replace(/\/$/, ''))
    .filter((line) => line !== '' && !line.startsWith('#'));
  return foldersOf('').filter((name) => !name.startsWith('.') && !ignored.includes(name));
}

describe("the README's folder table", () => {
  const readme = read('README.md');
  const table = /^\| folder \| holds \|\n\|---\|---\|\n((?:\|.*\|\n)+)/m.exec(readme)?.[1] ?? '';
  const named = [...table.matchAll(/^\| `([^`]+)\/` \|/gm)].map((m) => m[1]!);

  it('names every top-level folder and every folder of shared/, and none that does not exist', () => {
    expect(named.length).toBeGreaterThan(0);
    const expected = [...projectFolders().filter((f) => f !== 'shared'), ...foldersOf('shared/').map((f) => `shared/${f}`)];
    expect([...named].sort()).toEqual(expected.sort());
  });
});

describe('npm scripts cited by the documents', () => {
  const scripts = Object.keys((JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts);
  const documents = ['README.md', 'DEVELOPERS.md', ...readdirSync(new URL('docs/', ROOT)).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];

  it('exist in package.json', () => {
    const missing = documents.flatMap((file) =>
      // Every "npm run" is followed by a script's name (or a <placeholder>): "npm run` `tsx …" is not a command.
      [...read(file).matchAll(/npm run(?:\s+([^\s`'")\]]+))?/g)]
        .map((m) => m[1])
        .filter((name) => name === undefined || (!name.startsWith('<') && !scripts.includes(name)))
        .map((name) => `${file}: npm run ${name ?? '(no script named)'}`),
    );
    expect(missing).toEqual([]);
  });
});

describe('docs/run-atomicity.md', () => {
  /** The kinds `ledgerKey(kind, …)` is called with anywhere in the runtime code. */
  function kindsInCode(): string[] {
    const files = ['shared', 'lambdas', 'cli'].flatMap((dir) =>
      readdirSync(new URL(`${dir}/`, ROOT), { recursive: true, encoding: 'utf8' })
        .filter((f) => f.endsWith('.ts'))
        .map((f) => `${dir}/${f}`),
    );
    return [...new Set(files.flatMap((f) => [...read(f).matchAll(/\bledgerKey\('([a-z-]+)'/g)].map((m) => m[1]!)))].sort();
  }

  it('lists the ledger kinds the code uses, no more and no fewer', () => {
    expect(kindsInCode()).toEqual([...LEDGER_KINDS].sort());
    const doc = read('docs/run-atomicity.md');
    const list = /The ledger holds these kinds of entries[^\n]*\n(?:[^\n]+\n)*?\n((?:- .*\n(?: {2}.*\n)*)+)/.exec(doc)?.[1] ?? '';
    const documented = [...list.matchAll(/^- `([a-z-]+)\//gm)].map((m) => m[1]!);
    expect([...documented].sort()).toEqual([...LEDGER_KINDS].sort());
  });
});

/** A module of the repository by its path, as the document names it. */
async function moduleAt(path: string): Promise<Record<string, unknown>> {
  const url = new URL(`../../${path}`, import.meta.url).href;
  return (await import(url)) as Record<string, unknown>;
}

/** A row of the "Where to add…" table by its bold name. */
function recipe(what: string): string {
  const row = new RegExp(`^\\| \\*\\*${what}\\*\\*[^|]*\\| (.+) \\|$`, 'm').exec(doc);
  if (!row) throw new Error(`docs/architecture.md has no "Where to add…" row for ${what}`);
  return row[1]!;
}

/** The lists a recipe names as "`LIST` in `shared/….ts`". */
function namedLists(text: string): { list: string; file: string }[] {
  return [...text.matchAll(/`([A-Z][A-Z_]+)` in `(shared\/[a-z/-]+\.ts)`/g)].map((m) => ({ list: m[1]!, file: m[2]! }));
}

describe('docs/architecture.md, "Where to add…" a table or a format', () => {
  it.each([
    ['a table', ['DATASETS']],
    ['a format', ['FORMATS', 'FORMAT_OUTPUTS']],
  ])('names for %s the registry lists that exist and export them', async (what, lists) => {
    const named = namedLists(recipe(what));
    expect(named.map((n) => n.list)).toEqual(lists);
    for (const { list, file } of named) {
      const module = await moduleAt(file);
      expect(module[list], `${file} exports ${list}`).toBeDefined();
    }
  });

  it('says which dataset file shows the entry, and that file exports a DatasetEntry the registry lists', async () => {
    const example = /exports its `DatasetEntry` \(see `([a-z/-]+\.ts)`/.exec(recipe('a table'))?.[1];
    expect(example).toBeDefined();
    const module = await moduleAt(`shared/report/tables/${example!}`);
    const { DATASETS } = await import('../../shared/report/tables/registry');
    expect(Object.values(module).filter((v) => DATASETS.includes(v as (typeof DATASETS)[number]))).toHaveLength(1);
  });
});
