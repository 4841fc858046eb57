import * as z from 'zod';
import { ReportDefinitionError } from '../core/errors';
import { parseReportDefinition, type ReportDefinition } from '../report/definition';

/**
 * Finds the definition an export job runs: a configured one by name, with top-level fields replaced
 * by `overrides` (replacing whole fields keeps the result predictable: `datasets` in overrides
 * replaces all datasets), or a complete inline definition. Either way it is validated in full.
 */
export function resolveDefinition(
  request: { report?: string | undefined; definition?: unknown; overrides?: Record<string, unknown> | undefined },
  configured: Readonly<Record<string, unknown>>,
): ReportDefinition {
  if (request.definition !== undefined) {
    if (request.report !== undefined || request.overrides !== undefined) {
      throw new ReportDefinitionError('give either "definition", or "report" with optional "overrides", not both', [
        { path: 'definition', message: 'not allowed together with "report" or "overrides"' },
      ]);
    }
    return parseReportDefinition(request.definition, 'definition');
  }
  if (request.report === undefined) {
    throw new ReportDefinitionError('give "report" (the name of a configured report) or a full "definition"', [
      { path: 'report', message: 'required when no definition is given' },
    ]);
  }
  const base = configured[request.report];
  if (base === undefined || typeof base !== 'object' || base === null) {
    const names = Object.keys(configured);
    throw new ReportDefinitionError(
      `no report named "${request.report}" is configured; configured reports: ${names.join(', ') || '(none)'}`,
      [{ path: 'report', message: 'unknown report name' }],
    );
  }
  return parseReportDefinition({ ...base, ...(request.overrides ?? {}) }, `report "${request.report}"`);
}

/** Parses REPORT_DEFINITIONS (JSON object of definitions by name), validating each. */
export function parseConfiguredDefinitions(json: string): Record<string, ReportDefinition> {
  const raw = z.record(z.string(), z.unknown()).parse(JSON.parse(json));
  return Object.fromEntries(
    Object.entries(raw).map(([name, value]) => [name, parseReportDefinition(value, `configured report "${name}"`)]),
  );
}
