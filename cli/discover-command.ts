import { systemClock } from '../shared/core/clock';
import { silentLog } from '../shared/core/logger';
import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { loadCliConfig } from '../shared/core/config';
import { errorMessage, ExporterError } from '../shared/core/errors';
import { parseOptions, UsageError, usageErrorLine } from './usage';
import { createLimiter, PlanningApiClient, resolveClientSettings } from '../shared/planning-api';
import { DEFAULT_API_CONCURRENCY } from '../shared/core/defaults';
import { parseReportDefinition } from '../shared/report/definition/definition';
import { fileCredentialsSource } from '../shared/secrets/credentials-file';
import type { CredentialsSource } from '../shared/secrets/credential-refresh';
import { SecretsManagerCredentialsSource } from '../shared/secrets/secret-source';
import { describeError, type CommandIo } from './export-command';
import { formatDiscovery, starterDefinition } from './discover-output';
import { committableSecretWarning } from './committable-secret';
import { addressProblem, discover, unansweredProblem } from './discover-probe';

export const DISCOVER_USAGE = `Usage: npm run discover -- (--credentials <credentials.json> | --secret-id <id>) [--write <report.json>]

  Checks the credentials against each of the four API groups (Risk, Strategic Themes & OKRs,
  PI Objectives, PI Board Items): which answer and which refuse, and why. Then lists what the user
  may read: collections, boards (id, title, state, tracker family), risk registers (key, title,
  linked boards), portfolio themes and strategic themes.

  --credentials  planning API credentials file {email, apiKey, baseUrl, legacyBaseUrl, companyPrefix}
  --secret-id    read those credentials from AWS Secrets Manager instead
  --write        write a starter report definition selecting everything found (an existing file is
                 not overwritten); export it with npm run export -- --report <report.json> ...

  Report definitions may name boards, collections, registers and themes by id, key or title.`;

function parse(argv: readonly string[]) {
  return parseOptions(argv, {
    credentials: { type: 'string' },
    'secret-id': { type: 'string' },
    write: { type: 'string' },
    help: { type: 'boolean', default: false },
  });
}

async function writeDefinition(path: string, definition: unknown): Promise<void> {
  try {
    await writeFile(path, `${JSON.stringify(definition, null, 2)}\n`, { flag: 'wx' });
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    const reason = code === 'EEXIST' ? 'the file exists already; give another name or remove it' : errorMessage(error);
    throw new ExporterError(`the report definition could not be written to "${path}": ${reason}`, { cause: error });
  }
}

/**
 * Runs the discover command; resolves with the exit code: 0 when at least one API group answered,
 * 1 when none did, when a group's address gave no answer at all (refused, unknown host, timeout),
 * when the company prefix or the addresses of the credentials keep a group from
 * answering (nothing is written then: a starter definition without those groups would mislead), or
 * when the credentials or --write failed; 2 for a usage error.
 */
export async function runDiscoverCommand(argv: readonly string[], io: CommandIo): Promise<number> {
  let args: ReturnType<typeof parse>;
  try {
    args = parse(argv);
    if (args.help) {
      io.stdout.write(`${DISCOVER_USAGE}\n`);
      return 0;
    }
    if (!args.credentials === !args['secret-id']) throw new UsageError('give exactly one of --credentials or --secret-id');
  } catch (error) {
    io.stderr.write(usageErrorLine('discover', (error as Error).message));
    return 2;
  }

  try {
    const config = loadCliConfig(io.env);
    if (args.credentials) io.stderr.write((await committableSecretWarning(resolve(io.cwd, args.credentials))) ?? '');
    const source: CredentialsSource = args.credentials
      ? fileCredentialsSource(resolve(io.cwd, args.credentials))
      : new SecretsManagerCredentialsSource({ secretId: args['secret-id']!, maxAgeSeconds: config.SECRET_MAX_AGE_SECONDS });
    const credentials = await source.getCredentials();
    const client = new PlanningApiClient({ clock: systemClock, log: silentLog, credentials, limiter: createLimiter(DEFAULT_API_CONCURRENCY), settings: resolveClientSettings({ maxResponseBytes: config.API_MAX_RESPONSE_BYTES }) });
    io.stdout.write(`checking ${credentials.email} against ${credentials.baseUrl} and ${credentials.legacyBaseUrl} (company prefix ${credentials.companyPrefix})\n\n`);
    const found = await discover(client);
    io.stdout.write(formatDiscovery(found));
    const answered = found.groups.some((g) => g.ok);
    const problem = unansweredProblem(found.groups) ?? addressProblem(found.groups, credentials)?.hint;
    if (problem) {
      io.stderr.write(`\n${problem}\n${args.write !== undefined ? 'no report definition written: fix the credentials and run discover again.\n' : ''}`);
      return 1;
    }
    if (args.write !== undefined) {
      const definition = starterDefinition(found, credentials.companyPrefix);
      if (!definition) {
        io.stderr.write('\nno report definition written: no API group answered with anything to export.\n');
        return 1;
      }
      // Checked like any definition before it is written, so the file exports as it is.
      parseReportDefinition(definition, 'the starter report definition');
      const path = resolve(io.cwd, args.write);
      await writeDefinition(path, definition);
      io.stdout.write(
        `\nwrote a starter report definition to ${path}\n` +
          `  export it: npm run export -- --report ${args.write} ${args.credentials ? `--credentials ${args.credentials}` : `--secret-id ${args['secret-id']}`} --out <dir>\n`,
      );
    }
    if (!answered) io.stderr.write('\nno API group answered: check the e-mail, the API key and the company prefix of the credentials.\n');
    return answered ? 0 : 1;
  } catch (error) {
    io.stderr.write(`\ndiscover failed: ${describeError(error)}\n`);
    return 1;
  }
}
