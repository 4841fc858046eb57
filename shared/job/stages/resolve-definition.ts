import { ReportDefinitionError } from '../../core/errors';
import { recipientAddress } from '../../email/email-address';
import { parseReportDefinition, type DatasetName, type ReportDefinition } from '../../report/definition/definition';
import { datasetEntry } from '../../report/tables/registry';
import { lookupReport, type DefinitionCatalog } from '../../definitions/catalog';

/**
 * Finds the definition an export job runs, under least privilege (a caller must not widen what the
 * operators configured):
 *
 * - A configured report by name. Callers may narrow it and nothing else: `overrides` may hold only
 *   `formats` and `datasets`, and a dataset may only be one the report has, with selectors that are
 *   a subset of the configured ones. Name, folder, recipients, sender and subject stay as the
 *   operators configured them, so a caller can neither write into another report's folder nor make
 *   the organisation's mail identity send its text to anyone.
 * - An inline definition, only when the stack turns them on (INLINE_DEFINITIONS=on). Its name gets
 *   the inline prefix, so it writes under its own folders, never a configured report's; it may
 *   e-mail only addresses of the allow-listed domains, with the default sender and subject.
 *
 * Messages never list the configured reports: a caller learns only about what it asked for.
 */

export interface InlinePolicy {
  readonly enabled: boolean;
  /** Put in front of every inline definition's name (and so its folder). */
  readonly prefix: string;
  /** Lower-case domains inline definitions may e-mail; empty: no e-mail. */
  readonly emailDomains: readonly string[];
}

export const INLINE_OFF: InlinePolicy = { enabled: false, prefix: 'adhoc-', emailDomains: [] };

/** Overridable top-level fields. */
const OVERRIDABLE = ['datasets', 'formats'] as const;

type Issue = { path: string; message: string };

/**
 * The definition a job runs: the configured report narrowed by the caller's `overrides`, or an inline
 * definition where `inline` allows one. Throws a ReportDefinitionError naming each offending field.
 */
export function resolveDefinition(
  request: { report?: string | undefined; definition?: unknown; overrides?: Record<string, unknown> | undefined },
  configured: unknown,
  inline: InlinePolicy = INLINE_OFF,
): ReportDefinition {
  if (request.definition !== undefined) {
    if (request.report !== undefined || request.overrides !== undefined) {
      throw new ReportDefinitionError('give either "definition", or "report" with optional "overrides", not both', [
        { path: 'definition', message: 'not allowed together with "report" or "overrides"' },
      ]);
    }
    return resolveInline(request.definition, inline);
  }
  if (request.report === undefined) {
    throw new ReportDefinitionError('give "report" (the name of a configured report)', [
      { path: 'report', message: 'required' },
    ]);
  }
  if (configured === undefined || typeof configured !== 'object' || configured === null) {
    throw new ReportDefinitionError(`no report named "${request.report}" is configured; ask the operators for the name`, [
      { path: 'report', message: 'unknown report name' },
    ]);
  }
  const base = parseReportDefinition(configured, `report "${request.report}"`);
  // With inline runs on, a configured report under their prefix would share their folders.
  if (inline.enabled && base.name.startsWith(inline.prefix)) {
    throw new ReportDefinitionError(
      `configured report "${base.name}" starts with the inline prefix "${inline.prefix}"; rename it or change INLINE_PREFIX`,
      [{ path: 'report', message: 'name collides with the inline prefix' }],
    );
  }
  if (request.overrides === undefined) return base;
  return applyOverrides(base, request.overrides);
}

/** The configured definition a request names (as written), or undefined for inline or unknown ones. */
export async function configuredDefinition(
  request: { report?: string | undefined; definition?: unknown },
  catalog: DefinitionCatalog,
): Promise<unknown> {
  return request.definition === undefined && request.report !== undefined ? lookupReport(catalog, request.report) : undefined;
}

function applyOverrides(base: ReportDefinition, overrides: Record<string, unknown>): ReportDefinition {
  const issues: Issue[] = [];
  for (const key of Object.keys(overrides)) {
    if (!(OVERRIDABLE as readonly string[]).includes(key)) {
      issues.push({ path: `overrides.${key}`, message: `cannot be overridden; overrides may change only ${OVERRIDABLE.join(' and ')}` });
    }
  }
  let datasets: Record<string, unknown> = base.datasets;
  if (overrides.datasets !== undefined) {
    datasets = narrowDatasets(base, overrides.datasets, issues);
  }
  if (issues.length > 0) throw refused(issues);
  return parseReportDefinition(
    { ...base, datasets, ...(overrides.formats !== undefined && { formats: overrides.formats }) },
    `report "${base.name}" with overrides`,
  );
}

/** The datasets asked for, each one of the report's, with selectors within the configured ones. */
function narrowDatasets(base: ReportDefinition, requested: unknown, issues: Issue[]): Record<string, unknown> {
  if (requested === null || typeof requested !== 'object' || Array.isArray(requested)) {
    issues.push({ path: 'overrides.datasets', message: 'expected an object of datasets' });
    return {};
  }
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(requested)) {
    const path = `overrides.datasets.${name}`;
    const configured = Object.hasOwn(base.datasets, name)
      ? (base.datasets[name as DatasetName] as Record<string, unknown> | undefined)
      : undefined;
    if (configured === undefined) {
      issues.push({ path, message: 'this report does not export this dataset' });
      continue;
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      issues.push({ path, message: 'expected an object of selectors' });
      continue;
    }
    // The selector fields of the dataset (its scope, in the tables registry); its other fields cannot be overridden.
    const selectors = datasetEntry(name)?.selectors ?? [];
    const restricted = selectors.filter((s) => Array.isArray(configured[s]));
    for (const [field, ids] of Object.entries(value as Record<string, unknown>)) {
      if (!selectors.includes(field)) {
        issues.push({ path: `${path}.${field}`, message: `cannot be overridden; only the selectors ${selectors.join(', ')}` });
        continue;
      }
      // A report scoped by some selectors cannot be re-scoped by another one: that could widen it.
      if (restricted.length > 0 && !restricted.includes(field)) {
        issues.push({ path: `${path}.${field}`, message: `this report is scoped by ${restricted.join(', ')}; narrow those instead` });
        continue;
      }
      const allowed = configured[field] as string[] | undefined;
      if (!Array.isArray(ids) || !ids.every((id): id is string => typeof id === 'string')) {
        issues.push({ path: `${path}.${field}`, message: 'expected a list of ids' });
      } else if (allowed !== undefined) {
        const outside = ids.filter((id) => !allowed.includes(id));
        if (outside.length > 0) {
          issues.push({ path: `${path}.${field}`, message: `outside the report's scope: ${outside.join(', ')}` });
        }
      }
    }
    out[name] = { ...configured, ...(value as Record<string, unknown>) };
  }
  return out;
}

function resolveInline(input: unknown, inline: InlinePolicy): ReportDefinition {
  if (!inline.enabled) {
    throw new ReportDefinitionError('inline definitions are turned off for this API; ask for a configured report by name', [
      { path: 'definition', message: 'not allowed here' },
    ]);
  }
  const parsed = parseReportDefinition(input, 'definition');
  // The deliveries' recipients and channels are under the same rules as the top-level ones: each is
  // a place the report is sent to (nothing is sent for them today only because inline runs are not sliced).
  const issues: Issue[] = [
    ...senderIssues(parsed, 'definition', inline),
    ...(parsed.deliveries ?? []).flatMap((slice, index) => senderIssues(slice, `definition.deliveries.${index}`, inline)),
  ];
  if (issues.length > 0) throw refused(issues);
  const name = `${inline.prefix}${parsed.name}`;
  return parseReportDefinition({ ...parsed, name }, `definition (named "${name}" with the inline prefix)`);
}

/** What `part` (the definition, or one of its deliveries, at `path`) would send that an inline definition may not. */
function senderIssues(part: Pick<ReportDefinition, 'email' | 'delivery'>, path: string, inline: InlinePolicy): Issue[] {
  const issues: Issue[] = [];
  const email = part.email;
  if (email) {
    if (email.from !== undefined) issues.push({ path: `${path}.email.from`, message: 'inline definitions use the configured sender' });
    if (email.subjectTemplate !== undefined) {
      issues.push({ path: `${path}.email.subjectTemplate`, message: 'inline definitions use the default subject' });
    }
    const recipients = [
      ...email.to.map((a, i) => [typeof a === 'string' ? `to.${i}` : `to.${i}.address`, recipientAddress(a)] as const),
      ...(email.cc ?? []).map((a, i) => [`cc.${i}`, a] as const),
      ...(email.onFailure ?? []).map((a, i) => [`onFailure.${i}`, a] as const),
    ];
    for (const [where, address] of recipients) {
      const domain = address.slice(address.lastIndexOf('@') + 1).toLowerCase();
      if (!inline.emailDomains.includes(domain)) {
        issues.push({
          path: `${path}.email.${where}`,
          message: inline.emailDomains.length === 0 ? 'inline definitions may not send e-mail' : 'this domain may not receive e-mail from inline definitions',
        });
      }
    }
  }
  // A webhook secret names a configured report's channel: a caller's definition could post into it.
  if ((part.delivery?.channels.length ?? 0) > 0) {
    issues.push({ path: `${path}.delivery.channels`, message: 'inline definitions may not post to chat channels; configure the report instead' });
  }
  return issues;
}

function refused(issues: readonly Issue[]): ReportDefinitionError {
  const lines = issues.map((i) => `  - ${i.path}: ${i.message}`).join('\n');
  return new ReportDefinitionError(`the request asks for more than callers may change:\n${lines}`, issues);
}

/** The policy from the Lambda configuration (INLINE_DEFINITIONS, INLINE_PREFIX, INLINE_EMAIL_DOMAINS). */
export function inlinePolicy(config: { INLINE_DEFINITIONS: 'on' | 'off'; INLINE_PREFIX: string; INLINE_EMAIL_DOMAINS: readonly string[] }): InlinePolicy {
  return { enabled: config.INLINE_DEFINITIONS === 'on', prefix: config.INLINE_PREFIX, emailDomains: config.INLINE_EMAIL_DOMAINS };
}
