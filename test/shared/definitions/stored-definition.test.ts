import { describe, expect, it } from 'vitest';
import { ReportDefinitionError } from '../../../shared/core/errors';
import {
  definitionKey,
  parseStoredDefinition,
  parseStoredDefinitionJson,
  reportNameOfKey,
  storedDefinitionText,
} from '../../../shared/definitions/stored-definition';

const weekly = { name: 'train-a', datasets: { risks: {} }, formats: ['xlsx' as const] };

function issuesOf(run: () => unknown): { path: string; message: string }[] {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ReportDefinitionError);
    return [...(error as ReportDefinitionError).issues];
  }
  throw new Error('expected a ReportDefinitionError');
}

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
        { definition: { ...weekly, name: 'Train A', formats: ['pdf'] }, schedule: { cron: 'cron(0 7 * * MON *)', timeZone: 'Mars/Olympus' }, owner: 'x' },
        'train-a.json',
      ),
    );
    expect(issues.map((i) => i.path).sort()).toEqual(['(root)', 'definition.formats.0', 'definition.name', 'schedule.cron', 'schedule.timeZone']);
    expect(issues.find((i) => i.path === 'schedule.cron')?.message).toMatch(/must be "\?"/);
    expect(issues.find((i) => i.path === '(root)')?.message).toMatch(/unknown field\(s\) "owner"/);
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
