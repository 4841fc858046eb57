import { templateProblem, type PlanningLinkKind } from '../summary/planning-links';
import * as z from 'zod';
import { emailAddress, recipientAddress, type Recipient } from '../../email/email-address';
import { ReportDefinitionError } from '../../core/errors';
import { baselineOptionSchema } from '../changes/baseline';
import { jsonSyntaxProblem, stripBom } from '../../core/text';
import { issueWords } from './issue-words';
import { formatBytes } from '../../core/format-bytes';
import { DEFAULT_LOCALE } from '../../core/format';
import { localeTagSchema } from '../../core/locale-schema';
import { isTimeZone } from '../dataset/dates';
import { deliveryOptionSchema } from '../../channels/delivery-option';
import { DEFINITION_LIMITS, grouped } from '../dataset/definition-limits';
import { FORMATS, formatNames, type ReportFormat } from '../manifest/formats';
import type { DatasetEntry, SelectorSchema } from '../dataset/dataset';
import { DATASETS } from '../tables/registry';
import { alertsFit, alertsSchema } from '../alerts/alert-rules';

/**
 * The report definition: which datasets to export, narrowed by selectors, in which formats, and how
 * the result reaches people. Objects are strict so a misspelt key ("boardz") is an error, not a
 * silently ignored selector that exports everything. What a definition may name comes from the
 * registries: each dataset's options and what a delivery's filter narrows from its entry
 * (tables/registry.ts), the formats from formats.ts.
 */

/** A link template of `kind`, checked for its placeholders (an error names the ones it knows). */
const linkTemplate = (kind: PlanningLinkKind) =>
  z
    .string()
    .max(DEFINITION_LIMITS.url, `must be at most ${grouped(DEFINITION_LIMITS.url)} characters`)
    .superRefine((template, ctx) => {
      const problem = templateProblem(kind, template);
      if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
    })
    .optional();

const recipientsMessage = `list at most ${DEFINITION_LIMITS.recipients} addresses (SES sends a message to at most 50); use a distribution list`;

/**
 * A recipient of the report's e-mail: a plain address, or one with its own language (default: the
 * report's `locale`) and who the reader is in the planning tool (`person`: a user id or e-mail), whose
 * e-mail then opens with what is theirs (docs/reports.md, "Recipients").
 */
const recipientSchema = z.union(
  [
    emailAddress,
    z.strictObject({
      address: emailAddress,
      locale: localeTagSchema(DEFINITION_LIMITS.name, "for the report's locale").optional(),
      person: z.string().trim().min(1, 'name the reader in the planning tool (a user id or e-mail), or leave person out').max(DEFINITION_LIMITS.name).optional(),
    }),
  ],
  { error: () => 'must be an e-mail address, or { "address": …, "locale"?: …, "person"?: … }' },
);

const emailSchema = z
  .strictObject({
    to: z.array(recipientSchema).min(1, 'list at least one recipient').max(DEFINITION_LIMITS.recipients, recipientsMessage),
    cc: z.array(emailAddress).max(DEFINITION_LIMITS.recipients, recipientsMessage).optional(),
    from: emailAddress.optional(),
    /** Placeholders: {report} (or {title}), {date}; default "{report} – {date}". */
    subjectTemplate: z.string().min(1).max(200).optional(),
    /** Attach the workbook when it is small enough for SES (see docs). */
    attachWorkbook: z.boolean().default(false),
    /**
     * Owners told when a scheduled run fails (once per failure streak) and when it works again.
     * Default: the recipients (`to`).
     */
    onFailure: z
      .array(emailAddress)
      .min(1, 'list at least one owner, or leave onFailure out to tell the recipients')
      .max(DEFINITION_LIMITS.recipients, recipientsMessage)
      .optional(),
  });

/** The addresses of `email.to` (each recipient's, however it is named), then `cc`. */
export function recipientAddresses(email: { readonly to: readonly Recipient[]; readonly cc?: readonly string[] | undefined }): string[] {
  return [...email.to.map(recipientAddress), ...(email.cc ?? [])];
}

/** A slice's name: its runs are the report's name, SLICE_SEPARATOR, and this. */
const sliceNameSchema = z
  .string()
  .regex(/^[a-z0-9](?:[a-z0-9-]{0,30}[a-z0-9])?$/, 'must be a slug: lower-case letters, digits and hyphens, 1-32 characters');

/** The datasets a definition may name, and the formats: the production registry's, or a test's with one more. */
export interface DefinitionRegistry<D extends readonly DatasetEntry[] = readonly DatasetEntry[], N extends string = string> {
  readonly datasets: D;
  readonly formats: readonly ReportFormat<N>[];
}

/** The filter fields an entry offers a delivery (none for an entry that does not say). */
type FilterField<E> = E extends { readonly slicedBy?: infer S } ? (string extends keyof NonNullable<S> ? never : keyof NonNullable<S> & string) : never;

type FilterSchema<D extends readonly DatasetEntry[]> = z.ZodDefault<z.ZodObject<{ [F in FilterField<D[number]>]: SelectorSchema }, z.core.$strict>>;

/**
 * A delivery's filter: each field the datasets offer (`slicedBy` of their entries), checked like the
 * selector it replaces in the first dataset that offers it. By name, so a dataset added to the
 * registry does not reorder the fields.
 */
function filterSchema<D extends readonly DatasetEntry[]>(datasets: D): FilterSchema<D> {
  const fields = new Map<string, SelectorSchema>();
  for (const dataset of datasets) {
    for (const [field, selector] of Object.entries(dataset.slicedBy ?? {})) {
      // A selector's schema, as the entry's type (`SelectorName`) makes sure.
      if (!fields.has(field)) fields.set(field, dataset.options.shape[selector] as SelectorSchema);
    }
  }
  const shape = Object.fromEntries([...fields].sort(([a], [b]) => (a < b ? -1 : 1)));
  // No filter is the whole report.
  return z.strictObject(shape).default({});
}

/**
 * One audience of a report (docs/reports.md): its own recipients and channels, and a filter that
 * narrows the report's selectors to its part (a train's boards, registers and themes). The data is
 * fetched once for all of them; each gets its own workbook, CSVs, Summary, changes and message.
 */
function deliveriesSchema<D extends readonly DatasetEntry[]>(datasets: D) {
  const slice = z.strictObject({
    name: sliceNameSchema,
    title: z.string().trim().min(1).max(200).optional(),
    filter: filterSchema(datasets),
    email: emailSchema.optional(),
    delivery: deliveryOptionSchema.optional(),
  });
  return z
    .array(slice)
    .min(1, 'list at least one delivery, or leave deliveries out')
    .max(50, 'at most 50 deliveries per report')
    .refine((list) => new Set(list.map((d) => d.name)).size === list.length, 'give each delivery its own name')
    .optional();
}

/** Each dataset's options (its entry's) under its name; at least one dataset. */
function datasetsSchema<D extends readonly DatasetEntry[]>(datasets: D) {
  const shape = Object.fromEntries(datasets.map((d) => [d.name, d.options.optional()])) as {
    -readonly [E in D[number] as E['name']]: z.ZodOptional<E['options']>;
  };
  const names = datasets.map((d) => d.name);
  const listed = names.length > 1 ? `${names.slice(0, -1).join(', ')} or ${names.at(-1)}` : names.join('');
  return z.strictObject(shape).refine((d) => Object.values(d).some((v) => v !== undefined), `choose at least one dataset: ${listed}`);
}

/** Formats a definition that names none gets: Parquet only when asked for. */
const DEFAULT_FORMATS: readonly string[] = ['xlsx', 'pdf', 'csv'];

/** The registry's formats, each at most once. */
function formatsSchema<N extends string>(formats: readonly ReportFormat<N>[]) {
  const names = formatNames(formats);
  const defaults = names.filter((name) => DEFAULT_FORMATS.includes(name));
  return z
    .array(z.enum(names))
    .min(1, `choose at least one format: ${names.join(', ')}`)
    .max(names.length, 'list each format once')
    .default(defaults)
    .refine((f) => new Set(f).size === f.length, 'list each format once');
}

/** Between a report's name and a slice's in the slice's runs, folders and messages: `portfolio--train-a`. */
export const SLICE_SEPARATOR = '--';

/** What every definition has before its datasets: what the report is called, where and for whom it is dated. */
const REPORT_FIELDS = {
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
    .max(DEFINITION_LIMITS.name, `must be at most ${DEFINITION_LIMITS.name} characters`)
    .default('UTC')
    .refine(isTimeZone, 'must be an IANA time zone such as Europe/Berlin or UTC'),
  /**
   * BCP 47 language tag for the numbers, percentages and dates people read outside the workbook
   * (the e-mail, the chat messages, the run page) and in the Summary's texts: `de-DE` writes
   * `50,1 %` and `26.11.2026`. The workbook's cells stay typed (Excel shows them in the reader's own locale).
   */
  locale: localeTagSchema(DEFINITION_LIMITS.name).default(DEFAULT_LOCALE),
};

/** What every definition has after its formats: how its files are written, compared and sent. */
const OUTPUT_FIELDS = {
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
        .max(DEFINITION_LIMITS.url, `must be at most ${grouped(DEFINITION_LIMITS.url)} characters`)
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
  /** Rules on the figures, and where to tell when a run crosses one's line (docs/reports.md, "Alerts"). */
  alerts: alertsSchema.optional(),
};

/** A slice's runs are named `<report>--<delivery>`: that name, too, must fit the 64 characters of a report's. */
function sliceNamesFit(definition: { readonly name: string; readonly deliveries?: readonly { readonly name: string }[] | undefined }, ctx: z.RefinementCtx): void {
  for (const [index, slice] of (definition.deliveries ?? []).entries()) {
    const name = `${definition.name}${SLICE_SEPARATOR}${slice.name}`;
    if (name.length > 64) {
      ctx.addIssue({ code: 'custom', path: ['deliveries', index, 'name'], message: `"${name}" (report, "--", delivery) is longer than 64 characters; shorten one of them` });
    }
  }
}

/**
 * The definition schema of a registry: its datasets' options and its formats. Production code
 * parses with `reportDefinitionSchema`, the production registry's; a test adds a dataset or a format
 * by building the schema of a registry with one more entry.
 */
export function reportDefinitionSchemaFor<const D extends readonly DatasetEntry[], const N extends string>(registry: DefinitionRegistry<D, N>) {
  return z
    .strictObject({
      ...REPORT_FIELDS,
      datasets: datasetsSchema(registry.datasets),
      formats: formatsSchema(registry.formats),
      ...OUTPUT_FIELDS,
      /**
       * Audiences, each with its slice of the report (docs/reports.md). With deliveries, a scheduled
       * run exports and sends each slice instead of the whole report.
       */
      deliveries: deliveriesSchema(registry.datasets),
    })
    .superRefine(sliceNamesFit)
    .superRefine(alertsFit);
}

export const reportDefinitionSchema = reportDefinitionSchemaFor({ datasets: DATASETS, formats: FORMATS });

export type ReportDefinition = z.infer<typeof reportDefinitionSchema>;
export type ReportDefinitionInput = z.input<typeof reportDefinitionSchema>;
export type DatasetName = keyof ReportDefinition['datasets'];

/**
 * The size problem of a whole document (a definition, a stored report) as compact JSON, or
 * undefined when it is within DEFINITION_LIMITS.bytes. Compact, so that indentation (a stored
 * report is written indented) never makes the same document too large.
 */
export function documentSizeProblem(value: unknown): { path: string; message: string } | undefined {
  let bytes: number;
  try {
    bytes = Buffer.byteLength(JSON.stringify(value) ?? '', 'utf8');
  } catch {
    return undefined; // not JSON (a cycle, a BigInt): the schema says what is wrong with it
  }
  if (bytes <= DEFINITION_LIMITS.bytes) return undefined;
  return {
    path: '(root)',
    message:
      `the document is ${formatBytes(bytes)} of JSON, more than the ${formatBytes(DEFINITION_LIMITS.bytes)} a report may have; ` +
      'list fewer selectors (leave one out to export all visible ones) or split the report',
  };
}

/** The size problem of a document's text before it is parsed (so 20 MB are not parsed to be refused). */
export function textSizeProblem(text: string): { path: string; message: string } | undefined {
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes <= DEFINITION_LIMITS.textBytes) return undefined;
  return { path: '(root)', message: `the text is ${formatBytes(bytes)}, more than the ${formatBytes(DEFINITION_LIMITS.textBytes)} a report's file may have` };
}

/** Validates a parsed JSON value; every bad field is listed with its path and reason. */
export function parseReportDefinition(input: unknown, origin = 'report definition'): ReportDefinition {
  const tooLarge = documentSizeProblem(input);
  if (tooLarge) throw new ReportDefinitionError(`${origin} is invalid:\n  - ${tooLarge.path}: ${tooLarge.message}`, [tooLarge]);
  const result = reportDefinitionSchema.safeParse(input);
  if (result.success) return result.data;
  const issues = result.error.issues.map((issue) => ({
    path: issue.path.length > 0 ? issue.path.map(String).join('.') : '(root)',
    message: issueWords(issue, input, reportDefinitionSchema),
  }));
  const lines = issues.map((i) => `  - ${i.path}: ${i.message}`).join('\n');
  throw new ReportDefinitionError(`${origin} is invalid:\n${lines}`, issues, { cause: result.error });
}

/** Parses JSON text first, so a syntax error is reported as such. */
export function parseReportDefinitionJson(text: string, origin = 'report definition'): ReportDefinition {
  const tooLarge = textSizeProblem(text);
  if (tooLarge) throw new ReportDefinitionError(`${origin} is invalid:\n  - ${tooLarge.path}: ${tooLarge.message}`, [tooLarge]);
  let value: unknown;
  try {
    value = JSON.parse(stripBom(text));
  } catch (error) {
    const reason = jsonSyntaxProblem(stripBom(text));
    throw new ReportDefinitionError(`${origin} is not valid JSON: ${reason}`, [{ path: '(root)', message: reason }], {
      cause: error,
    });
  }
  return parseReportDefinition(value, origin);
}
