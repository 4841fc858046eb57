import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { Duration, RemovalPolicy, Size, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat, type BundlingOptions } from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import type { BuildOptions } from 'esbuild';

/**
 * One bundling setup for every Lambda. ESM because the shared code is ESM; the banner gives
 * CommonJS dependencies bundled into an ESM file the `require` they expect.
 *
 * Everything is bundled, the AWS SDK v3 included (externalModules: []), so the SDK is the version
 * pinned in package-lock.json and tested (lib-storage and the presigner must match client-s3), not
 * whatever the runtime ships that month. The SDK is about 0.6 MB of the export bundle. Sizes:
 * docs/deploy.md, which a test holds to the bundles.
 *
 * Source maps without sources content keep the zip small while NODE_OPTIONS=--enable-source-maps
 * still maps stack traces to .ts lines.
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

export const BUNDLING: BundlingOptions = {
  format: OutputFormat.ESM,
  // Minified without keepNames: what an error means (its name in ReportFailed, the owners' advice,
  // the fan-out's Retry, the export API's status) is in fields of its class, not in the class's name
  // (shared/core/errors.ts), so shortening names to letters changes nothing.
  minify: true,
  sourceMap: true,
  sourcesContent: false,
  target: 'node22',
  mainFields: ['module', 'main'],
  banner: "import { createRequire } from 'module'; const require = createRequire(import.meta.url);",
  externalModules: [],
  esbuildArgs: { '--alias': [...BUNDLE_ALIASES] },
  // No Docker here or in CI: esbuild from node_modules must be used.
  forceDockerBundling: false,
};

/**
 * What NodejsFunction hands esbuild for BUNDLING, as esbuild's own options, for bundles built outside
 * CDK that must be the deployed ones (the bench's cold start, the tests); aliases resolved against the
 * repository root, as the bundling resolves them. test/infra/exporter-function.test.ts fails when
 * BUNDLING gains an option this leaves out.
 */
export function esbuildOptions(repoRoot: string): BuildOptions {
  const aliases = (BUNDLING.esbuildArgs?.['--alias'] as string[] | undefined) ?? [];
  return {
    bundle: true,
    platform: 'node',
    format: String(BUNDLING.format) === 'esm' ? 'esm' : 'cjs',
    minify: BUNDLING.minify ?? false,
    keepNames: BUNDLING.keepNames ?? false,
    // `--sourcemap` as NodejsFunction passes it: a linked map, which --enable-source-maps reads at import.
    sourcemap: BUNDLING.sourceMap === true ? 'linked' : false,
    sourcesContent: BUNDLING.sourcesContent ?? true,
    ...(BUNDLING.target !== undefined && { target: BUNDLING.target }),
    ...(BUNDLING.mainFields && { mainFields: [...BUNDLING.mainFields] }),
    ...(BUNDLING.banner !== undefined && { banner: { js: BUNDLING.banner } }),
    external: [...(BUNDLING.externalModules ?? [])],
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
 * bundle is index.mjs. Files rather than code: 0.3 MB less JavaScript to load at every cold start.
 */
export const PDF_FONTS: FolderBesideBundle = { from: 'shared/render/pdf/fonts', to: 'fonts' };

/** BUNDLING, copying `folders` beside the bundle once esbuild has written it. */
function bundlingWith(folders: readonly FolderBesideBundle[]): BundlingOptions {
  if (folders.length === 0) return BUNDLING;
  return {
    ...BUNDLING,
    commandHooks: {
      beforeBundling: () => [],
      beforeInstall: () => [],
      afterBundling: (inputDir, outputDir) => folders.map((f) => `cp -R "${join(inputDir, f.from)}" "${join(outputDir, f.to)}"`),
    },
  };
}

/** The same copy for a bundle built outside CDK (with esbuildOptions), into the bundle's folder. */
export function copyBesideBundle(repoRoot: string, bundleDir: string, folders: readonly FolderBesideBundle[]): void {
  for (const f of folders) cpSync(join(repoRoot, f.from), join(bundleDir, f.to), { recursive: true });
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
  readonly function: NodejsFunction;
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

    this.function = new NodejsFunction(this, 'Function', {
      entry: join(props.repoRoot, props.entry),
      handler: 'handler',
      projectRoot: props.repoRoot,
      depsLockFilePath: join(props.repoRoot, 'package-lock.json'),
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
      bundling: bundlingWith(props.besideBundle ?? []),
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
