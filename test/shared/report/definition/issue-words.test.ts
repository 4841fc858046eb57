import { describe, expect, it } from 'vitest';
import { parseReportDefinition } from '../../../../shared/report/definition/definition';
import { didYouMean } from '../../../../shared/report/definition/issue-words';
import { definitionIssues } from '../../../support/definition-issues';

const issuesOf = (input: unknown) => definitionIssues(() => parseReportDefinition(input, 'report.json'));

describe('what a definition with a typo is told', () => {
  it('names the value written, the valid choices and the nearest one, instead of "Invalid option"', () => {
    expect(issuesOf({ name: 'weekly', datasets: { risks: {} }, formats: ['xlsx', 'pfd'] })).toEqual([
      { path: 'formats.1', message: '"pfd" is not one of xlsx, pdf, csv or parquet (did you mean "pdf"?)' },
    ]);
  });

  it('names the four datasets, and the one an unknown dataset name is nearest to', () => {
    const issues = issuesOf({ name: 'weekly', datasets: { risk: {}, okrs: {} } });
    expect(issues).toEqual([
      { path: 'datasets', message: 'unknown field "risk" (did you mean "risks"?): check the spelling; the fields here are risks, okrs, piObjectives and boardItems' },
    ]);
  });

  it('guesses only when the word is near: a third of its letters, at least two', () => {
    expect(didYouMean('boardsItems', ['risks', 'okrs', 'piObjectives', 'boardItems'])).toBe('boardItems');
    expect(didYouMean('PIobjectives', ['risks', 'okrs', 'piObjectives', 'boardItems'])).toBe('piObjectives');
    expect(didYouMean('toys', ['risks', 'okrs', 'piObjectives', 'boardItems'])).toBeUndefined();
  });
});
