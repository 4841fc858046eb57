import { templateProblem, type PlanningLinkKind } from './summary/planning-links';
import * as z from 'zod';
import { emailAddress } from '../email/email-address';
import { errorMessage, ReportDefinitionError } from '../core/errors';
import { baselineOptionSchema } from './changes/baseline';
import { stripBom } from '../core/text';
import { isTimeZone } from './dates';
import { deliveryOptionSchema } from '../channels/delivery-option';
import { FORMATS, formatNames } from './formats';

/**
 * The report definition: which datasets to export, narrowed by selectors, in which formats, and how
 * the result reaches people. Objects are strict so a misspelt key ("boardz") is an error, not a
 * silently ignored selector that exports everything.
 */

const idList = (what: string) =>
  z
    .array(
      z
        .string()
        .trim()
        .min(1, `${what} must not be empty strings`)
        // eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
        .refine((id) => !/[\u0000-\u001f\u007f-\u009f]/.test(id), `${what} must not contain control characters (copy it again)`),
    )
    .min(1, `list at least one ${what}, or leave the selector out to export all visible ones`)
    .optional();

/** A link template of `kind`, checked for its placeholders (an error names the ones it knows). */
const linkTemplate = (kind: PlanningLinkKind) =>
  z
    .string()
    .superRefine((template, ctx) => {
      const problem = templateProblem(kind, template);
      if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
    })
    .optional();

const emailSchema = z
  .strictObject({
    to: z.array(emailAddress).min(1, 'list at least one recipient'),
    cc: z.array(emailAddress).optional(),
    from: emailAddress.optional(),
    /** Placeholders: {report} (or {title}), {date}; default "{report} – {date}". */
    subjectTemplate: z.string().min(1).max(200).optional(),
    /** Attach the workbook when it is small enough for SES (see docs). */
    attachWorkbook: z.boolean().default(false),
    /**
     * Owners told when a scheduled run fails (once per failure streak) and when it works again.
     * Default: the recipients (`to`).
     */
    onFailure: z.array(emailAddress).min(1, 'list at least one owner, or leave onFailure out to tell the recipients').optional(),
  });

/** A slice's name: its runs are the report's name, SLICE_SEPARATOR, and this. */
const sliceNameSchema = z
  .string()
  .regex(/^[a-z0-9](?:[a-z0-9-]{0,30}[a-z0-9])?$/, 'must be a slug: lower-case letters, digits and hyphens, 1-32 characters');

/**
 * One audience of a report (docs/reports.md): its own recipients and channels, and a filter that
 * narrows the report's selectors to its part (a train's boards, registers and themes). The data is
 * fetched once for all of them; each gets its own workbook, CSVs, Summary, changes and message.
 */
const sliceSchema = z.strictObject({
  name: sliceNameSchema,
  title: z.string().trim().min(1).max(200).optional(),
  filter: z
    .strictObject({
      boards: idList('board id or title'),
      collections: idList('collection id or title'),
      registers: idList('register id, key or title'),
      themes: idList('strategic theme key, id or title'),
    })
    .default({}),
  email: emailSchema.optional(),
  delivery: deliveryOptionSchema.optional(),
});

/** Between a report's name and a slice's in the slice's runs, folders and messages: `portfolio--train-a`. */
export const SLICE_SEPARATOR = '--';

export const reportDefinitionSchema = z.strictObject({
  /** Used in file names and S3 keys, so restricted to a safe slug. */
  name: z
    .string()
    .regex(
      /^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/,
      'must be a slug: lower-case letters, digits and hyphens, 1-64 characters, not starting or ending with a hyphen',
    ),
  /** Shown on the Summary sheet and in the e-mail; defaults to the name. */
  title: z.string().trim().min(1).max(200).optional(),
  /** IANA time zone for the run date, date-times and the e-mail. */
  timeZone: z
    .string()
    .default('UTC')
    .refine(isTimeZone, 'must be an IANA time zone such as Europe/Berlin or UTC'),
  datasets: z
    .strictObject({
      risks: z
        .strictObject({
          registers: idList('register id, key or title'),
          /**
           * Title of a custom field that holds a risk's owner (a user picker such as "Risk owner"),
           * for registers that keep the owner there rather than in `responsible`.
           */
          ownerField: z.string().trim().min(1, 'ownerField names a custom field: give its title, e.g. "Risk owner"').optional(),
        })
        .optional(),
      okrs: z
        .strictObject({
          portfolioThemes: idList('portfolio theme key, id or title'),
          strategicThemes: idList('strategic theme key, id or title'),
        })
        .optional(),
      piObjectives: z
        .strictObject({
          boards: idList('board id or title'),
          collections: idList('collection id or title'),
          completionType: z
            .number()
            .int()
            .min(1, 'completionType must be 1 to 6 (see docs/tables.md)')
            .max(6, 'completionType must be 1 to 6 (see docs/tables.md)')
            .optional(),
          additionalColumns: z.boolean().default(false),
        })
        .optional(),
      boardItems: z.strictObject({ boards: idList('board id or title'), collections: idList('collection id or title') }).optional(),
    })
    .refine(
      (d) => Object.values(d).some((v) => v !== undefined),
      'choose at least one dataset: risks, okrs, piObjectives or boardItems',
    ),
  formats: z
    .array(z.enum(formatNames(FORMATS)))
    .min(1, `choose at least one format: ${formatNames(FORMATS).join(', ')}`)
    .default(['xlsx', 'csv'])
    .refine((f) => new Set(f).size === f.length, 'list each format once'),
  csv: z
    .strictObject({
      /** A UTF-8 byte-order mark makes Excel read non-ASCII correctly; see docs/formats.md. */
      bom: z.boolean().default(true),
      /**
       * Prefix text a spreadsheet would evaluate (`=`, `+`, `-`, `@`, …) with `'`. Turn off only for
       * CSV files that no spreadsheet ever opens; the risk is in docs/formats.md.
       */
      neutraliseFormulas: z.boolean().default(true),
    })
    .default({ bom: true, neutraliseFormulas: true }),
  links: z
    .strictObject({
      /** Link template for items of the second tracker family, e.g. https://tracker.example.com/browse/{key}. */
      extBBrowseUrl: z
        .string()
        .refine((s) => /^https?:\/\//.test(s) && s.includes('{key}'), 'must be an http(s) URL containing {key}')
        .optional(),
      /**
       * Addresses of items in the planning tool, for "Needs attention" in the e-mail and chat
       * messages (summary/planning-links.ts): e.g. https://acme.example.com/risks/{registerId}/{id}.
       */
      riskUrl: linkTemplate('riskUrl'),
      okrUrl: linkTemplate('okrUrl'),
      piObjectiveUrl: linkTemplate('piObjectiveUrl'),
      /** Lifetime of presigned download links handed out on demand. */
      presignedSeconds: z.number().int().min(60).max(43_200).default(3600),
      /** Lifetime of the links in e-mails (served by the link endpoint). */
      emailLinkDays: z.number().int().min(1).max(90).default(14),
    })
    .default({ presignedSeconds: 3600, emailLinkDays: 14 }),
  changes: z
    .strictObject({
      /**
       * What this run is compared with: "previous" (the previous completed run of the same kind) or
       * a minimum age such as "P7D" (the newest such run at least that old). See docs/changes.md.
       */
      baseline: baselineOptionSchema.default('previous'),
    })
    .default({ baseline: 'previous' }),
  /** How many runs (this one included) the Trends sheet and the e-mail's trends show. */
  trends: z.strictObject({ runs: z.number().int().min(1).max(52).default(12) }).default({ runs: 12 }),
  email: emailSchema.optional(),
  /** Chat channels beside e-mail, and whether a run's message goes out at all (docs/delivery.md). */
  delivery: deliveryOptionSchema.optional(),
  /**
   * Audiences, each with its slice of the report (docs/reports.md). With deliveries, a scheduled
   * run exports and sends each slice instead of the whole report.
   */
  deliveries: z
    .array(sliceSchema)
    .min(1, 'list at least one delivery, or leave deliveries out')
    .max(50, 'at most 50 deliveries per report')
    .refine((list) => new Set(list.map((d) => d.name)).size === list.length, 'give each delivery its own name')
    .optional(),
}).superRefine((definition, ctx) => {
  for (const [index, slice] of (definition.deliveries ?? []).entries()) {
    const name = `${definition.name}${SLICE_SEPARATOR}${slice.name}`;
    if (name.length > 64) {
      ctx.addIssue({ code: 'custom', path: ['deliveries', index, 'name'], message: `"${name}" (report, "--", delivery) is longer than 64 characters; shorten one of them` });
    }
  }
});

export type ReportDefinition = z.infer<typeof reportDefinitionSchema>;
export type ReportDefinitionInput = z.input<typeof reportDefinitionSchema>;
export type DatasetName = keyof ReportDefinition['datasets'];

/** Validates a parsed JSON value; every bad field is listed with its path and reason. */
export function parseReportDefinition(input: unknown, origin = 'report definition'): ReportDefinition {
  const result = reportDefinitionSchema.safeParse(input);
  if (result.success) return result.data;
  const issues = result.error.issues.map((issue) => ({
    path: issue.path.length > 0 ? issue.path.map(String).join('.') : '(root)',
    message:
      issue.code === 'unrecognized_keys'
        ? `unknown field(s) ${issue.keys.map((k) => `"${k}"`).join(', ')}: check the spelling`
        : issue.message,
  }));
  const lines = issues.map((i) => `  - ${i.path}: ${i.message}`).join('\n');
  throw new ReportDefinitionError(`${origin} is invalid:\n${lines}`, issues, { cause: result.error });
}

/** Parses JSON text first, so a syntax error is reported as such. */
export function parseReportDefinitionJson(text: string, origin = 'report definition'): ReportDefinition {
  let value: unknown;
  try {
    value = JSON.parse(stripBom(text));
  } catch (error) {
    const reason = errorMessage(error);
    throw new ReportDefinitionError(`${origin} is not valid JSON: ${reason}`, [{ path: '(root)', message: reason }], {
      cause: error,
    });
  }
  return parseReportDefinition(value, origin);
}
