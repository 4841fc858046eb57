import { systemClock } from '../shared/core/clock';
import { silentLog } from '../shared/core/logger';
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { awsRegion, loadPreflightConfig, type PreflightConfig } from '../shared/core/config';
import { errorMessage } from '../shared/core/errors';
import { DefinitionStore } from '../shared/definitions/definition-store';
import { createSchedulerClient, ScheduleReader } from '../shared/definitions/scheduler-client';
import { createLimiter, PlanningApiClient, resolveClientSettings } from '../shared/planning-api';
import { DEFAULT_API_CONCURRENCY } from '../shared/core/defaults';
import { blockers, type CheckArea } from '../shared/preflight/check';
import { CloudFormationStackReader, configuredRegion, createCloudFormationClient } from '../shared/preflight/cloudformation-stacks';
import type { DeploymentSettings, PreflightPorts } from '../shared/preflight/ports';
import { runPreflight, type PreflightResult } from '../shared/preflight/run-preflight';
import { createSecretsManagerReaderClient, SecretsManagerSecretReader } from '../shared/preflight/secrets-manager-reader';
import { createLambdaAccountClient, LambdaAccountReader } from '../shared/preflight/lambda-account';
import { createSesAccountClient, SesV2AccountReader } from '../shared/preflight/ses-account';
import { createSsmClient, SsmBootstrapReader } from '../shared/preflight/ssm-bootstrap';
import { createS3Client } from '../shared/storage/s3-client';
import { S3Storage } from '../shared/storage/s3-storage';
import { GROUP_TITLES } from '../shared/planning-api/api-groups';
import { addressProblem, probeGroups } from './discover-probe';
import type { CommandIo } from './export-command';
import { parseOptions, UsageError, usageErrorLine } from './usage';
import { countOf } from './words';

/** The stack infra/app.ts deploys (STACK_NAME of infra/report-exporter-app.ts, which loads all of the CDK to say so). */
export const DEFAULT_STACK_NAME = 'PlanningReportExporter';

export const PREFLIGHT_USAGE = `Usage: npm run preflight -- [--region <region>] [--stack <name>] [--secret-id <id>]

  Checks what stands between this AWS account and the stack's first e-mail, reading only, in the
  order a deployment meets it: the CDK bootstrap; whether the Lambda concurrency cdk.json reserves
  fits the account's quota (and the quota to ask for); the stack and its outputs (once deployed); the
  planning API secret (there, complete, not the placeholder) and whether each API group answers its
  key; the SES identity, the sender, the sandbox and, in the sandbox, every recipient; the stored
  reports, the schedule group and a schedule for each scheduled report. Each check says ok, not ok
  or cannot tell, and the fix. The settings come from cdk.json (reportExporter) and the stack.

  --region     the region to check (default: AWS_REGION, else the region of the AWS profile)
  --stack      the stack's name (default ${DEFAULT_STACK_NAME})
  --secret-id  read the planning API credentials from this secret instead of the one the stack's
               PlanningSecretId output names

  Exit status: 0 when nothing blocks a first e-mail; 1 when something does, or could not be told;
  2 for a usage error.`;

function parse(argv: readonly string[]) {
  return parseOptions(argv, {
    region: { type: 'string' },
    stack: { type: 'string' },
    'secret-id': { type: 'string' },
    help: { type: 'boolean', default: false },
  });
}

/** The adapters of the region, at the endpoints the environment names (local stand-ins in tests). */
function awsPorts(region: string, config: PreflightConfig): PreflightPorts {
  return {
    bootstrap: new SsmBootstrapReader(createSsmClient(region, config.AWS_ENDPOINT_URL_SSM)),
    stacks: new CloudFormationStackReader(createCloudFormationClient(region, config.AWS_ENDPOINT_URL_CLOUDFORMATION)),
    secrets: new SecretsManagerSecretReader(createSecretsManagerReaderClient(region, config.AWS_ENDPOINT_URL_SECRETS_MANAGER)),
    ses: new SesV2AccountReader(createSesAccountClient(region, config.AWS_ENDPOINT_URL_SESV2)),
    lambda: new LambdaAccountReader(createLambdaAccountClient(region, config.AWS_ENDPOINT_URL_LAMBDA)),
    schedules: (group) => new ScheduleReader(group, createSchedulerClient(config.AWS_ENDPOINT_URL_SCHEDULER, region)),
    storedReports: (bucket) => new DefinitionStore(new S3Storage({ bucket, prefix: '', client: createS3Client(config.AWS_ENDPOINT_URL_S3, region) }), { maxAgeSeconds: config.DEFINITIONS_MAX_AGE_SECONDS }),
    // The discover probe: one question per group, a few retries at most (a preflight waits for no outage).
    probeApi: async (credentials) => {
      const client = new PlanningApiClient({ clock: systemClock, log: silentLog, credentials, limiter: createLimiter(DEFAULT_API_CONCURRENCY), settings: resolveClientSettings({ maxResponseBytes: config.API_MAX_RESPONSE_BYTES, timeoutMs: 15_000 }), retry: { maxAttempts: 2 } });
      const groups = await probeGroups(client);
      return {
        groups: groups.map((g) => ({ group: g.group, title: GROUP_TITLES[g.group], ok: g.ok, detail: g.detail, reason: g.reason })),
        addressHint: addressProblem(groups, credentials)?.hint,
      };
    },
  };
}

/** What cdk.json deploys (the same loader `cdk synth` uses). */
async function deploymentSettings(cwd: string): Promise<DeploymentSettings> {
  const { CONTEXT_KEY, loadInfraConfig } = await import('../infra/config');
  const path = resolve(cwd, 'cdk.json');
  const cdkJson = JSON.parse(await readFile(path, 'utf8')) as { context?: Record<string, unknown> };
  return loadInfraConfig(cdkJson.context?.[CONTEXT_KEY], cwd);
}

const STATUS_WIDTH = 'cannot tell'.length;

/** The checks by area, each with its status, what was found and the fix; then what it adds up to. */
export function formatPreflight(result: PreflightResult, target: { region: string; stackName: string }): string {
  const lines = [`preflight of stack ${target.stackName} in ${target.region} (reads only)`];
  let area: CheckArea | undefined;
  for (const check of result.checks) {
    if (check.area !== area) lines.push('', check.area);
    area = check.area;
    const aside = check.status !== 'ok' && !check.blocks ? ' (does not block a first e-mail)' : '';
    lines.push(`  ${check.status.padEnd(STATUS_WIDTH)}  ${check.name}: ${check.detail}${aside}`);
    if (check.fix !== undefined && check.status !== 'ok') lines.push(`  ${' '.repeat(STATUS_WIDTH)}  fix: ${check.fix}`);
  }
  lines.push('', summary(result));
  return `${lines.join('\n')}\n`;
}

function summary(result: PreflightResult): string {
  const blocking = blockers(result.checks);
  if (blocking.length > 0) {
    const unknown = blocking.filter((c) => c.status === 'cannot tell').length;
    const told = unknown > 0 ? ` (${countOf(unknown, 'check')} could not tell)` : '';
    return `${countOf(blocking.length, 'check')} ${blocking.length === 1 ? 'stands' : 'stand'} between this account and a first e-mail${told}: ${blocking.map((c) => c.name).join('; ')}`;
  }
  const run = result.firstRun;
  const start = run
    ? `aws lambda invoke --function-name ${run.functionName} --cli-binary-format raw-in-base64-out --cli-read-timeout 900 --payload '{"report":"${run.report}"}' first-run.json`
    : 'see docs/deploy.md';
  return `nothing blocks a first e-mail. Start one on demand: ${start}`;
}

/** `npm run preflight`: resolves with the exit code (0 nothing blocks a first e-mail, 1 something does or could not be told, 2 usage). */
export async function runPreflightCommand(argv: readonly string[], io: CommandIo): Promise<number> {
  let args: ReturnType<typeof parse>;
  let config: PreflightConfig;
  try {
    args = parse(argv);
    if (args.help) {
      io.stdout.write(`${PREFLIGHT_USAGE}\n`);
      return 0;
    }
    config = loadPreflightConfig(io.env);
    if (args.region !== undefined && !awsRegion.safeParse(args.region).success) throw new UsageError(`--region "${args.region}" is not a region such as eu-central-1`);
  } catch (error) {
    io.stderr.write(usageErrorLine('preflight', errorMessage(error)));
    return 2;
  }
  try {
    const region = args.region ?? config.AWS_REGION ?? config.AWS_DEFAULT_REGION ?? (await configuredRegion());
    if (region === undefined) {
      io.stderr.write(usageErrorLine('preflight', 'no region: give --region, or set AWS_REGION (or a region in the AWS profile)'));
      return 2;
    }
    const target = { region, stackName: args.stack ?? DEFAULT_STACK_NAME, secretId: args['secret-id'], settings: await deploymentSettings(io.cwd) };
    const result = await runPreflight(target, awsPorts(region, config));
    io.stdout.write(formatPreflight(result, target));
    return blockers(result.checks).length > 0 ? 1 : 0;
  } catch (error) {
    io.stderr.write(`preflight failed: ${errorMessage(error)}\n`);
    return 1;
  }
}
