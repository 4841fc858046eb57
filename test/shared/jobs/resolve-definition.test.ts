import { describe, expect, it } from 'vitest';
import { ReportDefinitionError } from '../../../shared/core/errors';
import { parseConfiguredDefinitions, resolveDefinition } from '../../../shared/jobs/resolve-definition';

const configured = { weekly: { name: 'weekly', datasets: { risks: {} }, formats: ['xlsx', 'csv'] } };

describe('resolveDefinition', () => {
  it('uses a configured definition by name and replaces whole top-level fields with overrides', () => {
    const d = resolveDefinition({ report: 'weekly', overrides: { formats: ['csv'], datasets: { boardItems: {} } } }, configured);
    expect(d.formats).toEqual(['csv']);
    expect(Object.keys(d.datasets).filter((k) => d.datasets[k as keyof typeof d.datasets])).toEqual(['boardItems']);
  });

  it('validates overrides like any definition, naming the field', () => {
    expect(() => resolveDefinition({ report: 'weekly', overrides: { formats: ['pdf'] } }, configured)).toThrow(/formats\.0/);
  });

  it('names the configured reports when the name is unknown', () => {
    expect(() => resolveDefinition({ report: 'monthly' }, configured)).toThrow(/no report named "monthly".*weekly/);
  });

  it('refuses a definition together with a report name', () => {
    expect(() => resolveDefinition({ report: 'weekly', definition: configured.weekly }, configured)).toThrow(ReportDefinitionError);
  });

  it('requires one of report or definition', () => {
    expect(() => resolveDefinition({}, configured)).toThrow(/give "report"/);
  });
});

describe('parseConfiguredDefinitions', () => {
  it('validates every configured definition and names the bad one', () => {
    expect(Object.keys(parseConfiguredDefinitions(JSON.stringify(configured)))).toEqual(['weekly']);
    expect(() => parseConfiguredDefinitions(JSON.stringify({ bad: { name: 'Bad!', datasets: {} } }))).toThrow(/configured report "bad"/);
  });
});
