import * as z from 'zod';
import { ReportDefinitionError, errorMessage } from '../core/errors';
import { isTimeZone } from '../report/dataset/dates';
import { DEFINITION_LIMITS } from '../report/dataset/definition-limits';
import { issueWords } from '../report/definition/issue-words';
import {
  documentSizeProblem,
  reportDefinitionSchema,
  textSizeProblem,
  type ReportDefinition,
  type ReportDefinitionInput,
} from '../report/definition/definition';

/**
 * One report as operators keep it: the definition and when it runs. The same shape everywhere a
 * report is written down — an entry of cdk.json's `reportExporter.reports`, a file given to
 * `npm run reports`, and the object `definitions/<name>.json` in the stack's definitions bucket —
 * so a report moves between them unchanged.
 */

/** Where the stored reports live in the definitions bucket; the sync function listens under it. */
export const DEFINITIONS_PREFIX = 'definitions/';

/** The object key of a report's stored definition. */
export function definitionKey(name: string): string {
  return `${DEFINITIONS_PREFIX}${name}.json`;
}

/** The report name of a key under DEFINITIONS_PREFIX, or undefined for any other key. */
export function reportNameOfKey(key: string): string | undefined {
  const match = /^definitions\/([a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?)\.json$/.exec(key);
  return match?.[1];
}

/**
 * EventBridge Scheduler cron: six fields (minutes hours day-of-month month day-of-week year), and
 * one of day-of-month / day-of-week must be `?`. Checked before anything is stored, because
 * Scheduler would only reject it when the sync function creates the schedule.
 */
/** Scheduler's own limit of a schedule expression; checked first, so a huge value is not split into fields. */
export const MAX_CRON_LENGTH = 256;

export const cronSchema = z
  .string()
  .trim()
  .max(MAX_CRON_LENGTH, { error: `must be at most ${MAX_CRON_LENGTH} characters (Scheduler's limit)`, abort: true })
  .regex(/^cron\(\s*\S+(\s+\S+){5}\s*\)$/, 'must be a six-field Scheduler cron expression such as "cron(0 7 ? * MON *)"')
  .refine((cron) => {
    const fields = cron.slice(5, -1).trim().split(/\s+/);
    return fields[2] === '?' || fields[4] === '?';
  }, 'day-of-month (3rd field) or day-of-week (5th field) must be "?", e.g. "cron(0 7 ? * MON *)"');

export const scheduleSchema = z.strictObject({
  cron: cronSchema,
  /** IANA name; Scheduler evaluates the cron in it, so 07:00 stays 07:00 across daylight saving. */
  timeZone: z.string().min(1).max(DEFINITION_LIMITS.name).refine(isTimeZone, 'must be an IANA time zone such as Europe/Berlin'),
  /**
   * "Deliver by 07:15": Scheduler may start the run at any moment of this many minutes after the cron's
   * minute (its flexible time window), so the reports of a crowded hour spread themselves out before any
   * of them queues. Absent: at the minute. The run id still comes from the cron's time.
   */
  windowMinutes: z.number().int().min(1, 'must be at least 1 minute').max(1440, 'must be at most 1440 minutes (a day)').optional(),
});

export type ReportSchedule = z.infer<typeof scheduleSchema>;

const storedDefinitionSchema = z.strictObject({
  definition: reportDefinitionSchema,
  /** `null` (or absent): on demand only, through the API. */
  schedule: scheduleSchema.nullable().default(null),
});

export interface StoredDefinition {
  /** As written (input form): the Lambdas apply the defaults of the schema version they run. */
  readonly definition: ReportDefinitionInput & { readonly name: string };
  readonly parsed: ReportDefinition;
  readonly schedule: ReportSchedule | null;
}

type Issue = { path: string; message: string };

/**
 * Validates a stored report (parsed JSON). Every problem is listed with its path, e.g.
 * `definition.datasets.risks.registers: ...`, so one `validate` shows all of them.
 */
export function parseStoredDefinition(value: unknown, origin: string): StoredDefinition {
  const tooLarge = documentSizeProblem(value);
  if (tooLarge) throw invalid(origin, [tooLarge], undefined);
  const bare = bareDefinitionProblem(value);
  if (bare) throw invalid(origin, [bare], undefined);
  const result = storedDefinitionSchema.safeParse(value);
  if (!result.success) {
    const issues: Issue[] = result.error.issues.map((issue) => ({
      path: issue.path.length > 0 ? issue.path.map(String).join('.') : '(root)',
      message: issueWords(issue, value, storedDefinitionSchema),
    }));
    throw invalid(origin, issues, result.error);
  }
  const raw = value as { definition: StoredDefinition['definition'] };
  return { definition: raw.definition, parsed: result.data.definition, schedule: result.data.schedule };
}

/**
 * A report definition stored as it is (the export command's file) rather than in its envelope: said as
 * such, with the command that stores it right, instead of as three unknown fields.
 */
function bareDefinitionProblem(value: unknown): Issue | undefined {
  if (typeof value !== 'object' || value === null || 'definition' in value || !('name' in value)) return undefined;
  return {
    path: '(root)',
    message: 'a bare report definition, not a stored report ({"definition": …, "schedule": …}): store it with npm run reports -- push <file> --bucket <b> (or --dir <folder>), which wraps it',
  };
}

/** Parses JSON text first, so a syntax error is reported as such (with the origin). */
export function parseStoredDefinitionJson(text: string, origin: string): StoredDefinition {
  const tooLarge = textSizeProblem(text);
  if (tooLarge) throw invalid(origin, [tooLarge], undefined);
  let value: unknown;
  try {
    value = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (error) {
    const reason = errorMessage(error);
    throw invalid(origin, [{ path: '(root)', message: `not valid JSON: ${reason}` }], error);
  }
  return parseStoredDefinition(value, origin);
}

/** The JSON text stored for a report: stable key order, one report per object. */
export function storedDefinitionText(stored: Pick<StoredDefinition, 'definition' | 'schedule'>): string {
  return `${JSON.stringify({ definition: stored.definition, schedule: stored.schedule }, null, 2)}\n`;
}

function invalid(origin: string, issues: readonly Issue[], cause: unknown): ReportDefinitionError {
  const lines = issues.map((i) => `  - ${i.path}: ${i.message}`).join('\n');
  return new ReportDefinitionError(`${origin} is invalid:\n${lines}`, issues, { cause });
}
