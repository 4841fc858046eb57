/**
 * 4. Cold start: each Lambda bundled as the CDK stack bundles it (infra/constructs/exporter-function.ts
 * bundleFunction, as its bundling does), with the folders its bundling copies beside it, its size, and the
 * time a fresh Node process takes to import it (the module scope runs: config parsed from the
 * environment, SDK clients built; no network).
 */
import { measureDefinitionsRead } from './definitions-read';
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { BUNDLING, bundleFunction, PDF_FONTS, type FolderBesideBundle } from '../../infra/constructs/exporter-function';
import { benchPath, TMP_DIR } from '../lib/child';
import { int, median, millis, over, progress, ratio, table, type SectionResult, type TargetCheck } from '../lib/common';

export interface ColdStartOptions {
  readonly repeat: number;
}

const REPO_ROOT = benchPath('..');

/** A handler with its limits: `strict` reads them as "below", otherwise "at most". */
interface Handler {
  readonly name: string;
  readonly entry: string;
  /** Bundle size, decimal bytes (2 MB = 2,000,000: the stricter reading). */
  readonly maxBytes: number;
  /** Import with source maps on. */
  readonly maxImportMs: number;
  readonly strict: boolean;
  /** What its bundling copies beside it (infra/report-exporter-stack.ts). */
  readonly besideBundle: readonly FolderBesideBundle[];
}

const HANDLERS: readonly Handler[] = [
  { name: 'export-report', entry: 'lambdas/export-report/handler.ts', maxBytes: 2_000_000, maxImportMs: 300, strict: true, besideBundle: [PDF_FONTS] },
  // It answers people clicking a link, through API Gateway (29 s at most): it renders nothing.
  { name: 'export-api', entry: 'lambdas/export-api/handler.ts', maxBytes: 1_200_000, maxImportMs: 200, strict: false, besideBundle: [] },
  { name: 'definitions-sync', entry: 'lambdas/definitions-sync/handler.ts', maxBytes: 2_000_000, maxImportMs: 300, strict: true, besideBundle: [] },
  { name: 'mail-events', entry: 'lambdas/mail-events/handler.ts', maxBytes: 2_000_000, maxImportMs: 300, strict: true, besideBundle: [] },
];

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
    SCHEDULE_TARGET_ARN: 'arn:aws:sqs:eu-west-1:123456789012:planning-report-exporter-ScheduledRuns',
    SCHEDULER_ROLE_ARN: 'arn:aws:iam::123456789012:role/planning-report-exporter-SchedulesInvokeRole',
    SCHEDULER_DEAD_LETTER_ARN: 'arn:aws:sqs:eu-west-1:123456789012:planning-report-exporter-SchedulerDlq',
    POWERTOOLS_SERVICE_NAME: 'planning-report-exporter',
    POWERTOOLS_METRICS_NAMESPACE: 'PlanningReportExporter',
    ...(sourceMaps && { NODE_OPTIONS: '--enable-source-maps' }),
  };
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

/** The size of a folder's files, recursively. */
function folderBytes(dir: string): number {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).reduce((sum, f) => {
    const stat = statSync(join(dir, f));
    return sum + (stat.isFile() ? stat.size : 0);
  }, 0);
}

/** A handler's two targets: its bundle's size and its import time with source maps on. */
function handlerTargets(h: Handler, b: { bytes: number; withMaps: ImportFigures; withoutMaps: ImportFigures }): TargetCheck[] {
  const below = h.strict ? '<' : '≤';
  const within = (value: number, limit: number) => (h.strict ? value < limit : value <= limit);
  return [
    {
      target: `Cold start: ${h.name} bundle ${below} ${h.maxBytes / 1e6} MB minified`,
      measured: kb(b.bytes),
      met: within(b.bytes, h.maxBytes),
      gap: over(b.bytes, h.maxBytes),
    },
    {
      target: `Cold start: ${h.name} import ${below} ${h.maxImportMs} ms`,
      measured: `${millis(b.withMaps.importMs)} (${millis(b.withoutMaps.importMs)} without source maps)`,
      met: within(b.withMaps.importMs, h.maxImportMs),
      gap: over(b.withMaps.importMs, h.maxImportMs),
    },
  ];
}

export async function runColdStartSection(options: ColdStartOptions): Promise<SectionResult> {
  const started = performance.now();
  const dir = join(TMP_DIR, 'cold-start');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });

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
    ...HANDLERS.map((h) => ({ name: h.name, entry: join(REPO_ROOT, h.entry), handler: h })),
    ...references.map((r) => ({ name: r.name, entry: r.file, handler: undefined })),
  ];

  interface Built {
    name: string;
    handler: Handler | undefined;
    /** index.mjs and the chunks beside it: all the code the function deploys. */
    bytes: number;
    /** index.mjs alone: what a cold start imports. */
    entryBytes: number;
    besideBytes: number;
    gzipBytes: number;
    mapBytes: number;
    withMaps: ImportFigures;
    withoutMaps: ImportFigures;
  }
  const built: Built[] = [];
  for (const [i, t] of targetsToBuild.entries()) {
    progress(`cold start: bundling ${t.name}`);
    const outdir = join(dir, `bundle-${i}`);
    // As the stack's bundling does it; the references in .bench-tmp/ resolve packages from the repository above it.
    bundleFunction(REPO_ROOT, t.entry, outdir, t.handler?.besideBundle ?? []);
    const files = readdirSync(outdir).filter((f) => statSync(join(outdir, f)).isFile());
    const code = files.filter((f) => f.endsWith('.mjs')).map((f) => readFileSync(join(outdir, f)));
    const entry = join(outdir, 'index.mjs');
    progress(`cold start: importing ${t.name} (${options.repeat}× with and without --enable-source-maps)`);
    built.push({
      name: t.name,
      handler: t.handler,
      bytes: code.reduce((sum, c) => sum + c.length, 0),
      entryBytes: statSync(entry).size,
      besideBytes: (t.handler?.besideBundle ?? []).reduce((sum, f) => sum + folderBytes(join(outdir, f.to)), 0),
      gzipBytes: code.reduce((sum, c) => sum + gzipSync(c).length, 0),
      mapBytes: files.filter((f) => f.endsWith('.map')).reduce((sum, f) => sum + statSync(join(outdir, f)).size, 0),
      ...(await importMedians(entry, options.repeat)),
    });
  }

  const s3Only = built.find((b) => b.name.includes('S3'))!;
  const rows = built.map((b) => [
    b.handler ? `\`${b.name}\`` : b.name,
    kb(b.bytes),
    kb(b.entryBytes),
    b.besideBytes > 0 ? kb(b.besideBytes) : '–',
    kb(b.gzipBytes),
    kb(b.mapBytes),
    millis(b.withMaps.importMs),
    ratio(b.withMaps.importMs / s3Only.withMaps.importMs),
    millis(b.withoutMaps.importMs),
    millis(b.withMaps.processMs),
  ]);
  progress('cold start: reading a definition among 500');
  const definitions = await measureDefinitionsRead(options.repeat);
  const targets = built.flatMap((b) => (b.handler ? handlerTargets(b.handler, b) : []));
  const markdown = [
    `Bundled by \`bundleFunction\` of infra/constructs/exporter-function.ts, as the stack bundles each function ` +
      `(ESM, minified without keepNames, target ${BUNDLING.target}, platform node, everything bundled ` +
      `including @aws-sdk, linked source maps without sources content, split: what the code loads with \`import()\`, the ` +
      `renderers above all, is a chunk beside index.mjs, read when first imported), with the folders the function's bundling ` +
      `copies beside it (the export function's PDF fonts; their size is not in the code's). Size: index.mjs and its chunks, ` +
      `all the code the function deploys (the targets read this); index.mjs alone is what a cold start parses. Import time: ` +
      `\`await import()\` of index.mjs timed inside a fresh \`node\` process, median of ` +
      `${options.repeat}, with the stack's environment (made-up buckets, secret ids, ARNs and API URL; definitions are read ` +
      `per run from the definitions bucket, measured below), so the module scope runs fully: config parsed, SDK clients and Powertools built, no ` +
      `network. The Lambdas run with \`NODE_OPTIONS=--enable-source-maps\` (set by the stack), which makes Node read and parse ` +
      `the source map while importing, so that is the headline figure; without it for comparison. Node here is ` +
      `${process.version}; Lambda runs Node 22.`,
    '',
    table(
      ['bundle', 'size (all code)', 'index.mjs (imported at a cold start)', 'beside it', 'gzipped', 'source maps', 'import (source maps on)', '÷ S3-client reference', 'import (source maps off)', 'whole process (spawn → exit)'],
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
