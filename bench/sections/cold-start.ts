/**
 * 4. Cold start: each Lambda bundled as the CDK stack bundles it (infra/constructs/exporter-function.ts
 * BUNDLING), its size, and the time a fresh Node process takes to import it (the module scope runs:
 * config parsed from the environment, SDK clients built; no network).
 */
import { measureDefinitionsRead } from './definitions-read';
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build, type BuildOptions } from 'esbuild';
import { benchPath, TMP_DIR } from '../lib/child';
import { int, median, millis, over, progress, ratio, table, type SectionResult, type TargetCheck } from '../lib/common';

export interface ColdStartOptions {
  readonly repeat: number;
}

const REPO_ROOT = benchPath('..');
const HANDLERS = [
  { name: 'export-report', entry: 'lambdas/export-report/handler.ts' },
  { name: 'export-api', entry: 'lambdas/export-api/handler.ts' },
  { name: 'definitions-sync', entry: 'lambdas/definitions-sync/handler.ts' },
] as const;
/** 2 MB, decimal (the stricter reading). */
const MAX_BUNDLE_BYTES = 2_000_000;
const MAX_IMPORT_MS = 300;

/** Mirrors the stack's environment (infra/report-exporter-stack.ts) with made-up values: valid, offline. */
function lambdaEnv(sourceMaps: boolean): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    AWS_REGION: 'eu-west-1',
    AWS_LAMBDA_FUNCTION_NAME: 'bench-cold-start',
    AWS_LAMBDA_FUNCTION_MEMORY_SIZE: '1024',
    REPORTS_BUCKET: 'bench-reports-bucket',
    REPORTS_PREFIX: 'reports',
    PLANNING_SECRET_ID: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:planning-api-AbCdEf',
    LINK_KEY_SECRET_ID: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:link-key-AbCdEf',
    LINK_BASE_URL: 'https://abc123defg.execute-api.eu-west-1.amazonaws.com',
    EXPORT_FUNCTION_NAME: 'planning-report-exporter-ExportReport',
    EVENT_BUS_NAME: 'default',
    LEDGER_TABLE: 'planning-report-exporter-Ledger',
    API_CONCURRENCY: '8',
    API_TIMEOUT_MS: '30000',
    SECRET_MAX_AGE_SECONDS: '300',
    DEFINITIONS_BUCKET: 'bench-definitions-bucket',
    SCHEDULE_GROUP: 'planning-report-exporter-reports',
    EXPORT_FUNCTION_ARN: 'arn:aws:lambda:eu-west-1:123456789012:function:planning-report-exporter-ExportReport',
    SCHEDULER_ROLE_ARN: 'arn:aws:iam::123456789012:role/planning-report-exporter-SchedulesInvokeRole',
    SCHEDULER_DEAD_LETTER_ARN: 'arn:aws:sqs:eu-west-1:123456789012:planning-report-exporter-SchedulerDlq',
    POWERTOOLS_SERVICE_NAME: 'planning-report-exporter',
    POWERTOOLS_METRICS_NAMESPACE: 'PlanningReportExporter',
    ...(sourceMaps && { NODE_OPTIONS: '--enable-source-maps' }),
  };
}

/** esbuild options of the stack, read from the construct (falls back to a copy if infra/ cannot load). */
async function stackBuildOptions(): Promise<{ options: BuildOptions; from: string }> {
  try {
    const { BUNDLING } = await import('../../infra/constructs/exporter-function');
    return {
      from: 'BUNDLING of infra/constructs/exporter-function.ts',
      options: {
        format: String(BUNDLING.format) === 'esm' ? 'esm' : 'cjs',
        minify: BUNDLING.minify ?? false,
        sourcemap: BUNDLING.sourceMap ? 'external' : false,
        sourcesContent: BUNDLING.sourcesContent ?? true,
        target: BUNDLING.target ?? 'node22',
        ...(BUNDLING.mainFields && { mainFields: [...BUNDLING.mainFields] }),
        ...(BUNDLING.banner && { banner: { js: BUNDLING.banner } }),
        external: [...(BUNDLING.externalModules ?? [])],
        alias: aliasesOf(BUNDLING.esbuildArgs?.['--alias']),
      },
    };
  } catch (error) {
    return {
      from: `a copy of the stack's options (infra/ did not load: ${String(error).split('\n')[0]})`,
      options: {
        format: 'esm',
        minify: true,
        sourcemap: 'external',
        sourcesContent: false,
        target: 'node22',
        mainFields: ['module', 'main'],
        banner: { js: "import { createRequire } from 'module'; const require = createRequire(import.meta.url);" },
        external: [],
        alias: { 'brotli/decompress.js': join(REPO_ROOT, 'shared/render/pdf/no-woff2.ts') },
      },
    };
  }
}

/** esbuild's `alias` option from the CLI form CDK takes (`--alias:from=to`, relative to the repository root). */
function aliasesOf(args: string | boolean | string[] | undefined): Record<string, string> {
  const list = Array.isArray(args) ? args : [];
  return Object.fromEntries(list.map((a) => [a.slice(0, a.indexOf('=')), join(REPO_ROOT, a.slice(a.indexOf('=') + 1))]));
}

const kb = (bytes: number): string => `${int(bytes / 1000)} kB`;

interface ImportRun {
  importMs: number;
  processMs: number;
}

/** Imports `file` in a fresh process; the time is measured inside it, around the import only. */
function importOnce(file: string, env: Record<string, string>): Promise<ImportRun> {
  const script =
    'const t0 = performance.now(); await import(process.argv[1]); const t1 = performance.now();' +
    "process.stdout.write(JSON.stringify({ importMs: t1 - t0 }));";
  const started = performance.now();
  const child = spawn(process.execPath, ['--input-type=module', '-e', script, pathToFileURL(file).href], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
  child.stderr.setEncoding('utf8').on('data', (c: string) => (err += c));
  return new Promise((resolve, reject) => {
    child.on('close', (code) => {
      if (code !== 0) reject(new Error(`importing ${file} failed (exit ${String(code)}):\n${err.slice(-2000)}`));
      else resolve({ ...(JSON.parse(out) as { importMs: number }), processMs: performance.now() - started });
    });
  });
}

interface ImportFigures {
  importMs: number;
  processMs: number;
}

/** Medians with and without source maps; the two kinds of run alternate so that drift hits both alike. */
async function importMedians(file: string, repeat: number): Promise<{ withMaps: ImportFigures; withoutMaps: ImportFigures }> {
  const on: ImportRun[] = [];
  const off: ImportRun[] = [];
  for (let i = 0; i < repeat; i++) {
    on.push(await importOnce(file, lambdaEnv(true)));
    off.push(await importOnce(file, lambdaEnv(false)));
  }
  const figures = (runs: ImportRun[]): ImportFigures => ({
    importMs: median(runs.map((r) => r.importMs)),
    processMs: median(runs.map((r) => r.processMs)),
  });
  return { withMaps: figures(on), withoutMaps: figures(off) };
}

export async function runColdStartSection(options: ColdStartOptions): Promise<SectionResult> {
  const started = performance.now();
  const dir = join(TMP_DIR, 'cold-start');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const { options: stack, from } = await stackBuildOptions();

  // References bundled the same way: an empty handler, and a handler that only builds an S3 client.
  // Plain .mjs so that `eslint .` (which skips *.mjs) does not trip over them in .bench-tmp/.
  const references = [
    { name: 'reference: empty handler', file: join(dir, 'empty.mjs'), code: 'export const handler = async () => ({});\n' },
    {
      name: 'reference: one AWS SDK client (S3)',
      file: join(dir, 's3-only.mjs'),
      code: "import { S3Client } from '@aws-sdk/client-s3';\nconst s3 = new S3Client({});\nexport const handler = async () => s3.config.region();\n",
    },
  ];
  for (const r of references) writeFileSync(r.file, r.code);
  const targetsToBuild = [
    ...HANDLERS.map((h) => ({ name: h.name, entry: join(REPO_ROOT, h.entry), handler: true })),
    ...references.map((r) => ({ name: r.name, entry: r.file, handler: false })),
  ];

  interface Built {
    name: string;
    handler: boolean;
    bytes: number;
    gzipBytes: number;
    mapBytes: number;
    withMaps: ImportFigures;
    withoutMaps: ImportFigures;
  }
  const built: Built[] = [];
  for (const [i, t] of targetsToBuild.entries()) {
    progress(`cold start: bundling ${t.name}`);
    const outfile = join(dir, `bundle-${i}`, 'index.mjs');
    await build({
      ...stack,
      entryPoints: [t.entry],
      outfile,
      bundle: true,
      platform: 'node',
      // The reference files live in .bench-tmp/: resolve packages from the repository.
      nodePaths: [join(REPO_ROOT, 'node_modules')],
      logLevel: 'error',
    });
    const code = readFileSync(outfile);
    let mapBytes = 0;
    try {
      mapBytes = statSync(`${outfile}.map`).size;
    } catch {
      // no source map
    }
    progress(`cold start: importing ${t.name} (${options.repeat}× with and without --enable-source-maps)`);
    built.push({
      name: t.name,
      handler: t.handler,
      bytes: code.length,
      gzipBytes: gzipSync(code).length,
      mapBytes,
      ...(await importMedians(outfile, options.repeat)),
    });
  }

  const s3Only = built.find((b) => b.name.includes('S3'))!;
  const rows = built.map((b) => [
    b.handler ? `\`${b.name}\`` : b.name,
    kb(b.bytes),
    kb(b.gzipBytes),
    kb(b.mapBytes),
    millis(b.withMaps.importMs),
    ratio(b.withMaps.importMs / s3Only.withMaps.importMs),
    millis(b.withoutMaps.importMs),
    millis(b.withMaps.processMs),
  ]);
  const handlers = built.filter((b) => b.handler);
  progress('cold start: reading a definition among 500');
  const definitions = await measureDefinitionsRead(options.repeat);
  const targets: TargetCheck[] = [
    {
      target: 'Cold start: handler bundle < 2 MB minified',
      measured: handlers.map((h) => `${h.name} ${kb(h.bytes)}`).join(', '),
      met: handlers.every((h) => h.bytes < MAX_BUNDLE_BYTES),
      gap: over(Math.max(...handlers.map((h) => h.bytes)), MAX_BUNDLE_BYTES),
    },
    {
      target: 'Cold start: handler import < 300 ms',
      measured: handlers
        .map((h) => `${h.name} ${millis(h.withMaps.importMs)} (${millis(h.withoutMaps.importMs)} without source maps)`)
        .join(', '),
      met: handlers.every((h) => h.withMaps.importMs < MAX_IMPORT_MS),
      gap: over(Math.max(...handlers.map((h) => h.withMaps.importMs)), MAX_IMPORT_MS),
    },
  ];
  const markdown = [
    `Bundled with esbuild using ${from} (ESM, minified, target ${String(stack.target)}, platform node, everything bundled ` +
      `including @aws-sdk, external source map without sources content), plus \`bundle: true, platform: 'node'\` as ` +
      `NodejsFunction adds. Import time: \`await import()\` of the bundle timed inside a fresh \`node\` process, median of ` +
      `${options.repeat}, with the stack's environment (made-up buckets, secret ids, ARNs and API URL; definitions are read ` +
      `per run from the definitions bucket, measured below), so the module scope runs fully: config parsed, SDK clients and Powertools built, no ` +
      `network. The Lambdas run with \`NODE_OPTIONS=--enable-source-maps\` (set by the stack), which makes Node read and parse ` +
      `the source map while importing, so that is the headline figure; without it for comparison. Node here is ` +
      `${process.version}; Lambda runs Node 22.`,
    '',
    table(
      ['bundle', 'size', 'gzipped', 'source map', 'import (source maps on)', '÷ S3-client reference', 'import (source maps off)', 'whole process (spawn → exit)'],
      rows,
    ),
    '',
    'Sizes in kB of 1,000 bytes; the target reads 2 MB as 2,000,000 bytes.',
    '',
    definitions.markdown,
  ].join('\n');
  targets.push(...definitions.targets);
  return { id: 'cold', title: '4. Cold start', markdown, targets, durationMs: performance.now() - started };
}
