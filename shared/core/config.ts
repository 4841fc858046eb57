import * as z from 'zod';
import {
  DEFAULT_RUN_LINK_REUSE_MINUTES,
  DEFAULT_RUN_LINK_STARTS_PER_HOUR,
  DEFAULT_SECRET_MAX_AGE_SECONDS,
  DEFAULT_DEFINITIONS_MAX_AGE_SECONDS,
  DEFAULT_FAN_OUT_ROWS,
} from './defaults';
import { ConfigError } from './errors';
import { DEFAULT_EVENT_BUS_NAME, DEFAULT_REPORTS_PREFIX } from './names';

/**
 * Configuration from the environment, parsed once per door with zod. Nothing else reads
 * process.env: the doors pass it in (tests pass their own object).
 */
type Env = Readonly<Record<string, string | undefined>>;

const optionalUrl = z.url().optional();
const positiveInt = (fallback: number) => z.coerce.number().int().positive().default(fallback);
/**
 * A planning API setting: checked here, defaulted once where the export's settings are resolved
 * (resolveExportSettings, resolveClientSettings), so an unset variable stays unset until then.
 */
const apiSetting = z.preprocess((v) => (v === '' ? undefined : v), z.coerce.number().int().positive().optional());

/** A door's configuration: its schema (for the types) and the loader that parses the environment with it, naming the door in errors. */
function door<S extends z.ZodObject>(name: string, schema: S): { readonly schema: S; readonly load: (env: Env) => z.output<S> } {
  return { schema, load: (env) => parseEnv(schema, env, name) };
}

function parseEnv<S extends z.ZodType>(schema: S, env: Env, door: string): z.output<S> {
  const result = schema.safeParse(env);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => {
    const name = issue.path.map(String).join('.');
    return env[name] === undefined || env[name] === ''
      ? `${name} is not set`
      : `${name} is invalid: ${issue.message}`;
  });
  throw new ConfigError(`${door} configuration: ${problems.join('; ')}`, { cause: result.error });
}

/** The command line: only an optional local S3 endpoint such as s3rver (region etc. the SDK reads itself). */
const cli = door(
  'command line',
  z.object({
    AWS_ENDPOINT_URL_S3: optionalUrl,
    /** Largest planning API response read, bytes. */
    API_MAX_RESPONSE_BYTES: apiSetting,
    /** Pages and bytes one planning API list may take before it is taken for endless. */
    API_MAX_LIST_PAGES: apiSetting,
    API_MAX_LIST_BYTES: apiSetting,
    /** How long a secret (credentials, link keys, webhooks) and a stored report are reused. */
    SECRET_MAX_AGE_SECONDS: positiveInt(DEFAULT_SECRET_MAX_AGE_SECONDS),
    DEFINITIONS_MAX_AGE_SECONDS: positiveInt(DEFAULT_DEFINITIONS_MAX_AGE_SECONDS),
  }),
);
export type CliConfig = z.output<typeof cli.schema>;
export const loadCliConfig = cli.load;

/** An AWS region name, e.g. eu-central-1 or us-gov-west-1. */
export const awsRegion = z.string().regex(/^[a-z]{2}(-[a-z]+)+-\d$/, 'must be a region such as eu-central-1');

/**
 * `npm run preflight`: the region when --region does not give it, and local stand-ins of the services
 * it asks (tests). The variables are the SDK's own names for service endpoints.
 */
const preflightCli = door(
  'preflight',
  cli.schema.extend({
    // An empty variable (`AWS_REGION= npm run …`) is no region, not a wrong one.
    AWS_REGION: z.preprocess((v) => (v === '' ? undefined : v), awsRegion.optional()),
    AWS_DEFAULT_REGION: z.preprocess((v) => (v === '' ? undefined : v), awsRegion.optional()),
    AWS_ENDPOINT_URL_CLOUDFORMATION: optionalUrl,
    AWS_ENDPOINT_URL_SSM: optionalUrl,
    AWS_ENDPOINT_URL_SECRETS_MANAGER: optionalUrl,
    AWS_ENDPOINT_URL_SESV2: optionalUrl,
    AWS_ENDPOINT_URL_SCHEDULER: optionalUrl,
    AWS_ENDPOINT_URL_LAMBDA: optionalUrl,
  }),
);
export type PreflightConfig = z.output<typeof preflightCli.schema>;
export const loadPreflightConfig = preflightCli.load;

/**
 * The variables a schema reads, as strings (optional where the schema has a default), plus those
 * the Lambda runtime and Powertools read: the stack types the functions' environment with it.
 */
type EnvironmentOf<S extends z.ZodObject> = { readonly [K in keyof z.input<S>]: string } & {
  readonly NODE_OPTIONS?: string;
  readonly POWERTOOLS_SERVICE_NAME?: string;
  readonly POWERTOOLS_METRICS_NAMESPACE?: string;
};

/** Shared by both Lambdas. */
const lambdaSchema = z.object({
  REPORTS_BUCKET: z.string().min(3),
  REPORTS_PREFIX: z.string().default(DEFAULT_REPORTS_PREFIX),
  /** DynamoDB table of the run ledger: run leases, `latest` of each report, on-demand job status. */
  LEDGER_TABLE: z.string().min(3),
  LINK_KEY_SECRET_ID: z.string().min(1),
  /** Public base URL of the API, for e-mail links: https://abc.execute-api.eu-west-1.amazonaws.com/prod */
  LINK_BASE_URL: z.url(),
  API_CONCURRENCY: apiSetting,
  /** A planning tenant's requests per second, shared by its concurrent runs (unset: each run paces only itself). */
  API_RATE_PER_SECOND: apiSetting,
  API_TIMEOUT_MS: apiSetting,
  API_MAX_RESPONSE_BYTES: apiSetting,
  API_MAX_LIST_PAGES: apiSetting,
  API_MAX_LIST_BYTES: apiSetting,
  SECRET_MAX_AGE_SECONDS: positiveInt(DEFAULT_SECRET_MAX_AGE_SECONDS),
  /** The versioned bucket whose `definitions/` prefix holds one JSON object per report. */
  DEFINITIONS_BUCKET: z.string().min(3),
  DEFINITIONS_MAX_AGE_SECONDS: positiveInt(DEFAULT_DEFINITIONS_MAX_AGE_SECONDS),
  AWS_ENDPOINT_URL_S3: optionalUrl,
  /** On-demand calls with a full inline definition: off unless the stack turns them on. */
  INLINE_DEFINITIONS: z.enum(['on', 'off']).default('off'),
  /** Inline definitions' names (and folders) start with this; configured names may not. */
  INLINE_PREFIX: z
    .string()
    .regex(/^[a-z0-9][a-z0-9-]{0,23}$/, 'must be lower-case letters, digits and hyphens, at most 24')
    .default('adhoc-'),
  /** Comma-separated domains inline definitions may e-mail (empty: none). */
  INLINE_EMAIL_DOMAINS: z
    .string()
    .default('')
    .transform((s) => s.split(',').map((d) => d.trim().toLowerCase()).filter((d) => d !== '')),
});

const exportLambda = door(
  'export-report',
  lambdaSchema.extend({
    PLANNING_SECRET_ID: z.string().min(1),
    EVENT_BUS_NAME: z.string().min(1).default(DEFAULT_EVENT_BUS_NAME),
    MAIL_FROM: z.string().min(3).optional(),
    /** SES configuration set every report e-mail is sent with: its bounce and complaint events reach mail-events. */
    MAIL_CONFIGURATION_SET: z.string().min(1).optional(),
    /** The fan-out state machine (docs/deploy.md, "Past one Lambda"); without it every run is single. */
    FAN_OUT_STATE_MACHINE_ARN: z.string().min(20).optional(),
    /** A scheduled run fans out when its report's last run wrote more rows than this. */
    FAN_OUT_ROWS: positiveInt(DEFAULT_FAN_OUT_ROWS),
  }),
);

const apiLambda = door(
  'export-api',
  lambdaSchema.extend({
    EXPORT_FUNCTION_NAME: z.string().min(1),
    /** Run links: reuse an export that finished less than this many minutes ago (0: never). */
    RUN_LINK_REUSE_MINUTES: z.coerce.number().int().min(0).max(1440).default(DEFAULT_RUN_LINK_REUSE_MINUTES),
    RUN_LINK_STARTS_PER_HOUR: positiveInt(DEFAULT_RUN_LINK_STARTS_PER_HOUR),
  }),
);

/** definitions-sync: where the stored reports are and what their schedules invoke. */
const syncLambda = door(
  'definitions-sync',
  z.object({
    DEFINITIONS_BUCKET: z.string().min(3),
    DEFINITIONS_MAX_AGE_SECONDS: positiveInt(DEFAULT_DEFINITIONS_MAX_AGE_SECONDS),
    /** The stack's schedule group: the function may touch schedules in it only. */
    SCHEDULE_GROUP: z.string().min(1),
    /** The scheduled-runs queue every schedule sends its run to. */
    SCHEDULE_TARGET_ARN: z.string().min(20),
    SCHEDULER_ROLE_ARN: z.string().min(20),
    SCHEDULER_DEAD_LETTER_ARN: z.string().min(20),
    AWS_ENDPOINT_URL_S3: optionalUrl,
    AWS_ENDPOINT_URL_SCHEDULER: optionalUrl,
  }),
);

/** mail-events: SES's bounce and complaint events of the reports' e-mail → the recipients suppressed, the owners told. */
const mailEventsLambda = door(
  'mail-events',
  z.object({
    LEDGER_TABLE: z.string().min(3),
    DEFINITIONS_BUCKET: z.string().min(3),
    DEFINITIONS_MAX_AGE_SECONDS: positiveInt(DEFAULT_DEFINITIONS_MAX_AGE_SECONDS),
    MAIL_FROM: z.string().min(3).optional(),
    AWS_ENDPOINT_URL_S3: optionalUrl,
  }),
);

export const loadExportLambdaConfig = exportLambda.load;
export const loadMailEventsLambdaConfig = mailEventsLambda.load;
export type MailEventsLambdaEnvironment = EnvironmentOf<typeof mailEventsLambda.schema>;
export const loadApiLambdaConfig = apiLambda.load;
export const loadSyncLambdaConfig = syncLambda.load;
export type ExportLambdaConfig = z.output<typeof exportLambda.schema>;
export type ApiLambdaConfig = z.output<typeof apiLambda.schema>;
export type SyncLambdaConfig = z.output<typeof syncLambda.schema>;
/** The environment of each Lambda as the stack sets it: every variable its schema reads, required where it has no default. */
export type ExportLambdaEnvironment = EnvironmentOf<typeof exportLambda.schema>;
export type ApiLambdaEnvironment = EnvironmentOf<typeof apiLambda.schema>;
export type SyncLambdaEnvironment = EnvironmentOf<typeof syncLambda.schema>;
