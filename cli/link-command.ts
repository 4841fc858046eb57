import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { errorMessage, ExporterError } from '../shared/core/errors';
import { parseOptions, UsageError } from './usage';
import { MAX_LINK_LIFETIME_SECONDS, type LinkKey } from '../shared/links/link-token';
import { LedgerRunLinkLedger } from '../shared/jobs/run-link-ledger';
import { DynamoDbLedger } from '../shared/ledger/dynamodb-ledger';
import type { Ledger } from '../shared/ledger/ledger';
import { createRunLinkToken, RUN_LINK_ID_PATTERN } from '../shared/links/run-link-token';
import { SecretsManagerLinkKeySource } from '../shared/secrets/secret-source';
import type { CommandIo } from './export-command';
import { LOCAL_API_URL, LOCAL_LINK_KEYS } from './local-link-keys';

export const LINK_USAGE = `Usage: npm run link -- --report <name> [--days <n>] [--local | --outputs <file> | --api-url <url> --key-secret <arn>]
       npm run link -- --revoke <id> [--outputs <file> | --ledger-table <name>]

Prints a run link: a URL that starts (or joins) a fresh export of one configured report when a person opens it.
With --revoke, withdraws a link for good by the id printed when it was made (a deployed stack's ledger).

  --report      name of a report configured in cdk.json (reportExporter.reports)
  --days        days until the link expires (default 30, at most ${MAX_LINK_LIFETIME_SECONDS / 86400})
  --local       a link for the local stack (${LOCAL_API_URL}, the local link key)
  --outputs     stack outputs written by \`cdk deploy --outputs-file <file>\` (default cdk-outputs.json):
                ApiUrl and LinkKeySecretArn are read from it
  --api-url     the ApiUrl output, instead of --outputs
  --key-secret  the LinkKeySecretArn output, instead of --outputs (read with your AWS credentials)
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
  readonly now?: () => Date;
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
      if (args.report || args.local || args['api-url'] || args['key-secret']) throw new UsageError('--revoke goes alone (with --outputs or --ledger-table)');
      if (!RUN_LINK_ID_PATTERN.test(args.revoke)) throw new UsageError('--revoke takes the 22-character id printed when the link was made');
      return await revokeLink(args.revoke, args['ledger-table'], args.outputs, io, deps);
    }
    if (args['ledger-table']) throw new UsageError('--ledger-table goes with --revoke');
    if (!args.report) throw new UsageError('--report is required');
    days = Number(args.days);
    if (!Number.isInteger(days) || days < 1 || days > MAX_LINK_LIFETIME_SECONDS / 86400) {
      throw new UsageError(`--days must be a whole number from 1 to ${MAX_LINK_LIFETIME_SECONDS / 86400}`);
    }
    if (args.local && (args.outputs || args['api-url'] || args['key-secret'])) {
      throw new UsageError('--local signs with the local key: leave out --outputs, --api-url and --key-secret');
    }
    if (!args.local && args['base-url']) throw new UsageError('--base-url goes with --local');
    if (!args['api-url'] !== !args['key-secret']) throw new UsageError('give both --api-url and --key-secret, or neither');
  } catch (error) {
    io.stderr.write(`error: ${(error as Error).message}\n\n${LINK_USAGE}\n`);
    return 2;
  }

  try {
    const now = (deps.now ?? (() => new Date()))();
    let apiUrl: string;
    let key: LinkKey;
    if (args.local) {
      apiUrl = args['base-url'] ?? LOCAL_API_URL;
      key = LOCAL_LINK_KEYS.current;
    } else {
      const names = await (deps.reportNames ?? (() => configuredReportNames(io.cwd)))();
      if (!names.includes(args.report)) {
        throw new ExporterError(`no report named "${args.report}" in cdk.json; configured: ${names.join(', ') || '(none)'}`);
      }
      const target = args['api-url'] ? { apiUrl: args['api-url'], keySecret: args['key-secret']! } : await readOutputs(resolve(io.cwd, args.outputs ?? 'cdk-outputs.json'));
      apiUrl = target.apiUrl;
      key = await (deps.deployedKey ?? currentKeyOf)(target.keySecret);
    }
    const expiresAt = new Date(now.getTime() + days * 86_400_000);
    const link = createRunLinkToken({ report: args.report, expiresAt }, key, now);
    io.stdout.write(`${apiUrl.replace(/\/+$/, '')}/run/${link.token}\n`);
    io.stderr.write(`run link for "${args.report}": id ${link.id}, expires ${link.expiresAt.toISOString()} (keep the id to revoke it)\n`);
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
    await new LedgerRunLinkLedger(ledger).revoke(id, (deps.now ?? (() => new Date()))());
    io.stdout.write(`run link ${id} is revoked (open pages see it within a minute)\n`);
    return 0;
  } catch (error) {
    io.stderr.write(`error: ${errorMessage(error)}\n`);
    return 1;
  }
}

async function currentKeyOf(secretId: string): Promise<LinkKey> {
  return (await new SecretsManagerLinkKeySource({ secretId }).getKeys()).current;
}

/** Report names as the stack configures them (the same loader `cdk synth` uses). */
async function configuredReportNames(cwd: string): Promise<string[]> {
  const { CONTEXT_KEY, loadInfraConfig } = await import('../infra/config');
  const cdkJson = JSON.parse(await readFile(resolve(cwd, 'cdk.json'), 'utf8')) as { context?: Record<string, unknown> };
  return loadInfraConfig(cdkJson.context?.[CONTEXT_KEY], cwd).reports.map((r) => r.definition.name);
}

async function readOutputs(path: string): Promise<{ apiUrl: string; keySecret: string; ledgerTable: string | undefined }> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(path, 'utf8'));
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
  };
}
