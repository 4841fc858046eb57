import { readFileSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as z from 'zod';
import { emailAddress } from '../shared/email/email-address';
import { reportDefinitionSchema, type ReportDefinitionInput } from '../shared/report/definition/definition';
import { RunNameClaims } from '../shared/report/definition/slices';
import { scheduleSchema } from '../shared/definitions/stored-definition';
import { errorMessage } from '../shared/core/errors';
import { DEFAULT_API_RATE_PER_SECOND } from '../shared/core/defaults';
import { SCHEDULED_RUNS } from '../shared/core/names';
import { jsonErrorOffset, jsonSyntaxProblem, stripBom } from '../shared/core/text';

/**
 * Deployment configuration: the cdk.json context key `reportExporter` (or `-c reportExporter=...`),
 * validated with zod at synth time so a typo fails `cdk synth` with the key that is wrong instead of
 * deploying a Lambda that fails at 07:00 on Monday.
 */

export const CONTEXT_KEY = 'reportExporter';

/** The repository root: definition files are resolved against it, and the functions are bundled from it. */
export const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));

/** A configuration problem; the message names the context key (e.g. `reportExporter.reports[0].schedule.cron`). */
export class InfraConfigError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'InfraConfigError';
  }
}

const reportEntrySchema = z
  .strictObject({
    /** The definition inline (validated with the same schema the Lambdas use). */
    definition: z.unknown().optional(),
    /** Or a JSON file with the definition, relative to the repository root. */
    definitionFile: z.string().min(1).optional(),
    /** `null` (or absent): on demand only, through the API. */
    schedule: scheduleSchema.nullable().default(null),
  })
  .refine((r) => (r.definition === undefined) !== (r.definitionFile === undefined), {
    message: 'give exactly one of "definition" (inline object) or "definitionFile" (path relative to the repository)',
  });

const positiveInt = (min: number, max: number, fallback: number) => z.number().int().min(min).max(max).default(fallback);

const rawConfigSchema = z.strictObject({
  reports: z.array(reportEntrySchema).default([]),
  /** Days a run folder (and every other object under the reports prefix) is kept. */
  retentionDays: positiveInt(1, 3650, 90),
  /** Default sender for report e-mails; requires sesIdentityArn. */
  mailFrom: emailAddress.optional(),
  /** The SES identity (domain or address) ses:SendEmail is scoped to. Without it nothing is e-mailed. */
  sesIdentityArn: z
    .string()
    .regex(/^arn:aws[a-z-]*:ses:[a-z0-9-]+:\d{12}:identity\/\S+$/, 'must be an SES identity ARN: arn:aws:ses:<region>:<account>:identity/<domain or address>')
    .optional(),
  /** Name of an existing Secrets Manager secret with the planning API credentials. */
  planningSecretName: z
    .string()
    .regex(/^[A-Za-z0-9/_+=.@-]{1,512}$/, 'must be a Secrets Manager secret name (letters, digits and /_+=.@-)')
    .optional(),
  alarmEmail: emailAddress.optional(),
  exportMemoryMb: positiveInt(128, 10_240, 1024),
  /** Lambda's maximum is 15 minutes. */
  exportTimeoutMinutes: positiveInt(1, 15, 15),
  /**
   * Reserves this many of the account's Lambda slots for the export function, which also caps parallel
   * exports (the fan-out's steps run in the same function, so they count too). Off by default: a new
   * account's quota of 10 leaves nothing to reserve (Lambda keeps 10 unreserved), so the default stack
   * must deploy without it (docs/deploy.md, "Concurrency"; `npm run preflight` checks that it fits).
   */
  exportReservedConcurrency: z.number().int().min(2).max(1000).optional(),
  /**
   * Planning API requests per second that all runs of one tenant make together (the export function's
   * API_RATE_PER_SECOND, kept through the ledger): the tenant's rate limit, which the API does not publish.
   */
  planningApiRatePerSecond: positiveInt(1, 10_000, DEFAULT_API_RATE_PER_SECOND),
  /** Workers of one fan-out at once (the map's MaxConcurrency); default DEFAULT_FAN_OUT_WORKERS, at most half of a reservation. */
  fanOutWorkers: z.number().int().min(1).max(500).optional(),
  /**
   * Scheduled runs at once: the SQS event source's maximum concurrency on the scheduled-runs queue
   * (DEFAULT_SCHEDULED_CONCURRENCY; at most exportReservedConcurrency). SQS allows 2 to 1,000.
   */
  scheduledConcurrency: z.number().int().min(2).max(1000).optional(),
  /** Run links reuse an export of their report that finished less than this many minutes ago (0: never). */
  runLinkReuseMinutes: z.number().int().min(0).max(1440).optional(),
  /** Exports one run link may start per hour. */
  runLinkStartsPerHour: z.number().int().min(1).max(100).optional(),
  /**
   * POST /exports with a full inline definition: off by default. When on, such runs write under
   * `prefix` (no configured report may start with it) and e-mail only addresses of `emailDomains`.
   */
  inlineDefinitions: z
    .strictObject({
      enabled: z.boolean().default(false),
      prefix: z
        .string()
        .regex(/^[a-z0-9][a-z0-9-]{0,23}$/, 'must be lower-case letters, digits and hyphens, at most 24')
        .default('adhoc-'),
      emailDomains: z.array(z.string().regex(/^[a-z0-9.-]+\.[a-z]{2,}$/, 'must be a lower-case domain such as example.com')).default([]),
    })
    .default({ enabled: false, prefix: 'adhoc-', emailDomains: [] }),
});

export interface ConfiguredReport {
  /** The definition as configured (input form: the Lambdas apply defaults when they parse it). */
  readonly definition: ReportDefinitionInput & { readonly name: string };
  readonly schedule: { readonly cron: string; readonly timeZone: string } | null;
  /** Where it came from, for messages: `reportExporter.reports[0]` or the file. */
  readonly origin: string;
}

export interface InfraConfig {
  readonly reports: readonly ConfiguredReport[];
  readonly retentionDays: number;
  readonly mailFrom?: string;
  readonly sesIdentityArn?: string;
  readonly planningSecretName?: string;
  readonly alarmEmail?: string;
  readonly exportMemoryMb: number;
  readonly exportTimeoutMinutes: number;
  /** Planning API requests per second of one tenant, across its runs. */
  readonly planningApiRatePerSecond: number;
  /** Reserved concurrency of the export function; undefined: none (the default). */
  readonly exportReservedConcurrency?: number;
  /** Workers of one fan-out at once: at most half of exportReservedConcurrency when one is set (maxFanOutWorkers). */
  readonly fanOutWorkers: number;
  /** Scheduled runs at once (the scheduled-runs queue's event source maximum concurrency). */
  readonly scheduledConcurrency: number;
  readonly runLinkReuseMinutes?: number;
  readonly runLinkStartsPerHour?: number;
  readonly inlineDefinitions: { readonly enabled: boolean; readonly prefix: string; readonly emailDomains: readonly string[] };
}

function keyPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>(
    (acc, segment) => (typeof segment === 'number' ? `${acc}[${segment}]` : `${acc}.${String(segment)}`),
    CONTEXT_KEY,
  );
}

function fail(problems: readonly string[]): never {
  throw new InfraConfigError(`cdk.json context "${CONTEXT_KEY}" is invalid:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
}

function readDefinitionFile(file: string, repoRoot: string, key: string): unknown {
  const path = isAbsolute(file) ? file : resolve(repoRoot, file);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    fail([`${key}: cannot read "${file}" (${typeof code === 'string' ? code : String(error)}); paths are relative to the repository root`]);
  }
  try {
    return JSON.parse(stripBom(text)) as unknown;
  } catch {
    fail([`${key}: "${file}" is not valid JSON: ${jsonSyntaxProblem(stripBom(text))}`]);
  }
}

/**
 * Validates the context value. `repoRoot` resolves `definitionFile` paths. Every problem is listed,
 * each with its context key, so one synth shows all of them.
 */
export function loadInfraConfig(context: unknown, repoRoot: string = REPO_ROOT): InfraConfig {
  const raw = typeof context === 'string' ? parseContextString(context) : (context ?? {});
  const parsed = rawConfigSchema.safeParse(raw);
  if (!parsed.success) {
    fail(
      parsed.error.issues.map((issue) => {
        const message = issue.code === 'unrecognized_keys' ? `unknown key(s) ${issue.keys.map((k) => `"${k}"`).join(', ')}` : issue.message;
        return `${keyPath(issue.path)}: ${message}`;
      }),
    );
  }
  const config = parsed.data;
  const problems: string[] = [];

  const reports: ConfiguredReport[] = [];
  const runNames = new RunNameClaims();
  config.reports.forEach((entry, index) => {
    const key = keyPath(['reports', index]);
    const origin = entry.definitionFile !== undefined ? `${key}.definitionFile ("${entry.definitionFile}")` : `${key}.definition`;
    const value = entry.definitionFile !== undefined ? readDefinitionFile(entry.definitionFile, repoRoot, `${key}.definitionFile`) : entry.definition;
    const result = reportDefinitionSchema.safeParse(value);
    if (!result.success) {
      for (const issue of result.error.issues) {
        const message = issue.code === 'unrecognized_keys' ? `unknown field(s) ${issue.keys.map((k) => `"${k}"`).join(', ')}` : issue.message;
        const field = issue.path.length > 0 ? `.${issue.path.map(String).join('.')}` : '';
        problems.push(`${origin}${field}: ${message}`);
      }
      return;
    }
    const definition = result.data;
    if (reports.some((r) => r.definition.name === definition.name)) {
      problems.push(`${origin}: a report named "${definition.name}" is configured twice`);
    }
    // A report named like another's delivery (`port--b`, and the delivery `b` of `port`) would share its runs' folder.
    for (const clash of runNames.claim(definition, origin)) problems.push(`${origin}.${clash.path}: ${clash.message}`);
    if (definition.email !== undefined || (definition.deliveries ?? []).some((d) => d.email !== undefined)) {
      if (config.sesIdentityArn === undefined) {
        problems.push(`${origin}: report "${definition.name}" has e-mail recipients, so ${CONTEXT_KEY}.sesIdentityArn must be set`);
      }
      const senders = [definition.email, ...(definition.deliveries ?? []).map((d) => d.email)].filter((e) => e !== undefined);
      if (senders.some((e) => e.from === undefined) && config.mailFrom === undefined) {
        problems.push(`${origin}: report "${definition.name}" has e-mail recipients but no sender: set its email.from or ${CONTEXT_KEY}.mailFrom`);
      }
    }
    // The input form is kept (not the parsed output) so the Lambdas apply the defaults of the
    // schema version they were built with, and `overrides` replace exactly what was written.
    reports.push({ definition: value as ConfiguredReport['definition'], schedule: entry.schedule, origin });
  });

  if (config.inlineDefinitions.enabled) {
    for (const report of reports) {
      if (report.definition.name.startsWith(config.inlineDefinitions.prefix)) {
        problems.push(
          `${report.origin}: report "${report.definition.name}" starts with the inline prefix "${config.inlineDefinitions.prefix}"; rename it or change ${CONTEXT_KEY}.inlineDefinitions.prefix`,
        );
      }
    }
  }
  const reserved = config.exportReservedConcurrency;
  const fanOutWorkers = config.fanOutWorkers ?? (reserved === undefined ? DEFAULT_FAN_OUT_WORKERS : Math.min(DEFAULT_FAN_OUT_WORKERS, maxFanOutWorkers(reserved)));
  if (reserved !== undefined && fanOutWorkers > maxFanOutWorkers(reserved)) problems.push(tooManyWorkers(fanOutWorkers, reserved));
  const scheduledConcurrency = config.scheduledConcurrency ?? Math.min(DEFAULT_SCHEDULED_CONCURRENCY, reserved ?? Infinity);
  if (reserved !== undefined && scheduledConcurrency > reserved) {
    problems.push(
      `${CONTEXT_KEY}.scheduledConcurrency: ${scheduledConcurrency} is more than exportReservedConcurrency (${reserved}); the queue's poller would be throttled, and each throttle costs a scheduled run one of its ${SCHEDULED_RUNS.maxReceiveCount} receives`,
    );
  }
  if (config.mailFrom !== undefined && config.sesIdentityArn === undefined) {
    problems.push(`${CONTEXT_KEY}.mailFrom: needs ${CONTEXT_KEY}.sesIdentityArn (the SES identity the sender belongs to)`);
  }
  if (problems.length > 0) fail(problems);

  return {
    reports,
    retentionDays: config.retentionDays,
    exportMemoryMb: config.exportMemoryMb,
    exportTimeoutMinutes: config.exportTimeoutMinutes,
    planningApiRatePerSecond: config.planningApiRatePerSecond,
    fanOutWorkers,
    scheduledConcurrency,
    ...(reserved !== undefined && { exportReservedConcurrency: reserved }),
    inlineDefinitions: config.inlineDefinitions,
    ...(config.mailFrom !== undefined && { mailFrom: config.mailFrom }),
    ...(config.sesIdentityArn !== undefined && { sesIdentityArn: config.sesIdentityArn }),
    ...(config.planningSecretName !== undefined && { planningSecretName: config.planningSecretName }),
    ...(config.alarmEmail !== undefined && { alarmEmail: config.alarmEmail }),
    ...(config.runLinkReuseMinutes !== undefined && { runLinkReuseMinutes: config.runLinkReuseMinutes }),
    ...(config.runLinkStartsPerHour !== undefined && { runLinkStartsPerHour: config.runLinkStartsPerHour }),
  };
}

/**
 * Scheduled runs at once unless configured (docs/deploy.md, "Concurrency"): half of a new account's quota
 * of 10, so that with a fan-out's 3 workers, the API and the sync the account still has a slot. A run the
 * account throttles goes back to the queue until its visibility timeout and costs a receive, so the
 * event source's maximum must stay under what is free; raise it with the quota (100 on a quota of 1,000).
 */
export const DEFAULT_SCHEDULED_CONCURRENCY = 5;

/**
 * Workers one fan-out runs at once unless configured: with no reservation, the map's concurrency is what
 * bounds a fan-out's share of the planning API (each worker's client keeps at most DEFAULT_API_CONCURRENCY
 * requests in flight). 3 workers take a 2-million-row report's 25 chunks in about 5 minutes.
 */
export const DEFAULT_FAN_OUT_WORKERS = 3;

/**
 * With a reservation, the most workers one fan-out may run at once: half of the export function's reserved slots, which
 * they share with the scheduled and on-demand exports. Neither side starves the other: while a
 * fan-out's map runs the other half is left to the exports, and a fan-out step that finds every slot
 * taken waits for one (THROTTLING_RETRY in infra/constructs/report-fan-out.ts). Also the default.
 */
export function maxFanOutWorkers(reservedConcurrency: number): number {
  return Math.floor(reservedConcurrency / 2);
}

function tooManyWorkers(workers: number, reservedConcurrency: number): string {
  return (
    `${CONTEXT_KEY}.fanOutWorkers: ${workers} workers would take more than half of the ${reservedConcurrency} slots of ` +
    `${CONTEXT_KEY}.exportReservedConcurrency, leaving the scheduled exports ${Math.max(0, reservedConcurrency - workers)}; ` +
    `use at most ${maxFanOutWorkers(reservedConcurrency)}, or raise exportReservedConcurrency to ${workers * 2}`
  );
}

/**
 * `cdk synth -c reportExporter='{"reports":[]}'` passes a string. The cdk CLI keeps only the first
 * line of a -c value (it splits `key=value` with a pattern whose `.` stops at a newline), so
 * `"$(cat prod-exporter.json)"` of a pretty-printed file arrives as `{`: that is told apart from a
 * real syntax error, with the two ways that work.
 */
function parseContextString(text: string, origin = `${CONTEXT_KEY} (given with -c)`): unknown {
  try {
    return JSON.parse(stripBom(text)) as unknown;
  } catch {
    const offset = jsonErrorOffset(stripBom(text));
    if (origin.endsWith('(given with -c)') && offset !== undefined && offset >= text.length && !text.includes('\n')) {
      return fail([
        `${origin}: the value ends after its first line ("${text.slice(0, 40)}"): the cdk CLI passes only the first line of a -c value. ` +
          `Give the file instead: -c ${CONTEXT_FILE_KEY}=prod-exporter.json (or one line: -c ${CONTEXT_KEY}="$(jq -c . prod-exporter.json)")`,
      ]);
    }
    return fail([`${origin}: not valid JSON: ${jsonSyntaxProblem(stripBom(text))}`]);
  }
}

/** The context key naming a JSON file with the whole configuration: `-c reportExporterFile=prod-exporter.json`. */
export const CONTEXT_FILE_KEY = 'reportExporterFile';

/**
 * The configuration the app is given: the file of `-c reportExporterFile=<path>` (relative to the
 * repository root, where cdk runs), else `reportExporter` (cdk.json's object or a -c string). A file
 * and a -c string at once are refused: which one was meant is not ours to guess.
 */
export function configContext(context: (key: string) => unknown, repoRoot: string = REPO_ROOT): unknown {
  const file = context(CONTEXT_FILE_KEY);
  if (file === undefined) return context(CONTEXT_KEY);
  if (typeof file !== 'string' || file.trim() === '') return fail([`${CONTEXT_FILE_KEY}: give the path of a JSON file, e.g. -c ${CONTEXT_FILE_KEY}=prod-exporter.json`]);
  if (typeof context(CONTEXT_KEY) === 'string') return fail([`give one of -c ${CONTEXT_KEY}=… and -c ${CONTEXT_FILE_KEY}=…, not both`]);
  const path = isAbsolute(file) ? file : resolve(repoRoot, file);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    return fail([`${CONTEXT_FILE_KEY}: cannot read "${file}" (${(error as { code?: string }).code ?? errorMessage(error)})`]);
  }
  return parseContextString(text, `${CONTEXT_FILE_KEY} "${file}"`);
}
