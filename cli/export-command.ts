import { stat } from 'node:fs/promises';
import { readRegularFile } from '../shared/core/files/regular-file';
import { resolve } from 'node:path';
import { createS3Client } from '../shared/storage/s3-client';
import { formatBytes } from '../shared/core/format-bytes';
import { loadCliConfig } from '../shared/core/config';
import { createDynamoDbClient, DynamoDbLedger } from '../shared/ledger/dynamodb-ledger';
import type { Ledger } from '../shared/ledger/ledger';
import { LocalLedger } from '../shared/ledger/local-ledger';
import { scopedLedger, storageScope } from '../shared/ledger/scoped-ledger';
import { LocalDirectoryStorage } from '../shared/storage/local-storage';
import { S3Storage } from '../shared/storage/s3-storage';
import type { Storage } from '../shared/storage/storage';
import { DEFAULT_API_CONCURRENCY } from '../shared/core/defaults';
import { CredentialsError, errorMessage, ExporterError, PlanningApiError, ReportDefinitionError, StorageError } from '../shared/core/errors';
import { parseOptions, UsageError, usageErrorLine } from './usage';
import { createLogger } from '../shared/core/logger';
import { systemClock, type Clock } from '../shared/core/clock';
import { NO_EVENT_BUS } from '../shared/events/report-events';
import { JobStatusStore } from '../shared/job/status/job-status';
import { directoryOutbox } from '../shared/messages/outbox';
import { catalogOf } from '../shared/definitions/catalog';
import { RANDOM_RUN_IDS, RUN_DEFAULTS, type RunIds } from '../shared/report/run/context';
import { runJob, type JobContext, type JobOutcome } from '../shared/job/run-job';
import type { DeliveryPorts } from '../shared/job/stages/delivery-ports';
import { parseReportDefinitionJson, type ReportDefinition } from '../shared/report/definition/definition';
import { resolveExportSettings } from '../shared/report/definition/export-settings';
import type { ExportResult } from '../shared/report/run/result';
import { LOCAL_LINK_KEYS, localStackAddress } from './local-link-keys';
import { operatorFindings, sameFindings } from '../shared/report/dataset/field-audit';
import { manifestSchema } from '../shared/report/manifest/manifest';
import { fileCredentialsSource } from '../shared/secrets/credentials-file';
import type { CredentialsSource } from '../shared/secrets/credential-refresh';
import { SecretsManagerCredentialsSource } from '../shared/secrets/secret-source';
import { addressHint } from './address-hint';
import { committableSecretWarning } from './committable-secret';
import { configuredReports, isReportFile, unknownReportError } from './report-argument';
import { printDryRun } from './export-dry-run';
import { terminalProgress, type TerminalProgress } from './progress';
import { countOf } from './words';

export const EXPORT_USAGE = `Usage: npm run export -- --report <definition.json | name> (--credentials <credentials.json> | --secret-id <id>)
                         (--out <dir> | --bucket <bucket> [--prefix <prefix>] --ledger-table <table>)
                         [--run-id <id>] [--outbox <dir>] [--concurrency <n>] [--timeout <time>] [--dry-run] [--quiet] [--verbose]

  --report       report definition file (JSON, see README), or the name of a report configured in
                 cdk.json (reportExporter.reports)
  --credentials  planning API credentials file {email, apiKey, baseUrl, legacyBaseUrl, companyPrefix}
  --secret-id    read those credentials from AWS Secrets Manager instead
  --out          write into this local directory
  --bucket       write to this S3 bucket (AWS_ENDPOINT_URL_S3 points at a local S3 such as s3rver)
  --prefix       key prefix inside the bucket (default: none)
  --ledger-table DynamoDB table of the run ledger (required with --bucket: S3 alone cannot stop two
                 attempts of one run from overwriting each other; the stack's LedgerTableName output).
                 With --out the ledger is the directory's .ledger/ (lock files)
  --run-id       reuse a run id (a completed run is not exported twice)
  --outbox       write the run's messages (e-mail, chat) into <dir>/<run folder>/ instead of sending
                 them: email.html, email.eml, slack.json, teams.json, byte for byte what the deployed
                 stack sends (links signed for the local stack, npm run local). Without it the
                 command line sends no messages
  --concurrency  planning API requests in flight (default ${DEFAULT_API_CONCURRENCY})
  --timeout      give up on the planning API after this long overall, retries included
                 (e.g. 90s, 15m, 1h; a bare number is seconds; default: no overall limit)
  --dry-run      check the definition, the credentials, the company prefix and every selector with
                 the planning API's list calls alone, and print what the run would fetch (boards,
                 registers, themes; an estimate of its requests) and write (run folder, files per
                 format, Parquet keys); fetches no data and writes nothing (no lease, no ledger
                 entry, no file). Exits 1 listing every problem when the plan fails
  --quiet        print only errors and the one line saying where the run went
  --verbose      structured logs on stderr`;

export interface CommandIo {
  readonly stdout: NodeJS.WritableStream & { isTTY?: boolean };
  readonly stderr: NodeJS.WritableStream;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
}

function parse(argv: readonly string[]) {
  return parseOptions(argv, {
    report: { type: 'string' },
    credentials: { type: 'string' },
    'secret-id': { type: 'string' },
    out: { type: 'string' },
    bucket: { type: 'string' },
    prefix: { type: 'string' },
    'ledger-table': { type: 'string' },
    'run-id': { type: 'string' },
    outbox: { type: 'string' },
    concurrency: { type: 'string' },
    timeout: { type: 'string' },
    'dry-run': { type: 'boolean', default: false },
    quiet: { type: 'boolean', default: false },
    verbose: { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
  });
}

/** Runs the export command; resolves with the process exit code (0 ok, 1 failed, 2 usage). */
export async function runExportCommand(
  argv: readonly string[],
  io: CommandIo,
  /** The run's clock and run ids: the multi-week demo dates each weekly run; the command line uses the real ones. */
  options: { readonly clock?: Clock; readonly ids?: RunIds } = {},
): Promise<number> {
  let args: ReturnType<typeof parse>;
  let progress: TerminalProgress | undefined;
  try {
    args = parse(argv);
    if (args.help) {
      io.stdout.write(`${EXPORT_USAGE}\n`);
      return 0;
    }
    if (!args.report) throw new UsageError('--report is required');
    if (!args.credentials === !args['secret-id']) throw new UsageError('give exactly one of --credentials or --secret-id');
    if (!args.out === !args.bucket) throw new UsageError('give exactly one of --out or --bucket');
    if (args.prefix !== undefined && !args.bucket) throw new UsageError('--prefix goes with --bucket');
    if (args['ledger-table'] !== undefined && !args.bucket) throw new UsageError('--ledger-table goes with --bucket (--out keeps its ledger in <dir>/.ledger)');
    if (args.bucket && !args['ledger-table']) {
      throw new UsageError(
        '--bucket needs --ledger-table <DynamoDB table> (the stack output LedgerTableName): the run ledger is what keeps two attempts of one run from overwriting each other in S3',
      );
    }
    if (args.concurrency !== undefined && !/^[1-9]\d{0,2}$/.test(args.concurrency)) {
      throw new UsageError('--concurrency must be a whole number from 1 to 999');
    }
    if (args.timeout !== undefined && parseDuration(args.timeout) === undefined) {
      throw new UsageError('--timeout must be a duration such as 90s, 15m or 1h (a bare number is seconds)');
    }
  } catch (error) {
    io.stderr.write(usageErrorLine('export', (error as Error).message));
    return 2;
  }

  // For the address hint after a failure: the credentials and the response limit the run used.
  let planning: { source: CredentialsSource; maxResponseBytes: number | undefined } | undefined;
  // Whether the run was started: a definition or credentials file that could not be read publishes nothing to speak of.
  let started = false;
  try {
    const config = loadCliConfig(io.env);
    const definition = await reportDefinitionOf(args.report, io.cwd);
    if (args.credentials) io.stderr.write((await committableSecretWarning(resolve(io.cwd, args.credentials))) ?? '');
    const credentials: CredentialsSource = args.credentials
      ? fileCredentialsSource(resolve(io.cwd, args.credentials))
      : new SecretsManagerCredentialsSource({ secretId: args['secret-id']!, maxAgeSeconds: config.SECRET_MAX_AGE_SECONDS });
    planning = { source: credentials, maxResponseBytes: config.API_MAX_RESPONSE_BYTES };
    const storage: Storage = args.bucket
      ? new S3Storage({
          bucket: args.bucket,
          ...(args.prefix !== undefined && { prefix: args.prefix }),
          client: createS3Client(config.AWS_ENDPOINT_URL_S3),
        })
      : new LocalDirectoryStorage(await checkOutDirectory(resolve(io.cwd, args.out!)));
    const ledger: Ledger = args.bucket
      ? scopedLedger(new DynamoDbLedger({ tableName: args['ledger-table']!, client: createDynamoDbClient() }), storageScope(args.bucket, args.prefix))
      : new LocalLedger(resolve(io.cwd, args.out!, '.ledger'));
    const log = args.verbose ? createLogger({ level: 'DEBUG' }) : createLogger({ level: 'SILENT' });
    log.appendKeys({ report: definition.name });

    if (!args.quiet && !args['dry-run']) io.stdout.write(`exporting "${definition.name}" to ${storage.describe()}\n`);
    progress = args.quiet || args['dry-run'] ? undefined : terminalProgress(io.stdout);
    const clock = options.clock ?? systemClock;
    const timeoutMs = args.timeout === undefined ? undefined : parseDuration(args.timeout);
    const settings = resolveExportSettings({
      maxResponseBytes: config.API_MAX_RESPONSE_BYTES,
      maxListPages: config.API_MAX_LIST_PAGES,
      maxListBytes: config.API_MAX_LIST_BYTES,
      deadline: timeoutMs === undefined ? undefined : clock().getTime() + timeoutMs,
      concurrency: args.concurrency === undefined ? undefined : Number(args.concurrency),
    });
    const published: ExportResult[] = [];
    // The error behind a failed job, whole: on the command line the operator reads it (runJob's reason is the public one).
    let failure: Error | undefined;
    const context: JobContext = {
      clock,
      log,
      ids: options.ids ?? RANDOM_RUN_IDS,
      ...RUN_DEFAULTS,
      storage,
      ledger,
      settings,
      planning: { credentials },
      definitions: catalogOf({ [definition.name]: definition }),
      jobs: new JobStatusStore(ledger),
      events: NO_EVENT_BUS,
      ...(args.outbox !== undefined && outboxDelivery(resolve(io.cwd, args.outbox), localStackAddress(io.env).apiUrl)),
      onProgress: progress?.onProgress,
      onComplete: (result) => published.push(result),
      onFailure: (error) => (failure = error instanceof Error ? error : new Error(String(error))),
    };
    const request = { report: definition.name, source: 'manual' as const, ...(args['run-id'] !== undefined && { runId: args['run-id'] }) };
    if (args['dry-run']) {
      await printDryRun(request, context, io.stdout, storage);
      return 0;
    }
    started = true;
    const outcome = await runJob(request, context)
      .catch((error: unknown) => {
        throw failure ?? error;
      })
      .finally(() => progress?.stop());
    if (outcome.status !== 'succeeded') throw failure ?? new ExporterError(outcome.reason);
    for (const result of published) {
      const findings = args.quiet ? '' : await findingsLine(result, storage, args.verbose);
      io.stdout.write(args.quiet ? `${whereItWent(result, storage)}\n` : describeResult(result, storage, findings));
      // Published all the same: latest.json is a mirror of the ledger, rewritten by the next publish.
      if (result.latestProblem !== undefined) io.stderr.write(`warning: ${result.latestProblem}\n`);
    }
    if (!args.quiet) io.stdout.write(describeDelivery(outcome, definition));
    return 0;
  } catch (error) {
    io.stderr.write(`\n${args['dry-run'] ? 'dry run' : 'export'} failed: ${describeError(error)}\n`);
    const hint = planning && (await addressHint(error, planning.source, planning.maxResponseBytes));
    if (hint) io.stderr.write(`${hint}\n`);
    if (args.verbose && error instanceof Error && error.stack) io.stderr.write(`${error.stack}\n`);
    if (args['dry-run']) io.stderr.write('nothing was written.\n');
    // A definition or credentials that could not be read or planned stops before any lease: nothing to unpublish.
    else if (started && !(error instanceof ReportDefinitionError || error instanceof CredentialsError)) io.stderr.write('no run was published: the manifest and latest.json are unchanged.\n');
    return 1;
  }
}

/** The sender of messages written to an outbox when the definition names none. */
export const OUTBOX_SENDER = 'reports@example.invalid';

/**
 * Messages into files instead of SES and webhooks: the same deliver stage, with links signed by the
 * local stack's keys (cli/local-link-keys.ts), so they open against `npm run local`.
 */
function outboxDelivery(dir: string, localApiUrl: string): DeliveryPorts {
  return {
    outbox: directoryOutbox(dir),
    sender: OUTBOX_SENDER,
    links: { baseUrl: localApiUrl, keys: () => Promise.resolve(LOCAL_LINK_KEYS) },
  };
}

/** What became of the run's messages: the files written, or why none went out where the report has readers. */
function describeDelivery(outcome: Extract<JobOutcome, { status: 'succeeded' }>, definition: ReportDefinition): string {
  const { delivery, alerts } = outcome;
  // The alerts (docs/reports.md): the files the outbox holds, or what the rules found.
  const alerted = !alerts ? '' : alerts.written.length > 0 ? listed('alerts (written, not sent)', alerts.written) : `  alerts   ${alerts.reason}\n`;
  if (delivery.written.length > 0) return `${listed('messages (written, not sent)', delivery.written)}${alerted}`;
  const readers = definition.email !== undefined || (definition.delivery?.channels.length ?? 0) > 0 || (definition.deliveries?.length ?? 0) > 0;
  return `${readers ? `  messages ${delivery.reason}\n` : ''}${alerted}`;
}

const listed = (heading: string, paths: readonly string[]) => `${[`  ${heading}:`, ...paths.map((path) => `    ${path}`)].join('\n')}\n`;

/** `90`, `90s`, `15m`, `1h` → milliseconds; undefined when malformed or zero. */
export function parseDuration(text: string): number | undefined {
  const match = /^(\d{1,7})(ms|s|m|h)?$/.exec(text.trim());
  if (!match) return undefined;
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[match[2] ?? 's'] ?? 1000;
  const ms = Number(match[1]) * unit;
  return ms > 0 ? ms : undefined;
}

/**
 * The definition `--report` names: a file (anything at that path is read as one, and reading it says
 * what is wrong), else a report cdk.json configures, by name; neither is one error naming both.
 */
async function reportDefinitionOf(given: string, cwd: string): Promise<ReportDefinition> {
  if (await isReportFile(given, cwd)) return parseReportDefinitionJson(await readDefinition(resolve(cwd, given)), `report definition ${given}`);
  const configured = await configuredReports(cwd);
  const named = configured.find((r) => r.name === given);
  if (named) return parseReportDefinitionJson(JSON.stringify(named), `report "${given}" of cdk.json`);
  throw await unknownReportError(given, cwd, [{ where: 'cdk.json', names: configured.map((r) => r.name) }], "a report definition file (such as examples/demo-report.json) or the name of a report cdk.json configures");
}

async function readDefinition(path: string): Promise<string> {
  return readRegularFile(path, { label: `report definition "${path}"`, error: (message, cause) => new ReportDefinitionError(message, [], { cause }) });
}

/**
 * Fails before anything is fetched when --out cannot be a directory: a file there (or under a file)
 * would otherwise only show up after the whole export had been downloaded. Absent is fine (created).
 */
async function checkOutDirectory(path: string): Promise<string> {
  try {
    const info = await stat(path);
    if (!info.isDirectory()) throw new StorageError(`--out "${path}" is not a directory (a file is in the way); give a directory`);
  } catch (error) {
    if (error instanceof StorageError) throw error;
    const code = (error as { code?: unknown }).code;
    if (code === 'ENOENT') return path;
    throw new StorageError(`--out "${path}" cannot be used: ${errorMessage(error)}`, { cause: error });
  }
  return path;
}

/** The one line of --quiet: where the run went (or that it had gone there before). */
function whereItWent(result: ExportResult, storage: Storage): string {
  const again = result.written ? '' : ' (completed before; nothing exported again)';
  return `${result.manifest.report} run ${result.manifest.runId}: ${storage.describe(result.manifestKey)}${again}`;
}

function describeResult(result: ExportResult, storage: Storage, findings: string): string {
  const lines = [
    result.written ? '\nexport complete' : '\nthis run id had already completed; nothing was exported again',
    `  run      ${result.manifest.runId}`,
    `  manifest ${storage.describe(result.manifestKey)}`,
    ...result.manifest.files.map(
      (f) => `  ${f.format.padEnd(8)} ${storage.describe(`${result.runFolder}/${f.path}`)} (${formatBytes(f.bytes)}${Object.keys(f.rows).length > 0 ? `, ${countOf(Object.values(f.rows).reduce((a, b) => a + b, 0), 'row')}` : ''})`,
    ),
    ...(result.manifest.tables ?? []).map(
      (t) => `  parquet  ${storage.describe(`${result.manifest.report}/${t.path}`)} (${formatBytes(t.bytes)}, ${countOf(t.rows, 'row')})`,
    ),
    result.latestUpdated && result.latestProblem === undefined ? `  latest   ${storage.describe(`${result.manifest.report}/latest.json`)}` : '',
    result.latestProblem !== undefined ? `  latest   ${storage.describe(`${result.manifest.report}/latest.json`)} NOT updated (see the warning)` : '',
    findings,
  ];
  return `${lines.filter((l) => l !== '').join('\n')}\n`;
}

/**
 * One line when the served fields no column holds (or of an unexpected shape) differ from the earlier
 * run's this one was compared with, or always with --verbose: the operator hears of a change once,
 * not every run (readers never: the manifest lists them, the owners are told once, field-notice.ts).
 */
async function findingsLine(result: ExportResult, storage: Storage, verbose: boolean): Promise<string> {
  const findings = operatorFindings(result.manifest.summary);
  if (!verbose) {
    const baseline = result.changes.baseline;
    const bytes = baseline ? await storage.getObject(baseline.manifestKey).catch(() => undefined) : undefined;
    const earlier = bytes ? manifestSchema.safeParse(JSON.parse(Buffer.from(bytes).toString('utf8'))) : undefined;
    const before = earlier?.success ? operatorFindings(earlier.data.summary) : [];
    if (sameFindings(findings, before)) return '';
  }
  if (findings.length === 0) return verbose ? '' : '  note     the server no longer sends fields no column holds';
  const tables = [...new Set(findings.map((f) => f.slice(0, f.indexOf(':'))))];
  return `  note     ${countOf(findings.length, 'field')} the server sent ${findings.length === 1 ? 'is' : 'are'} in no column or of an unexpected shape (${tables.join(', ')}): see summary.unexportedFields and summary.shapeWarnings in the manifest`;
}

/** Our errors carry messages written for users; anything else is unexpected and says so. */
export function describeError(error: unknown): string {
  // The client's operation name (`listRiskRegisters: …`) is for the log; a person reads the sentence after it.
  if (error instanceof PlanningApiError && error.message.startsWith(`${error.operation}: `)) return error.message.slice(error.operation.length + 2);
  if (error instanceof ExporterError) return error.message;
  if (error instanceof Error) return `unexpected error: ${error.message} (run with --verbose for details)`;
  return `unexpected error: ${String(error)}`;
}
