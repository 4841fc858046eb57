import { join } from 'node:path';
import { Duration, RemovalPolicy, Size, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat, type BundlingOptions } from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';

/**
 * One bundling setup for both Lambdas. ESM because the shared code is ESM; the banner gives
 * CommonJS dependencies bundled into an ESM file the `require` they expect.
 *
 * Everything is bundled, the AWS SDK v3 included (externalModules: []), so the SDK is the version
 * pinned in package-lock.json and tested (lib-storage and the presigner must match client-s3), not
 * whatever the runtime ships that month. The SDK is ~0.55 MB of the export bundle; excluding it
 * would save that but not the real weight (zod's locales and exceljs). Sizes: docs/deploy.md.
 *
 * Source maps without sources content keep the zip small while NODE_OPTIONS=--enable-source-maps
 * still maps stack traces to .ts lines.
 */
/** The module fontkit decodes WOFF2 fonts with, replaced in the bundles (see BUNDLING). */
export const WOFF2_DECODER = 'brotli/decompress.js';

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
  // fontkit (pdfkit's font reader) loads a WOFF2 decoder the PDF's TrueType fonts never call: 475 KiB of
  // the bundle. Resolved from the repository root, where the bundling runs.
  esbuildArgs: { '--alias': [`${WOFF2_DECODER}=./shared/render/pdf/no-woff2.ts`] },
  // No Docker here or in CI: esbuild from node_modules must be used.
  forceDockerBundling: false,
};

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
      bundling: BUNDLING,
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
