// @tier slow
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { deflateRawSync } from 'node:zlib';
import { functionBundle } from '../support/function-bundles';
import { beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../infra/config';
import { PDF_FONTS, type FolderBesideBundle } from '../../infra/constructs/exporter-function';

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
  /** index.mjs: what a cold start imports. */
  readonly code: number;
  /** The chunks beside it, imported when first needed (the renderers). */
  readonly later: number;
  /** Every source map. */
  readonly maps: number;
  readonly beside: number;
  readonly zip: number;
  /** What index.mjs holds, and what the whole bundle holds. */
  readonly entryInputs: readonly string[];
  readonly inputs: readonly string[];
}

/** The files of a folder, recursively, with their contents. */
function filesIn(dir: string): Buffer[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => readFileSync(join(entry.parentPath, entry.name)));
}

async function measure(name: string): Promise<Measured> {
  const { metafile, outputs: files } = await functionBundle(name);
  const result = { metafile, outputFiles: [...files].map(([path, contents]) => ({ path: `/${path}`, contents })) };
  const sizeOf = (of: readonly { contents: Uint8Array }[]) => of.reduce((sum, f) => sum + f.contents.length, 0);
  const entry = result.outputFiles.filter((f) => f.path.endsWith('/index.mjs'));
  const chunks = result.outputFiles.filter((f) => f.path.endsWith('.mjs') && !f.path.endsWith('/index.mjs'));
  const maps = result.outputFiles.filter((f) => f.path.endsWith('.map'));
  const beside = (BESIDE[name] ?? []).flatMap((f) => filesIn(join(REPO_ROOT, f.from)));
  // The asset's zip, deflated at level 9 as the CDK's asset publishing zips it (its headers are a few bytes a file).
  const zip = [...result.outputFiles.map((f) => f.contents), ...beside].reduce((sum, bytes) => sum + deflateRawSync(bytes, { level: 9 }).length, 0);
  const outputs = Object.values(result.metafile.outputs);
  const entryOutput = outputs.find((o) => o.entryPoint !== undefined)!;
  return {
    code: sizeOf(entry),
    later: sizeOf(chunks),
    maps: sizeOf(maps),
    beside: beside.reduce((sum, b) => sum + b.length, 0),
    zip,
    entryInputs: Object.keys(entryOutput.inputs),
    inputs: outputs.flatMap((o) => Object.keys(o.inputs)),
  };
}

/** The Bundles table: `| name | 1.00 MB | 0.80 MB | 2.70 MB | fonts/ 0.42 MB | 1.52 MB |`, "–" for nothing. */
function documented(): Map<string, { code: number; later: number; maps: number; beside: number; zip: number }> {
  const figure = (text: string | undefined) => (text === undefined ? 0 : Number(text) * MB);
  const rows = [...doc.matchAll(/^\| `([a-z-]+)` \| ([\d.]+) MB \| (?:([\d.]+) MB|–) \| ([\d.]+) MB \| (?:[a-z]+\/ ([\d.]+) MB|–) \| ([\d.]+) MB \|$/gm)];
  return new Map(rows.map((m) => [m[1]!, { code: figure(m[2]), later: figure(m[3]), maps: figure(m[4]), beside: figure(m[5]), zip: figure(m[6]) }]));
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
    const row = (name: string, m: Measured) =>
      `| \`${name}\` | ${mb(m.code)} | ${m.later > 0 ? mb(m.later) : '–'} | ${mb(m.maps)} | ${m.beside > 0 ? `fonts/ ${mb(m.beside)}` : '–'} | ${mb(m.zip)} |`;
    const right = (name: string, m: Measured) => {
      const stated = table.get(name);
      return stated !== undefined && (['code', 'later', 'maps', 'beside', 'zip'] as const).every((key) => within(stated[key], m[key]));
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

  it('leaves the renderers out of what the export function imports at a cold start: each is a chunk loaded when a run first writes its format', () => {
    expect(measured.get('export-report')!.entryInputs.filter((input) => RENDERERS.test(input))).toEqual([]);
  });

  it('leaves the Lambda client out of what the export API imports at a cold start: only starting an export loads it', () => {
    const lambdaClient = (input: string) => input.includes('node_modules/@aws-sdk/client-lambda/');
    expect(measured.get('export-api')!.entryInputs.filter(lambdaClient)).toEqual([]);
    expect(measured.get('export-api')!.inputs.some(lambdaClient)).toBe(true);
  });
});
