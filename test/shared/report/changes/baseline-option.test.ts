import { describe, expect, it } from 'vitest';
import { ReportDefinitionError } from '../../../../shared/core/errors';
import { minimumAgeMs } from '../../../../shared/report/changes/baseline';
import { parseReportDefinition } from '../../../../shared/report/definition/definition';

const def = (changes: unknown) => ({ name: 'weekly', datasets: { risks: {} }, changes });

describe('changes.baseline', () => {
  it('defaults to the previous run', () => {
    expect(parseReportDefinition({ name: 'weekly', datasets: { risks: {} } }).changes).toEqual({ baseline: 'previous' });
  });

  it('takes a minimum age as an ISO 8601 duration', () => {
    expect(parseReportDefinition(def({ baseline: 'P7D' })).changes.baseline).toBe('P7D');
    expect(minimumAgeMs('P7D')).toBe(7 * 86_400_000);
    expect(minimumAgeMs('P1W')).toBe(7 * 86_400_000);
    expect(minimumAgeMs('P1DT12H')).toBe(36 * 3_600_000);
    expect(minimumAgeMs('PT30M')).toBe(30 * 60_000);
    expect(minimumAgeMs('previous')).toBe(0);
  });

  it('names the field and the accepted forms when the value is wrong', () => {
    for (const bad of ['7 days', 'P', 'PT', 'P7', 'weekly', '']) {
      let error: unknown;
      try {
        parseReportDefinition(def({ baseline: bad }));
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(ReportDefinitionError);
      expect((error as Error).message).toContain('changes.baseline: must be "previous" or a minimum age as an ISO 8601 duration such as "P7D"');
    }
    expect(() => parseReportDefinition(def({ since: 'P7D' }))).toThrow(/changes: unknown field "since": check the spelling; the only field here is baseline/);
  });
});
