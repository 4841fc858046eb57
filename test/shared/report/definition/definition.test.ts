import { describe, expect, it } from 'vitest';
import { parseReportDefinition, parseReportDefinitionJson } from '../../../../shared/report/definition/definition';
import { definitionIssues } from '../../../support/definition-issues';

const issuesOf = (input: unknown) => definitionIssues(() => parseReportDefinition(input));

describe('parseReportDefinition', () => {
  it('caps its lists, its strings and its whole size, naming the path and the limit', () => {
    const boards = (n: number, length = 4) => Array.from({ length: n }, (_, i) => `${i}`.padStart(length, 'b'));
    expect(issuesOf({ name: 'big', datasets: { boardItems: { boards: boards(1_001) } } })).toEqual([
      { path: 'datasets.boardItems.boards', message: 'list at most 1,000 entries (board id or title); leave the selector out to export all visible ones' },
    ]);
    expect(issuesOf({ name: 'big', datasets: { boardItems: { boards: ['b'.repeat(501)] } } })).toEqual([
      { path: 'datasets.boardItems.boards.0', message: 'a board id or title has at most 500 characters' },
    ]);
    // 50 deliveries of 1,000 boards each: every list within its cap, the whole past 256 KiB.
    const deliveries = Array.from({ length: 50 }, (_, i) => ({ name: `d${i}`, filter: { boards: boards(1_000, 8) } }));
    expect(issuesOf({ name: 'big', datasets: { boardItems: {} }, deliveries })).toEqual([
      { path: '(root)', message: expect.stringMatching(/^the document is [\d.]+ KiB of JSON, more than the 256\.0 KiB a report may have/) as string },
    ]);
  });


  it('accepts the documented example and fills defaults', () => {
    const d = parseReportDefinition({
      name: 'acme-weekly',
      datasets: {
        risks: {},
        okrs: {},
        piObjectives: { boards: ['b1'], completionType: 2, additionalColumns: true },
        boardItems: { boards: ['b1'] },
      },
      formats: ['xlsx', 'csv'],
    });
    expect(d.timeZone).toBe('UTC');
    expect(d.locale).toBe('en-GB');
    expect(d.csv.bom).toBe(true);
    expect(d.csv.neutraliseFormulas).toBe(true);
    expect(d.links.presignedSeconds).toBe(3600);
    expect(d.datasets.piObjectives?.completionType).toBe(2);
  });

  it('lists every bad field with its path and reason', () => {
    const issues = issuesOf({
      name: 'Acme Weekly!',
      timeZone: 'Mars/Olympus',
      datasets: { piObjectives: { completionType: 9 }, boardz: {} },
      formats: ['docx'],
    });
    const paths = issues.map((i) => i.path);
    expect(paths).toEqual(expect.arrayContaining(['name', 'timeZone', 'datasets.piObjectives.completionType', 'datasets', 'formats.0']));
    expect(issues.find((i) => i.path === 'datasets')?.message).toContain('"boardz"');
    expect(issues.find((i) => i.path === 'name')?.message).toContain('slug');
  });

  it('accepts parquet as a format and the csv.neutraliseFormulas switch', () => {
    const d = parseReportDefinition({ name: 'x', datasets: { risks: {} }, formats: ['parquet', 'csv'], csv: { neutraliseFormulas: false } });
    expect(d.formats).toEqual(['parquet', 'csv']);
    expect(d.csv).toEqual({ bom: true, neutraliseFormulas: false });
  });

  it('rejects a definition with no dataset', () => {
    expect(issuesOf({ name: 'x', datasets: {} })[0]?.message).toContain('at least one dataset');
  });

  it('rejects bad e-mail recipients at validation time', () => {
    const issues = issuesOf({ name: 'x', datasets: { risks: {} }, email: { to: ['ok@example.com', 'not an address'] } });
    expect(issues.map((i) => i.path)).toContain('email.to.1');
  });

  it('rejects duplicate formats and empty selector lists', () => {
    const issues = issuesOf({ name: 'x', datasets: { risks: { registers: [] } }, formats: ['csv', 'csv'] });
    expect(issues.map((i) => i.path)).toEqual(expect.arrayContaining(['formats', 'datasets.risks.registers']));
  });

  it('reports JSON syntax errors as such', () => {
    expect(() => parseReportDefinitionJson('{"name": ', 'report.json')).toThrow(/report.json is not valid JSON/);
  });

  it('places a JSON syntax error by line and column, not by character position', () => {
    const text = '{\n  "name": "acme",\n  "formats" ["csv"]\n}\n';
    expect(() => parseReportDefinitionJson(text, 'report.json')).toThrow(/^report\.json is not valid JSON: unexpected "\[" at line 3, column 13$/);
    expect(() => parseReportDefinitionJson('{\n  "name": "acme",\n', 'report.json')).toThrow(/^report\.json is not valid JSON: the text ends before the JSON does at line 3, column 1$/);
  });

  it('refuses selector ids with control or ANSI characters, naming the field and not echoing the id', () => {
    const issues = issuesOf({ name: 'acme', datasets: { risks: { registers: ['ok', 'R1\u001b[2J\u001b]0;owned\u0007'] }, boardItems: { boards: ['b\u009b31m'] } } });
    expect(issues).toEqual([
      { path: 'datasets.risks.registers.1', message: 'register id, key or title must not contain control characters (copy it again)' },
      { path: 'datasets.boardItems.boards.0', message: 'board id or title must not contain control characters (copy it again)' },
    ]);
    expect(issues.map((i) => `${i.path} ${i.message}`).join('\n')).not.toMatch(/owned|31m/);
  });

  it('takes a locale as a BCP 47 tag, written as Intl writes it', () => {
    const d = parseReportDefinition({ name: 'acme', locale: 'de-de', datasets: { risks: {} } });
    expect(d.locale).toBe('de-DE');
    expect(parseReportDefinition({ name: 'acme', locale: 'fr-FR', datasets: { risks: {} } }).locale).toBe('fr-FR');
  });

  it('refuses a locale that is not a BCP 47 tag, or one Intl cannot format in, naming the field and what to do', () => {
    expect(issuesOf({ name: 'acme', locale: 'de_DE', datasets: { risks: {} } })).toEqual([
      { path: 'locale', message: '"de_DE" is not a BCP 47 language tag: give a BCP 47 tag such as en-GB, de-DE or fr-FR, or leave locale out for en-GB' },
    ]);
    expect(issuesOf({ name: 'acme', locale: 'zz-ZZ', datasets: { risks: {} } })).toEqual([
      {
        path: 'locale',
        message: '"zz-ZZ" is not a locale this exporter can format numbers and dates in: give a BCP 47 tag such as en-GB, de-DE or fr-FR, or leave locale out for en-GB',
      },
    ]);
    expect(issuesOf({ name: 'acme', locale: '', datasets: { risks: {} } }).map((i) => i.path)).toEqual(['locale']);
  });
});
