// @tier slow
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { deflateRawSync } from 'node:zlib';
import { build } from 'esbuild';
import { beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../infra/config';
import { esbuildOptions, PDF_FONTS, type FolderBesideBundle } from '../../infra/constructs/exporter-function';

/**
 * docs/deploy.md ("Bundles") states what each Lambda deploys: its bundle, source map, the files beside
 * it and the zip. Each function is bundled here as the stack bundles it (esbuildOptions), so a table
 * that drifts more than TOLERANCE from this tree fails with the figures to write instead.
 */

const doc = readFileSync(new URL('../../docs/deploy.md', import.meta.url), 'utf8');
/** A rounded figure in a document is right within 5 % (or 0.02 MB, for the small ones). */
const TOLERANCE = 0.05;
const MB = 1_000_000;

/** What each function's bundling copies beside its bundle, as infra/report-exporter-stack.ts gives it (the stack test checks the asset). */
const BESIDE: Readonly<Record<string, readonly FolderBesideBundle[]>> = { 'export-report': [PDF_FONTS] };
/** The renderers and what they import: only the export function writes files for people. */
const RENDERERS = /node_modules\/(exceljs|archiver|pdfkit|fontkit|hyparquet-writer)\/|shared\/render\/(xlsx|pdf|parquet)\//;

interface Measured {
  readonly code: number;
  readonly map: number;
  readonly beside: number;
  readonly zip: number;
  readonly inputs: readonly string[];
}

/** The files of a folder, recursively, with their contents. */
function filesIn(dir: string): Buffer[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => readFileSync(join(entry.parentPath, entry.name)));
}

async function measure(name: string): Promise<Measured> {
  const result = await build({
    ...esbuildOptions(REPO_ROOT),
    entryPoints: [join(REPO_ROOT, 'lambdas', name, 'handler.ts')],
    outfile: join(REPO_ROOT, '.bundle-sizes', name, 'index.mjs'),
    write: false,
    metafile: true,
    logLevel: 'error',
  });
  const code = result.outputFiles.find((f) => f.path.endsWith('index.mjs'))!.contents;
  const map = result.outputFiles.find((f) => f.path.endsWith('index.mjs.map'))!.contents;
  const beside = (BESIDE[name] ?? []).flatMap((f) => filesIn(join(REPO_ROOT, f.from)));
  // The asset's zip, deflated at level 9 as the CDK's asset publishing zips it (its headers are a few bytes a file).
  const zip = [code, map, ...beside].reduce((sum, bytes) => sum + deflateRawSync(bytes, { level: 9 }).length, 0);
  const output = Object.values(result.metafile.outputs).find((o) => o.entryPoint !== undefined)!;
  return { code: code.length, map: map.length, beside: beside.reduce((sum, b) => sum + b.length, 0), zip, inputs: Object.keys(output.inputs) };
}

/** The Bundles table: `| name | 2.29 MB | 3.31 MB | fonts/ 0.42 MB | 1.41 MB |`, "–" for nothing beside. */
function documented(): Map<string, { code: number; map: number; beside: number; zip: number }> {
  const rows = [...doc.matchAll(/^\| `([a-z-]+)` \| ([\d.]+) MB \| ([\d.]+) MB \| (?:[a-z]+\/ ([\d.]+) MB|–) \| ([\d.]+) MB \|$/gm)];
  return new Map(rows.map((m) => [m[1]!, { code: Number(m[2]) * MB, map: Number(m[3]) * MB, beside: Number(m[4] ?? 0) * MB, zip: Number(m[5]) * MB }]));
}

const within = (stated: number, measured: number) => Math.abs(stated - measured) <= Math.max(TOLERANCE * measured, 0.02 * MB);
const mb = (bytes: number) => `${(bytes / MB).toFixed(2)} MB`;

describe('docs/deploy.md, the Lambdas\' bundles', () => {
  const functions = readdirSync(join(REPO_ROOT, 'lambdas'), { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && readdirSync(join(REPO_ROOT, 'lambdas', entry.name)).includes('handler.ts'))
    .map((entry) => entry.name)
    .sort();
  const measured = new Map<string, Measured>();
  beforeAll(async () => {
    for (const name of functions) measured.set(name, await measure(name));
  }, 240_000);

  it('lists every function, each with the sizes of this tree', () => {
    const table = documented();
    const row = (name: string, m: Measured) => `| \`${name}\` | ${mb(m.code)} | ${mb(m.map)} | ${m.beside > 0 ? `fonts/ ${mb(m.beside)}` : '–'} | ${mb(m.zip)} |`;
    const right = (name: string, m: Measured) => {
      const stated = table.get(name);
      return stated !== undefined && within(stated.code, m.code) && within(stated.map, m.map) && within(stated.beside, m.beside) && within(stated.zip, m.zip);
    };
    const allRight = table.size === functions.length && functions.every((name) => right(name, measured.get(name)!));
    expect(allRight, `docs/deploy.md "Bundles" should read:\n${functions.map((name) => row(name, measured.get(name)!)).join('\n')}\n`).toBe(true);
  });

  it('bundles a renderer into the export function alone', () => {
    for (const name of functions.filter((n) => n !== 'export-report')) {
      expect(measured.get(name)!.inputs.filter((input) => RENDERERS.test(input)), `${name} bundles a renderer`).toEqual([]);
    }
    expect(measured.get('export-report')!.inputs.some((input) => RENDERERS.test(input))).toBe(true);
  });
});
