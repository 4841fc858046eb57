import { describe, expect, it } from 'vitest';
import { ReportDefinitionError } from '../../../../shared/core/errors';
import { parseReportDefinition } from '../../../../shared/report/definition/definition';
import { planningLink, templateProblem } from '../../../../shared/report/summary/planning-links';

describe('links into the planning tool', () => {
  it('fills a template with the item\'s fields, encoded, and gives up when one is missing', () => {
    const template = 'https://acme.example.com/risks/{registerId}/{id}';
    expect(planningLink(template, { registerId: 'reg 1', id: 'r/7' })).toBe('https://acme.example.com/risks/reg%201/r%2F7');
    expect(planningLink(template, { registerId: 'reg-1' })).toBeUndefined();
    expect(planningLink(undefined, { id: 'r-7' })).toBeUndefined();
  });

  it('accepts only http(s) templates whose placeholders its kind knows, and says which it knows', () => {
    expect(templateProblem('okrUrl', 'https://acme.example.com/okr/{key}')).toBeUndefined();
    expect(templateProblem('okrUrl', 'javascript:alert({key})')).toBe('must be an http(s) URL');
    expect(templateProblem('okrUrl', 'https://acme.example.com/okr/{boardId}')).toBe('knows the placeholders {id}, {key}, not {boardId}');
    expect(templateProblem('piObjectiveUrl', 'https://acme.example.com/objectives')).toBe('must contain one of {id}, {boardId} to tell items apart');
  });

  it('reports a bad template in a definition with its path', () => {
    let error: unknown;
    try {
      parseReportDefinition({ name: 'weekly', datasets: { risks: {} }, links: { riskUrl: 'https://acme.example.com/risk/{riskId}' } });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ReportDefinitionError);
    expect((error as ReportDefinitionError).issues).toEqual([
      { path: 'links.riskUrl', message: 'knows the placeholders {id}, {key}, {registerId}, not {riskId}' },
    ]);
  });
});
