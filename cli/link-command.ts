import { readFile } from 'node:fs/promises';
import { readRegularFile } from '../shared/core/files/regular-file';
import { resolve } from 'node:path';
import { errorMessage, ExporterError } from '../shared/core/errors';
import { parseOptions, UsageError, usageErrorLine } from './usage';
import { MAX_LINK_LIFETIME_SECONDS, type LinkKey } from '../shared/links/link-token';
import { LedgerRunLinkLedger } from '../shared/http/run-link-ledger';
import { DynamoDbLedger } from '../shared/ledger/dynamodb-ledger';
import type { Ledger } from '../shared/ledger/ledger';
import { createRunLinkToken, RUN_LINK_ID_PATTERN } from '../shared/links/run-link-token';
import { SecretsManagerLinkKeySource } from '../shared/secrets/secret-source';
import { loadCliConfig } from '../shared/core/config';
import type { CommandIo } from './export-command';
import { LOCAL_API_URL, LOCAL_LINK_KEYS, LOCAL_STACK_REPORT_FILE, localStackAddress } from './local-link-keys';
import { bucketDefinitionStore } from './reports-command';
import { configuredReports, isReportFile, unknownReportError, type ReportPlace } from './report-argument';
import { parseReportDefinitionJson } from '../shared/report/definition/definition';
import { daysAfter, systemClock, type Clock } from '../shared/core/clock';

export const LINK_USAGE = `Usage: npm run link -- --report <name | definition.json> [--days <n>] [--local | --outputs <file> | --api-url <url> --key-secret <arn>] [--bucket <b>]
       npm run link -- --revoke <id> [--outputs <file> | --ledger-table <name>]

Prints a run link: a URL that starts (or joins) a fresh export of one report when a person opens it.
With --revoke, withdraws a link for good by the id printed when it was made (a deployed stack's ledger).

  --report      name of a report: stored in the definitions bucket (npm run reports -- push) or
                configured in cdk.json (reportExporter.reports); or its definition file (the link is
                for the report the file names)
  --days        days until the link expires (default 30, at most ${MAX_LINK_LIFETIME_SECONDS / 86400})
  --local       a link for the local stack (${LOCAL_API_URL}, the local link key)
  --outputs     stack outputs written by \`cdk deploy --outputs-file <file>\` (default cdk-outputs.json):
                ApiUrl, LinkKeySecretArn and DefinitionsBucketName are read from it
  --api-url     the ApiUrl output, instead of --outputs
  --key-secret  the LinkKeySecretArn output, instead of --outputs (read with your AWS credentials)
  --bucket      the DefinitionsBucketName output, where pushed reports are looked up (instead of the one in --outputs)
  --base-url    with --local: another address of the local HTTP API
  --revoke      the id of a run link to revoke
  --ledger-table  the LedgerTableName output, instead of --outputs (with --revoke)`;

function parse(argv: readonly string[]) {
  return parseOptions(argv, {
    report: { type: 'string' },
    days: { type: 'string', default: '30' },
    local: { type: 'boolean', default: false },
    outputs: { type: 'string' },
    'api-url': { type: 'string' },
    'key-secret': { type: 'string' },
    'base-url': { type: 'string' },
    bucket: { type: 'string' },
    revoke: { type: 'string' },
    'ledger-table': { type: 'string' },
    help: { type: 'boolean', default: false },
  });
}

export interface LinkCommandDependencies {
  /** The key a deployed stack signs with (default: the current key of the secret). */
  readonly deployedKey?: (secretId: string) => Promise<LinkKey>;
  /** Configured report names (default: cdk.json's). */
  readonly reportNames?: () => Promise<readonly string[]>;
  /** Names of the reports stored in a definitions bucket (default: listed with your AWS credentials, AWS_ENDPOINT_URL_S3 honoured). */
  readonly storedReportNames?: (bucket: string) => Promise<readonly string[]>;
  /** The time links are signed and revoked at (default: the system clock). */
  readonly clock?: Clock;
  /** The run ledger of a deployed stack (default: its DynamoDB table). */
  readonly ledger?: (tableName: string) => Ledger;
}

/** `npm run link`: resolves with the exit code (0 ok, 1 failed, 2 usage). */
export async function runLinkCommand(argv: readonly string[], io: CommandIo, deps: LinkCommandDependencies = {}): Promise<number> {
  let args: ReturnType<typeof parse>;
  let days: number;
  try {
    args = parse(argv);
    if (args.help) {
      io.stdout.write(`${LINK_USAGE}\n`);
      return 0;
    }
    if (args.revoke !== undefined) {
      if (args.report || args.local || args['api-url'] || args['key-secret'] || args.bucket) throw new UsageError('--revoke goes alone (with --outputs or --ledger-table)');
      if (!RUN_LINK_ID_PATTERN.test(args.revoke)) throw new UsageError('--revoke takes the 22-character id printed when the link was made');
      return await revokeLink(args.revoke, args['ledger-table'], args.outputs, io, deps);
    }
    if (args['ledger-table']) throw new UsageError('--ledger-table goes with --revoke');
    if (!args.report) throw new UsageError('--report is required');
    days = Number(args.days);
    if (!Number.isInteger(days) || days < 1 || days > MAX_LINK_LIFETIME_SECONDS / 86400) {
      throw new UsageError(`--days must be a whole number from 1 to ${MAX_LINK_LIFETIME_SECONDS / 86400}`);
    }
    if (args.local && (args.outputs || args['api-url'] || args['key-secret'] || args.bucket)) {
      throw new UsageError('--local signs with the local key: leave out --outputs, --api-url, --key-secret and --bucket');
    }
    if (!args.local && args['base-url']) throw new UsageError('--base-url goes with --local');
    if (!args['api-url'] !== !args['key-secret']) throw new UsageError('give both --api-url and --key-secret, or neither');
  } catch (error) {
    io.stderr.write(usageErrorLine('link', (error as Error).message));
    return 2;
  }

  try {
    const now = (deps.clock ?? systemClock)();
    // A definition file names its report: the link is for that name.
    const report = (await isReportFile(args.report, io.cwd)) ? await reportNameInFile(args.report, io.cwd) : args.report;
    let apiUrl: string;
    let key: LinkKey;
    if (args.local) {
      await checkLocalReport(report);
      apiUrl = args['base-url'] ?? localStackAddress(io.env).apiUrl;
      key = LOCAL_LINK_KEYS.current;
    } else {
      ({ apiUrl, key } = await deployedTarget(report, args, io, deps));
    }
    const expiresAt = daysAfter(now, days);
    const link = createRunLinkToken({ report, expiresAt }, key, now);
    io.stdout.write(`${apiUrl.replace(/\/+$/, '')}/run/${link.token}\n`);
    io.stderr.write(`run link for "${report}": id ${link.id}, expires ${link.expiresAt.toISOString()} (keep the id to revoke it)\n`);
    return 0;
  } catch (error) {
    io.stderr.write(`error: ${errorMessage(error)}\n`);
    return 1;
  }
}

async function revokeLink(id: string, table: string | undefined, outputs: string | undefined, io: CommandIo, deps: LinkCommandDependencies): Promise<number> {
  try {
    const tableName = table ?? (await readOutputs(resolve(io.cwd, outputs ?? 'cdk-outputs.json'))).ledgerTable;
    if (!tableName) throw new ExporterError('the stack outputs have no LedgerTableName: give --ledger-table');
    const ledger = (deps.ledger ?? ((name: string) => new DynamoDbLedger({ tableName: name })))(tableName);
    await new LedgerRunLinkLedger(ledger).revoke(id, (deps.clock ?? systemClock)());
    io.stdout.write(`run link ${id} is revoked (open pages see it within a minute)\n`);
    return 0;
  } catch (error) {
    io.stderr.write(`error: ${errorMessage(error)}\n`);
    return 1;
  }
}

/** The local stack serves one report (examples/demo-report.json): a link for any other would open a refusal. */
async function checkLocalReport(report: string): Promise<void> {
  const served = (JSON.parse(await readFile(resolve(import.meta.dirname, '..', LOCAL_STACK_REPORT_FILE), 'utf8')) as { name: string }).name;
  if (report !== served) {
    throw new ExporterError(`the local stack serves only report "${served}" (${LOCAL_STACK_REPORT_FILE}), not "${report}": npm run link -- --local --report ${served}`);
  }
}

async function currentKeyOf(secretId: string, maxAgeSeconds: number): Promise<LinkKey> {
  return (await new SecretsManagerLinkKeySource({ secretId, maxAgeSeconds }).getKeys()).current;
}

/** The API and the signing key of a deployed stack, once the report is known to be one of its reports. */
async function deployedTarget(report: string, args: ReturnType<typeof parse>, io: CommandIo, deps: LinkCommandDependencies): Promise<{ apiUrl: string; key: LinkKey }> {
  const outputs = args['api-url'] ? undefined : readOutputs(resolve(io.cwd, args.outputs ?? 'cdk-outputs.json'));
  // Unreadable outputs are reported once the report is found (the check may need only cdk.json).
  outputs?.catch(() => undefined);
  const bucket = async () => args.bucket ?? (await outputs?.catch(() => undefined))?.definitionsBucket;
  await assertReportExists(report, bucket, io, deps);
  const target = outputs ? await outputs : { apiUrl: args['api-url']!, keySecret: args['key-secret']! };
  return { apiUrl: target.apiUrl, key: await (deps.deployedKey ?? ((secretId) => currentKeyOf(secretId, loadCliConfig(io.env).SECRET_MAX_AGE_SECONDS)))(target.keySecret) };
}

/**
 * A report a deployed stack knows: configured in cdk.json, or stored in its definitions bucket (how
 * `npm run reports -- push` adds one). Throws naming both places, and what each holds, otherwise.
 */
async function assertReportExists(report: string, bucketOf: () => Promise<string | undefined>, io: CommandIo, deps: LinkCommandDependencies): Promise<void> {
  const configured = await (deps.reportNames ?? (() => configuredReportNames(io.cwd)))();
  if (configured.includes(report)) return;
  const bucket = await bucketOf();
  const stored = bucket === undefined ? undefined : await (deps.storedReportNames ?? ((b) => bucketDefinitionStore(b, io).names()))(bucket);
  if (stored?.includes(report)) return;
  const store: ReportPlace =
    stored === undefined
      ? { where: 'the definitions bucket', names: 'the definitions bucket, which is not known here: give --outputs with a DefinitionsBucketName output, or --bucket' }
      : { where: `the definitions bucket "${bucket}"`, names: stored };
  throw await unknownReportError(report, io.cwd, [{ where: 'cdk.json', names: configured }, store], 'the name of a report the stack knows, or its definition file');
}

/** Report names as the stack configures them (the same loader `cdk synth` uses). */
async function configuredReportNames(cwd: string): Promise<string[]> {
  return (await configuredReports(cwd)).map((r) => r.name);
}

/** The name of the report a definition file defines (checked as a definition: a link to a report that cannot run helps nobody). */
async function reportNameInFile(given: string, cwd: string): Promise<string> {
  const path = resolve(cwd, given);
  return parseReportDefinitionJson(await readRegularFile(path, { label: `report definition "${path}"`, error: (message) => new ExporterError(message) }), `report definition ${given}`).name;
}

interface StackOutputs {
  readonly apiUrl: string;
  readonly keySecret: string;
  readonly ledgerTable: string | undefined;
  readonly definitionsBucket: string | undefined;
}

async function readOutputs(path: string): Promise<StackOutputs> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readRegularFile(path, { label: 'it', error: (message) => new ExporterError(message) }));
  } catch (error) {
    throw new ExporterError(
      `cannot read the stack outputs "${path}" (${errorMessage(error)}): deploy with \`npx cdk deploy --outputs-file cdk-outputs.json\`, or give --api-url and --key-secret`,
      { cause: error },
    );
  }
  const stacks = Object.values(typeof parsed === 'object' && parsed !== null ? parsed : {}) as Record<string, unknown>[];
  const stack = stacks.find((s) => typeof s.ApiUrl === 'string' && typeof s.LinkKeySecretArn === 'string');
  if (!stack) throw new ExporterError(`"${path}" has no stack with ApiUrl and LinkKeySecretArn outputs`);
  return {
    apiUrl: stack.ApiUrl as string,
    keySecret: stack.LinkKeySecretArn as string,
    ledgerTable: typeof stack.LedgerTableName === 'string' ? stack.LedgerTableName : undefined,
    definitionsBucket: typeof stack.DefinitionsBucketName === 'string' ? stack.DefinitionsBucketName : undefined,
  };
}
