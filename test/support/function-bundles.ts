import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { build, type Metafile } from 'esbuild';
import { REPO_ROOT } from '../../infra/config';
import { esbuildOptions } from '../../infra/constructs/exporter-function';

/**
 * Each Lambda's bundle, built the way the stack builds it (esbuildOptions of BUNDLING), once for the
 * whole suite: the bundle tests (test/infra/bundle-stubs.test.ts, test/docs/deploy-bundles.test.ts)
 * read its outputs and metafile. A build is kept in node_modules/.cache with the sha-256 of every
 * input esbuild read; a later test, in this worker or another, reuses it while none of those inputs
 * changed, and builds again when one did.
 */
export interface FunctionBundle {
  readonly metafile: Metafile;
  /** Every output file, by its path relative to the bundle's folder (`index.mjs`, `chunk-….mjs`, maps). */
  readonly outputs: ReadonlyMap<string, Uint8Array>;
}

const CACHE = join(REPO_ROOT, 'node_modules', '.cache', 'function-bundles');
const OUTDIR = join(REPO_ROOT, '.function-bundles');

const building = new Map<string, Promise<FunctionBundle>>();

export function functionBundle(name: string): Promise<FunctionBundle> {
  let bundle = building.get(name);
  if (!bundle) {
    bundle = cached(name) ?? built(name);
    building.set(name, bundle);
  }
  return bundle;
}

function sha256(path: string): string {
  return createHash('sha256').update(readFileSync(join(REPO_ROOT, path))).digest('hex');
}

interface Stored {
  readonly inputs: Readonly<Record<string, string>>;
  readonly metafile: Metafile;
  readonly outputs: Readonly<Record<string, string>>;
}

function cached(name: string): Promise<FunctionBundle> | undefined {
  const file = join(CACHE, `${name}.json`);
  if (!existsSync(file)) return undefined;
  const stored = JSON.parse(readFileSync(file, 'utf8')) as Stored;
  const unchanged = Object.entries(stored.inputs).every(([path, hash]) => existsSync(join(REPO_ROOT, path)) && sha256(path) === hash);
  if (!unchanged) return undefined;
  const outputs = new Map(Object.entries(stored.outputs).map(([path, base64]) => [path, new Uint8Array(Buffer.from(base64, 'base64'))]));
  return Promise.resolve({ metafile: stored.metafile, outputs });
}

async function built(name: string): Promise<FunctionBundle> {
  const outdir = join(OUTDIR, name);
  const result = await build({
    ...esbuildOptions(REPO_ROOT),
    entryPoints: [join(REPO_ROOT, 'lambdas', name, 'handler.ts')],
    outdir,
    write: false,
    metafile: true,
    logLevel: 'error',
  });
  const outputs = new Map(result.outputFiles.map((f) => [f.path.slice(outdir.length + 1), f.contents]));
  const inputs = Object.fromEntries(Object.keys(result.metafile.inputs).filter((path) => !path.includes(':')).map((path) => [path, sha256(path)]));
  mkdirSync(CACHE, { recursive: true });
  const stored: Stored = { inputs, metafile: result.metafile, outputs: Object.fromEntries([...outputs].map(([path, bytes]) => [path, Buffer.from(bytes).toString('base64')])) };
  writeFileSync(join(CACHE, `${name}.json`), JSON.stringify(stored));
  return { metafile: result.metafile, outputs };
}
