import { readRegularFile } from '../shared/core/files/regular-file';
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { loadCliConfig } from '../shared/core/config';
import { errorMessage, ReportDefinitionError } from '../shared/core/errors';
import { formatDateTime } from '../shared/core/format';
import { jsonSyntaxProblem, stripBom } from '../shared/core/text';
import { WEBHOOK_SECRET_PREFIX } from '../shared/core/names';
import { DefinitionStore } from '../shared/definitions/definition-store';
import { createSchedulerClient, ScheduleReader } from '../shared/definitions/scheduler-client';
import { parseStoredDefinition, type StoredDefinition } from '../shared/definitions/stored-definition';
import { listReports, type ReportListEntry } from '../shared/ops/report-list';
import { createDynamoDbClient, DynamoDbLedger } from '../shared/ledger/dynamodb-ledger';
import type { Ledger } from '../shared/ledger/ledger';
import { LocalLedger } from '../shared/ledger/local-ledger';
import { scopedLedger, storageScope } from '../shared/ledger/scoped-ledger';
import { RunNameClaims } from '../shared/report/definition/slices';
import { LocalDirectoryStorage } from '../shared/storage/local-storage';
import { createS3Client } from '../shared/storage/s3-client';
import { S3Storage } from '../shared/storage/s3-storage';
import type { Storage } from '../shared/storage/storage';
import type { CommandIo } from './export-command';
import { UsageError, usageErrorLine } from './usage';
import { emailAddressProblem } from '../shared/email/email-address';
import { resubscribeCommand, SuppressionList } from '../shared/messages/recipients/suppressions';
import { alertsLine } from '../shared/ops/report-alerts';

export const REPORTS_USAGE = `usage: npm run reports -- <command> [options]

Reports are stored one JSON object each under definitions/ of the stack's definitions bucket
(output DefinitionsBucketName); uploading one is all it takes: its schedule follows within a
minute (docs/reports.md). A file holds {"definition": {...}, "schedule": {"cron", "timeZone"} | null},
or a bare definition (on demand only).

commands:
  validate <files...>            check every file; every problem is listed with its path
  push <files...> --bucket <b>   validate all, then upload each (nothing is uploaded if one is invalid;
                                 when an upload fails, the ones before it are put back as they were)
  list --bucket <b> | --dir <folder>   name, schedule, next run, last run and its result
       [--schedule-group <g>]      also check each schedule exists (output ScheduleGroupName)
       [--reports-bucket <r> --ledger-table <t>]   last runs of the stack (outputs ReportsBucketName, LedgerTableName)
       [--out <dir>]               with --dir: last runs of local exports (npm run export -- --out <dir>)
  remove <names...> --bucket <b> delete stored reports (their schedules go with them)
  resubscribe <report> <address> --ledger-table <t>   e-mail an address the report stopped e-mailing
                                 (it unsubscribed, bounced or complained; list shows them) again
                                 (--out <dir> for local exports)

  --dir <folder>   use a local folder instead of --bucket (its definitions/ subfolder)
  --outputs <file> the stack outputs of \`cdk deploy --outputs-file <file>\` (default cdk-outputs.json, as
                   npm run link reads them): without --bucket or --dir, push, list and remove take the
                   definitions bucket from it, and list the schedule group and the last runs too
  --help           this text`;

const OPTIONS = {
  bucket: { type: 'string' },
  dir: { type: 'string' },
  'schedule-group': { type: 'string' },
  'reports-bucket': { type: 'string' },
  'reports-prefix': { type: 'string' },
  'ledger-table': { type: 'string' },
  out: { type: 'string' },
  outputs: { type: 'string' },
  help: { type: 'boolean', default: false },
} as const;

type Args = ReturnType<typeof parseArgs<{ args: string[]; strict: true; allowPositionals: true; options: typeof OPTIONS }>>;

/** Runs `npm run reports`; resolves with the exit code (0 ok, 1 failed or invalid, 2 usage). */
export async function runReportsCommand(argv: readonly string[], io: CommandIo, options: { now?: () => Date } = {}): Promise<number> {
  let args: Args;
  try {
    args = parseArgs({ args: [...argv], strict: true, allowPositionals: true, options: OPTIONS });
  } catch (error) {
    return usage(io, errorMessage(error));
  }
  const [command, ...rest] = args.positionals;
  if (args.values.help || command === undefined) {
    io.stdout.write(`${REPORTS_USAGE}\n`);
    return command === undefined && !args.values.help ? 2 : 0;
  }
  try {
    switch (command) {
      case 'validate':
        return (await validateFiles(rest, io)).ok ? 0 : 1;
      case 'push':
        return await push(rest, await withStackOutputs(args.values, io), io);
      case 'list':
        return await list(await withStackOutputs(args.values, io), io, (options.now ?? (() => new Date()))());
      case 'remove':
        return await remove(rest, await withStackOutputs(args.values, io), io);
      case 'resubscribe':
        return await resubscribe(rest, args.values, io, (options.now ?? (() => new Date()))());
      default:
        throw new UsageError(`unknown command "${command}"`);
    }
  } catch (error) {
    if (error instanceof UsageError) return usage(io, error.message);
    io.stderr.write(`error: ${errorMessage(error)}\n`);
    return 1;
  }
}

function usage(io: CommandIo, message: string): number {
  io.stderr.write(usageErrorLine('reports', message));
  return 2;
}

/** Reads and validates each file; prints one line per good file and every problem of a bad one. */
async function validateFiles(files: readonly string[], io: CommandIo): Promise<{ ok: boolean; reports: StoredDefinition[] }> {
  if (files.length === 0) throw new UsageError('name the files to check');
  const reports: StoredDefinition[] = [];
  let ok = true;
  const byName = new Map<string, string>();
  const runNames = new RunNameClaims();
  for (const file of files) {
    try {
      const stored = await readReportFile(resolve(io.cwd, file), file);
      const name = stored.parsed.name;
      if (byName.has(name)) throw new ReportDefinitionError(`${file} is invalid:\n  - definition.name: "${name}" is also the name in ${byName.get(name)}`, []);
      const clashes = runNames.claim(stored.parsed, file).map((c) => ({ path: `definition.${c.path}`, message: c.message }));
      if (clashes.length > 0) throw new ReportDefinitionError(`${file} is invalid:\n${clashes.map((c) => `  - ${c.path}: ${c.message}`).join('\n')}`, clashes);
      byName.set(name, file);
      reports.push(stored);
      io.stdout.write(`ok  ${file}: ${name}, ${stored.schedule ? `${stored.schedule.cron} ${stored.schedule.timeZone}` : 'on demand'}\n`);
      const alerts = alertsLine(stored.parsed);
      if (alerts !== undefined) io.stdout.write(`    alerts: ${alerts}\n`);
      for (const warning of warningsOf(stored)) io.stdout.write(`    warning: ${warning}\n`);
    } catch (error) {
      if (!(error instanceof ReportDefinitionError)) throw error;
      ok = false;
      io.stderr.write(`${error.message}\n`);
    }
  }
  io.stdout.write(`${reports.length} of ${files.length} file${files.length === 1 ? '' : 's'} valid\n`);
  return { ok, reports };
}

async function readReportFile(path: string, file: string): Promise<StoredDefinition> {
  const text = await readRegularFile(path, { label: 'the file', error: (message) => new ReportDefinitionError(`${file} is invalid:\n  - (file): ${message}`, []) });
  let value: unknown;
  try {
    value = JSON.parse(stripBom(text));
  } catch (error) {
    throw new ReportDefinitionError(`${file} is invalid:\n  - (root): not valid JSON: ${jsonSyntaxProblem(stripBom(text))}`, [], { cause: error });
  }
  // A bare definition (the export command's file) is a report run on demand only.
  const stored = typeof value === 'object' && value !== null && 'definition' in value ? value : { definition: value, schedule: null };
  return parseStoredDefinition(stored, file);
}

/** Webhook secrets outside the prefix are readable only when cdk.json names the report. */
function warningsOf(stored: StoredDefinition): string[] {
  return [...(stored.parsed.delivery?.channels ?? []), ...(stored.parsed.alerts?.to?.channels ?? [])]
    .filter((c) => !c.webhook.secretId.startsWith(WEBHOOK_SECRET_PREFIX))
    .map(
      (c) =>
        `the ${c.type} webhook secret "${c.webhook.secretId}" is outside "${WEBHOOK_SECRET_PREFIX}", which a stored report's function may read: ` +
        `store the webhook URLs in a secret named ${WEBHOOK_SECRET_PREFIX}<name> and set delivery.channels[].webhook.secretId to it (or configure the report in cdk.json)`,
    );
}

async function push(files: readonly string[], values: Args['values'], io: CommandIo): Promise<number> {
  const store = definitionStore(values, io);
  const { ok, reports } = await validateFiles(files, io);
  if (!ok) {
    io.stderr.write('nothing pushed: fix the files above first\n');
    return 1;
  }
  try {
    await store.putAll(reports);
  } catch (error) {
    io.stderr.write(`error: ${errorMessage(error)}\n`);
    return 1;
  }
  // Said once all are stored: a failed write puts back the ones before it.
  for (const stored of reports) io.stdout.write(`pushed ${stored.parsed.name} to ${store.describeReport(stored.parsed.name)}\n`);
  // The list command of the same store, so the suggestion runs as printed.
  const where = values.bucket !== undefined ? `--bucket ${values.bucket}` : `--dir ${values.dir!}`;
  io.stdout.write(`schedules follow within a minute; check with: npm run reports -- list ${where}\n`);
  return 0;
}

async function remove(names: readonly string[], values: Args['values'], io: CommandIo): Promise<number> {
  if (names.length === 0) throw new UsageError('name the reports to remove');
  const store = definitionStore(values, io);
  const known = new Set(await store.names());
  const unknown = names.filter((n) => !known.has(n));
  if (unknown.length > 0) {
    io.stderr.write(`error: no stored report named ${unknown.map((n) => `"${n}"`).join(', ')}; nothing removed\n`);
    return 1;
  }
  for (const name of names) {
    await store.remove(name);
    io.stdout.write(`removed ${name}\n`);
  }
  return 0;
}

async function list(values: Args['values'], io: CommandIo, now: Date): Promise<number> {
  const store = definitionStore(values, io);
  const runs = runHistory(values, io);
  const scheduler = values['schedule-group'] ? new ScheduleReader(values['schedule-group'], createSchedulerClient(io.env.AWS_ENDPOINT_URL_SCHEDULER)) : undefined;
  const entries = await listReports({ store, now, ...runs, ...(scheduler && { scheduler }) });
  io.stdout.write(`${formatList(entries)}\n`);
  return entries.some((e) => e.problem !== undefined || e.scheduleState === 'missing' || e.scheduleState === 'outdated') ? 1 : 0;
}

/**
 * The options with what the stack's outputs file gives (`cdk deploy --outputs-file`, read as `npm run
 * link` reads it), when neither --bucket nor --dir names the store: the definitions bucket, and for
 * `list` the schedule group and where the runs are, unless given. The options as they are otherwise,
 * or when the default file is not there.
 */
async function withStackOutputs(values: Args['values'], io: CommandIo): Promise<Args['values']> {
  if (values.bucket !== undefined || values.dir !== undefined || values.out !== undefined) return values;
  const path = resolve(io.cwd, values.outputs ?? 'cdk-outputs.json');
  if (values.outputs === undefined && !(await stat(path).then(() => true, () => false))) return values;
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readRegularFile(path, { label: 'it', error: (message) => new ReportDefinitionError(message, []) }));
  } catch (error) {
    throw new UsageError(`cannot read the stack outputs "${path}" (${errorMessage(error)}): deploy with npx cdk deploy --outputs-file cdk-outputs.json, or give --bucket`);
  }
  const stacks = Object.values(typeof parsed === 'object' && parsed !== null ? parsed : {}) as Record<string, unknown>[];
  const stack = stacks.find((s) => typeof s.DefinitionsBucketName === 'string');
  if (!stack) throw new UsageError(`"${path}" has no stack with a DefinitionsBucketName output: give --bucket`);
  const text = (key: string): string | undefined => (typeof stack[key] === 'string' ? stack[key] : undefined);
  const group = values['schedule-group'] ?? text('ScheduleGroupName');
  const ledger = text('LedgerTableName');
  const reports = text('ReportsBucketName');
  const runs = values['ledger-table'] === undefined && values['reports-bucket'] === undefined && ledger !== undefined && reports !== undefined;
  return {
    ...values,
    bucket: stack.DefinitionsBucketName as string,
    ...(group !== undefined && { 'schedule-group': group }),
    ...(runs && { 'ledger-table': ledger, 'reports-bucket': reports }),
  };
}

function definitionStore(values: Args['values'], io: CommandIo): DefinitionStore {
  if (!values.bucket && !values.dir && values.out !== undefined) {
    // --out names where runs are, not which reports exist: those come from a store.
    throw new UsageError(`--out gives the last runs of local exports; name the reports too: --dir <folder> (the folder reports push --dir wrote) or --bucket <b>`);
  }
  if (!values.bucket && !values.dir) {
    throw new UsageError('give --bucket <DefinitionsBucketName> or --dir <folder>, or run where cdk-outputs.json is (npx cdk deploy --outputs-file cdk-outputs.json)');
  }
  if (!values.bucket === !values.dir) throw new UsageError('give exactly one of --bucket or --dir');
  return values.bucket ? bucketDefinitionStore(values.bucket, io) : new DefinitionStore(new LocalDirectoryStorage(resolve(io.cwd, values.dir!)), { maxAgeSeconds: loadCliConfig(io.env).DEFINITIONS_MAX_AGE_SECONDS });
}

/** The stored reports of a stack's definitions bucket (output DefinitionsBucketName), as every command reaches them. */
export function bucketDefinitionStore(bucket: string, io: CommandIo): DefinitionStore {
  const config = loadCliConfig(io.env);
  return new DefinitionStore(new S3Storage({ bucket, prefix: '', client: createS3Client(config.AWS_ENDPOINT_URL_S3) }), { maxAgeSeconds: config.DEFINITIONS_MAX_AGE_SECONDS });
}

function runHistory(values: Args['values'], io: CommandIo): { ledger?: Ledger; storage?: Storage } {
  if (values.out !== undefined) {
    if (values['ledger-table'] !== undefined || values['reports-bucket'] !== undefined) throw new UsageError('give --out or --reports-bucket with --ledger-table, not both');
    return { ledger: new LocalLedger(resolve(io.cwd, values.out, '.ledger')), storage: new LocalDirectoryStorage(resolve(io.cwd, values.out)) };
  }
  if ((values['ledger-table'] === undefined) !== (values['reports-bucket'] === undefined)) throw new UsageError('--reports-bucket and --ledger-table go together');
  if (values['ledger-table'] === undefined) return {};
  const bucket = values['reports-bucket']!;
  const prefix = values['reports-prefix'] ?? 'reports';
  return {
    ledger: scopedLedger(new DynamoDbLedger({ tableName: values['ledger-table'], client: createDynamoDbClient() }), storageScope(bucket, prefix)),
    storage: new S3Storage({ bucket, prefix, client: createS3Client(loadCliConfig(io.env).AWS_ENDPOINT_URL_S3) }),
  };
}

/** `resubscribe <report> <address>`: the owner lifts a suppression of any reason (unsubscribed, bounced or complained); the reader's link lifts only their own unsubscribe. */
async function resubscribe(positionals: readonly string[], values: Args['values'], io: CommandIo, now: Date): Promise<number> {
  const [report, address] = positionals;
  if (report === undefined || address === undefined || positionals.length > 2) throw new UsageError('give the report and one address: resubscribe <report> <address>');
  // A mistyped address would only find nothing to lift: say what is wrong with it instead.
  const problem = emailAddressProblem(address);
  if (problem !== undefined) throw new UsageError(`the address ${problem}`);
  if ((values['ledger-table'] === undefined) === (values.out === undefined)) throw new UsageError('give --ledger-table <t> (the stack output LedgerTableName) or --out <dir>');
  const ledger: Ledger =
    values.out !== undefined ? new LocalLedger(resolve(io.cwd, values.out, '.ledger')) : new DynamoDbLedger({ tableName: values['ledger-table']!, client: createDynamoDbClient() });
  const lifted = (await new SuppressionList(ledger).lift(report, address, now)) === 'lifted';
  io.stdout.write(lifted ? `${address} gets "${report}" by e-mail again from its next run\n` : `${address} was not suppressed for "${report}": nothing changed\n`);
  return 0;
}

/** One block per report: people read it in a terminal; names and results never truncate. */
export function formatList(entries: readonly ReportListEntry[]): string {
  if (entries.length === 0) return 'no stored reports';
  return entries
    .map((e) => {
      const lines = [`${e.name}${e.title !== e.name ? ` — ${e.title}` : ''}`];
      if (e.problem) return [...lines, `  INVALID: ${e.problem.replace(/\n/g, '\n  ')}`].join('\n');
      const state = e.scheduleState === 'missing' ? ' (SCHEDULE MISSING: re-sync it)' : e.scheduleState === 'outdated' ? ' (SCHEDULE OUTDATED: re-sync it)' : '';
      lines.push(`  schedule  ${e.schedule}${state}`);
      const crowd = (e.sameMinute ?? 1) > 1 ? ` (${e.sameMinute} reports at this minute)` : '';
      if (e.schedule !== 'on demand') lines.push(`  next run  ${e.nextRun ? formatDateTime(e.nextRun, zoneOf(e.schedule)) : '—'}${crowd}`);
      lines.push(`  last run  ${e.lastRun ? `${e.lastRun.at} (${e.lastRun.runId}): ${e.lastRun.result}` : 'none yet'}`);
      for (const a of e.alerts ?? []) lines.push(`  alerts    ${a}`);
      if (e.lastRun?.source) lines.push(`  read from ${e.lastRun.source}`);
      for (const s of e.notEmailed ?? []) lines.push(`  not e-mailed  ${s.address}: ${s.reason} since ${s.since} (${resubscribeCommand(e.name, s.address)})`);
      return lines.join('\n');
    })
    .join('\n');
}

function zoneOf(schedule: string): string {
  return schedule.slice(schedule.lastIndexOf(' ') + 1);
}
