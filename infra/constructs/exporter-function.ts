import { cpSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { AssetHashType, DockerImage, Duration, RemovalPolicy, Size, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { buildSync, type BuildOptions } from 'esbuild';

/**
 * One bundling setup for every Lambda. ESM because the shared code is ESM; the banner gives
 * CommonJS dependencies bundled into an ESM file the `require` they expect.
 *
 * Everything is bundled, the AWS SDK v3 included (no externals), so the SDK is the version
 * pinned in package-lock.json and tested (lib-storage and the presigner must match client-s3), not
 * whatever the runtime ships that month. The SDK is about 0.6 MB of the export bundle. Sizes:
 * docs/deploy.md, which a test holds to the bundles.
 *
 * Source maps without sources content keep the zip small while NODE_OPTIONS=--enable-source-maps
 * still maps stack traces to .ts lines.
 *
 * The functions are bundled by esbuild's own API on this machine (functionCode), not by
 * NodejsFunction, whose command line writes one file (`--outfile`) and so cannot split the code.
 */
/** The module fontkit decodes WOFF2 fonts with, replaced in the bundles (see BUNDLING). */
export const WOFF2_DECODER = 'brotli/decompress.js';
/**
 * The modules archiver loads for globbing files, writing tar archives and reading files from disk
 * (archiver-utils' `file()` helpers: lazystream, graceful-fs, four lodash functions), replaced in the
 * bundles (see BUNDLING). Only archiver-utils imports them (test/infra/bundle-stubs.test.ts).
 */
export const UNUSED_ARCHIVER_PARTS = [
  'glob',
  'readdir-glob',
  'tar-stream',
  'lazystream',
  'graceful-fs',
  'lodash.difference',
  'lodash.flatten',
  'lodash.isplainobject',
  'lodash.union',
] as const;
/** The XML parser exceljs reads workbooks with, replaced in the bundles (see BUNDLING). */
export const XML_READER = 'saxes';
/** pdfkit's cipher for password-protected PDFs and its PNG decoder, replaced in the bundles (see BUNDLING). */
export const UNUSED_PDFKIT_PARTS = { '@noble/ciphers/aes': './shared/render/pdf/no-encryption.ts', 'png-js': './shared/render/pdf/no-png.ts' } as const;
/** What the X-Ray SDK checks an AWS SDK v2's version with, replaced in the bundles (see BUNDLING). */
export const SDK_V2_VERSION_CHECK = 'semver';
/** The AWS SDK clients' default credential chain, replaced in the bundles by its links a Lambda reaches (see BUNDLING). */
export const SDK_CREDENTIAL_CHAIN = '@aws-sdk/credential-provider-node';

/**
 * What the bundles put in place of modules their dependencies load but the functions never call, as
 * esbuild `--alias` arguments, each a stub that throws if it is ever reached; and readable-stream,
 * which archiver-utils and lazystream ask for at 2.3.8 and the rest of exceljs's zip writer at 3.6.2,
 * resolved once, to 3.6.2 (the copy at the repository root): the 2.3.8 copies only ever wrap an
 * old-style stream in a PassThrough, which 3.6.2 does alike. Aliases resolve from the repository root,
 * where the bundling runs. Savings in the export bundle, measured with esbuild's metafile: fontkit's
 * WOFF2 decoder 475 KiB; glob, readdir-glob and tar-stream 53 KiB; lazystream (with its own copy of
 * readable-stream 2.3.8), graceful-fs and the lodash functions 54 kB; the one readable-stream 31 kB;
 * the XML reader 28 kB; semver 30 kB (in every function); pdfkit's parts 11 kB; the credential chain's
 * links a Lambda never reaches (SSO, ini files, processes, web identity, instance metadata, with the
 * STS, SSO and sign-in clients they build) 96 kB in every function (lambdas/lambda-credentials.ts).
 * test/infra/xlsx-bundle.test.ts and pdf-bundle.test.ts run the bundled writers and compare their
 * bytes with the unbundled ones'; test/infra/bundle-stubs.test.ts checks who imports each stubbed module.
 */
export const BUNDLE_ALIASES: readonly string[] = [
  `${WOFF2_DECODER}=./shared/render/pdf/no-woff2.ts`,
  ...UNUSED_ARCHIVER_PARTS.map((module) => `${module}=./shared/render/xlsx/no-archive-files.ts`),
  `${XML_READER}=./shared/render/xlsx/no-xml-reader.ts`,
  ...Object.entries(UNUSED_PDFKIT_PARTS).map(([module, stub]) => `${module}=${stub}`),
  `${SDK_V2_VERSION_CHECK}=./lambdas/no-sdk-v2-tracing.ts`,
  `${SDK_CREDENTIAL_CHAIN}=./lambdas/lambda-credentials.ts`,
  'readable-stream=./node_modules/readable-stream',
];

/**
 * The bundling every function gets, as esbuild's options: `esbuildOptions` resolves the aliases against
 * the repository root. Code splitting: a module the code loads with `import()` (the xlsx, PDF and
 * Parquet renderers, which load when a run first writes their format) is a file of its own beside
 * index.mjs, read when it is first imported, so a cold start parses only what every invocation runs.
 * Chunks sit beside index.mjs, not in a folder, because the PDF renderer reads its fonts from `fonts/`
 * beside its own module.
 */
export const BUNDLING = {
  format: 'esm',
  splitting: true,
  entryNames: 'index',
  chunkNames: '[name]-[hash]',
  outExtension: { '.js': '.mjs' },
  // Minified without keepNames: what an error means (its name in ReportFailed, the owners' advice,
  // the fan-out's Retry, the export API's status) is in fields of its class, not in the class's name
  // (shared/core/errors.ts), so shortening names to letters changes nothing.
  minify: true,
  // A linked map beside each file, which NODE_OPTIONS=--enable-source-maps reads at import.
  sourcemap: 'linked',
  sourcesContent: false,
  target: 'node22',
  mainFields: ['module', 'main'],
  banner: { js: "import { createRequire } from 'module'; const require = createRequire(import.meta.url);" },
  aliases: BUNDLE_ALIASES,
} as const;

/**
 * What the stack hands esbuild for a function (BUNDLING), with the aliases resolved against the
 * repository root: for the stack's bundling and for bundles built outside CDK that must be the deployed
 * ones (the bench's cold start, the tests). Give it `outdir` and one entry point: the entry becomes
 * `index.mjs` there, beside its chunks.
 */
export function esbuildOptions(repoRoot: string): BuildOptions {
  const { aliases, mainFields, banner, outExtension, ...options } = BUNDLING;
  return {
    ...options,
    bundle: true,
    platform: 'node',
    mainFields: [...mainFields],
    banner: { ...banner },
    outExtension: { ...outExtension },
    // Everything is bundled, the SDK included: see the comment at the top of this file.
    external: [],
    alias: Object.fromEntries(aliases.map((a) => [a.slice(0, a.indexOf('=')), join(repoRoot, a.slice(a.indexOf('=') + 1))])),
  };
}

/** A folder of the repository a function reads at run time, copied beside its bundle (index.mjs). */
export interface FolderBesideBundle {
  /** The folder, relative to the repository root. */
  readonly from: string;
  /** Its name beside index.mjs. */
  readonly to: string;
}

/**
 * The PDF's fonts: shared/render/pdf/fonts.ts reads them from fonts/ beside its module, which in a
 * bundle is the PDF renderer's chunk beside index.mjs. Files rather than code: 0.3 MB less JavaScript
 * to parse when a run first writes a PDF.
 */
export const PDF_FONTS: FolderBesideBundle = { from: 'shared/render/pdf/fonts', to: 'fonts' };

/** The same copy for a bundle built outside CDK (with esbuildOptions), into the bundle's folder. */
export function copyBesideBundle(repoRoot: string, bundleDir: string, folders: readonly FolderBesideBundle[]): void {
  for (const f of folders) cpSync(join(repoRoot, f.from), join(bundleDir, f.to), { recursive: true });
}

/**
 * Bundles one function into `outdir` as the stack deploys it: index.mjs, its chunks and source maps,
 * and the folders it reads beside them. `entry` relative to the repository root (or absolute: the
 * bench's reference handlers). Synchronous, because CDK's local bundling is.
 */
export function bundleFunction(repoRoot: string, entry: string, outdir: string, besideBundle: readonly FolderBesideBundle[] = []): void {
  buildSync({ ...esbuildOptions(repoRoot), entryPoints: [resolve(repoRoot, entry)], outdir, absWorkingDir: repoRoot, logLevel: 'error' });
  copyBesideBundle(repoRoot, outdir, besideBundle);
}

/**
 * The function's code: bundled on this machine with the pinned esbuild (no Docker here or in CI), the
 * asset's hash taken from what was bundled. The image is never pulled: local bundling always succeeds
 * or fails the synth with esbuild's error.
 */
function functionCode(repoRoot: string, entry: string, besideBundle: readonly FolderBesideBundle[]): lambda.Code {
  return lambda.Code.fromAsset(repoRoot, {
    assetHashType: AssetHashType.OUTPUT,
    bundling: {
      image: DockerImage.fromRegistry('public.ecr.aws/sam/build-nodejs22.x'),
      // Never run (the image is never used), but part of the key CDK caches a bundle under: without it,
      // every function of the app would get the first one's bundle.
      command: ['bundle', entry, ...besideBundle.map((f) => f.from)],
      local: {
        tryBundle(outputDir) {
          bundleFunction(repoRoot, entry, outputDir, besideBundle);
          return true;
        },
      },
    },
  });
}

export interface ExporterFunctionProps {
  /** Repository root: entry, lock file and bundling root. */
  readonly repoRoot: string;
  /** Entry relative to the repository root, e.g. `lambdas/export-report/handler.ts`. */
  readonly entry: string;
  readonly description: string;
  readonly memorySize: number;
  /** Size of /tmp in MiB (512 to 10,240); default 512. */
  readonly ephemeralStorageMb?: number;
  readonly timeout: Duration;
  readonly environment: Record<string, string>;
  readonly reservedConcurrentExecutions?: number;
  readonly logRetention: logs.RetentionDays;
  /** Folders the function reads at run time, copied beside its bundle (PDF_FONTS for the one that writes PDFs). */
  readonly besideBundle?: readonly FolderBesideBundle[];
}

/**
 * A Node.js 22 / arm64 Lambda with its own role (no AWS managed policy: the only log permission is
 * on its own log group), an explicit log group with retention, and active X-Ray tracing.
 */
export class ExporterFunction extends Construct {
  readonly function: lambda.Function;
  readonly role: iam.Role;
  readonly logGroup: logs.LogGroup;

  constructor(scope: Construct, id: string, props: ExporterFunctionProps) {
    super(scope, id);

    this.logGroup = new logs.LogGroup(this, 'Logs', {
      retention: props.logRetention,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    this.role = new iam.Role(this, 'Role', {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: `Execution role of ${props.description}`,
    });
    // Instead of AWSLambdaBasicExecutionRole (logs on every log group of the account).
    this.logGroup.grantWrite(this.role);

    this.function = new lambda.Function(this, 'Function', {
      code: functionCode(props.repoRoot, props.entry, props.besideBundle ?? []),
      handler: 'index.handler',
      runtime: lambda.Runtime.NODEJS_22_X,
      architecture: lambda.Architecture.ARM_64,
      description: props.description,
      memorySize: props.memorySize,
      ...(props.ephemeralStorageMb !== undefined && { ephemeralStorageSize: Size.mebibytes(props.ephemeralStorageMb) }),
      timeout: props.timeout,
      role: this.role,
      logGroup: this.logGroup,
      tracing: lambda.Tracing.ACTIVE,
      environment: props.environment,
      ...(props.reservedConcurrentExecutions !== undefined && { reservedConcurrentExecutions: props.reservedConcurrentExecutions }),
    });

    Validations.of(this.function).acknowledge({
      id: 'AwsSolutions-L1',
      reason: 'Node.js 22 is the runtime the code is built and tested for (esbuild target node22, Node 22 in CI); moving to a newer runtime is a deliberate upgrade, not a deploy-time default.',
    });
    // Tracing.ACTIVE adds xray:PutTraceSegments / PutTelemetryRecords, which have no resource type.
    Validations.of(this.role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason: 'Only the X-Ray actions xray:PutTraceSegments and xray:PutTelemetryRecords use "*": X-Ray does not support resource-level permissions for them.',
    });
  }

  /**
   * Asynchronous invocations of the unqualified function. Not grantInvoke: that also allows every
   * version and alias (`<arn>:*`).
   */
  grantInvokeUnqualified(role: iam.Role): void {
    role.addToPrincipalPolicy(
      new iam.PolicyStatement({ sid: 'StartExport', actions: ['lambda:InvokeFunction'], resources: [this.function.functionArn] }),
    );
  }
}
