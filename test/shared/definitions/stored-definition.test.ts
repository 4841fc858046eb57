import { describe, expect, it } from 'vitest';
import { definitionIssues } from '../../support/definition-issues';
import {
  definitionKey,
  parseStoredDefinition,
  parseStoredDefinitionJson,
  reportNameOfKey,
  storedDefinitionText,
} from '../../../shared/definitions/stored-definition';

const weekly = { name: 'train-a', datasets: { risks: {} }, formats: ['xlsx' as const] };

const issuesOf = definitionIssues;

describe('stored report', () => {
  it('keeps the definition as written, parses it, and defaults to no schedule', () => {
    const stored = parseStoredDefinition({ definition: weekly }, 'train-a.json');
    expect(stored.definition).toBe(weekly);
    expect(stored.parsed.timeZone).toBe('UTC');
    expect(stored.schedule).toBeNull();
  });

  it('lists every problem with its path, in the definition and in the schedule', () => {
    const issues = issuesOf(() =>
      parseStoredDefinition(
        { definition: { ...weekly, name: 'Train A', formats: ['docx'] }, schedule: { cron: 'cron(0 7 * * MON *)', timeZone: 'Mars/Olympus' }, owner: 'x' },
        'train-a.json',
      ),
    );
    expect(issues.map((i) => i.path).sort()).toEqual(['(root)', 'definition.formats.0', 'definition.name', 'schedule.cron', 'schedule.timeZone']);
    expect(issues.find((i) => i.path === 'schedule.cron')?.message).toMatch(/must be "\?"/);
    expect(issues.find((i) => i.path === '(root)')?.message).toBe('unknown field "owner": check the spelling; the fields here are definition and schedule');
  });

  // Before: 100,000 registers, a 20 MB selector and a cron of 100,000 fields were all stored.
  describe('size caps, each named by its path and its limit', () => {
    const withRegisters = (registers: string[]) => ({ definition: { ...weekly, datasets: { risks: { registers } } } });

    it('refuses 100,000 registers as a document over 256 KiB, and 1,001 registers as a list over 1,000', () => {
      const huge = Array.from({ length: 100_000 }, (_, i) => `register-${i}`);
      expect(issuesOf(() => parseStoredDefinition(withRegisters(huge), 'train-a.json'))).toEqual([
        { path: '(root)', message: expect.stringMatching(/^the document is [\d.]+ MiB of JSON, more than the 256\.0 KiB a report may have; list fewer selectors/) as string },
      ]);
      const many = Array.from({ length: 1_001 }, (_, i) => `r-${i}`);
      expect(issuesOf(() => parseStoredDefinition(withRegisters(many), 'train-a.json'))).toEqual([
        { path: 'definition.datasets.risks.registers', message: expect.stringContaining('list at most 1,000 entries (register id, key or title)') as string },
      ]);
      expect(parseStoredDefinition(withRegisters(many.slice(0, 1_000)), 'train-a.json').parsed.datasets.risks?.registers).toHaveLength(1_000);
    });

    it('refuses a 20 MB selector before parsing its text, and a selector over 500 characters by its path', () => {
      const text = JSON.stringify(withRegisters(['r'.repeat(20 * 1024 * 1024)]));
      expect(() => parseStoredDefinitionJson(text, 'reports/train-a.json')).toThrow(
        /^reports\/train-a\.json is invalid:\n {2}- \(root\): the text is 20\.0 MiB, more than the 1\.0 MiB a report's file may have$/,
      );
      expect(issuesOf(() => parseStoredDefinition(withRegisters(['ok', 'r'.repeat(501)]), 'train-a.json'))).toEqual([
        { path: 'definition.datasets.risks.registers.1', message: 'a register id, key or title has at most 500 characters' },
      ]);
    });

    it('refuses a cron of 100,000 fields by its length, before reading its fields', () => {
      const cron = `cron(0 7 ? * MON ${'* '.repeat(100_000)}*)`;
      expect(issuesOf(() => parseStoredDefinition({ definition: weekly, schedule: { cron, timeZone: 'UTC' } }, 'train-a.json'))).toEqual([
        { path: 'schedule.cron', message: "must be at most 256 characters (Scheduler's limit)" },
      ]);
    });

    it('refuses recipient lists past SES’s 50, link templates past 2,000 characters and more formats than there are', () => {
      const to = Array.from({ length: 51 }, (_, i) => `p${i}@example.com`);
      const issues = issuesOf(() =>
        parseStoredDefinition(
          {
            definition: {
              ...weekly,
              formats: ['xlsx', 'xlsx', 'xlsx', 'xlsx', 'xlsx', 'xlsx', 'xlsx', 'xlsx', 'xlsx', 'xlsx'],
              email: { to },
              links: { riskUrl: `https://acme.example.com/${'x'.repeat(2_000)}/{id}` },
            },
          },
          'train-a.json',
        ),
      );
      expect(issues.map((i) => i.path).sort()).toEqual(['definition.email.to', 'definition.formats', 'definition.links.riskUrl']);
      expect(issues.find((i) => i.path === 'definition.email.to')?.message).toMatch(/^list at most 50 addresses/);
      expect(issues.find((i) => i.path === 'definition.links.riskUrl')?.message).toBe('must be at most 2,000 characters');
    });
  });

  it('names the file and the JSON error when the text is not JSON', () => {
    expect(() => parseStoredDefinitionJson('{"definition": ', 'reports/train-a.json')).toThrow(/^reports\/train-a\.json is invalid:\n {2}- \(root\): not valid JSON/);
  });

  it('reads a byte-order mark as nothing and writes text that reads back the same', () => {
    const text = storedDefinitionText({ definition: weekly, schedule: { cron: 'cron(0 7 ? * MON *)', timeZone: 'Europe/Berlin' } });
    const again = parseStoredDefinitionJson(`\uFEFF${text}`, 'x');
    expect(again.definition).toEqual(weekly);
    expect(again.schedule).toEqual({ cron: 'cron(0 7 ? * MON *)', timeZone: 'Europe/Berlin' });
  });

  it('maps report names to keys under definitions/ and back, and nothing else to a name', () => {
    expect(definitionKey('train-a')).toBe('definitions/train-a.json');
    expect(reportNameOfKey('definitions/train-a.json')).toBe('train-a');
    for (const key of ['definitions/Train.json', 'definitions/a/b.json', 'definitions/train-a.json.bak', 'reports/train-a.json', 'definitions/-x.json']) {
      expect(reportNameOfKey(key), key).toBeUndefined();
    }
  });
});
