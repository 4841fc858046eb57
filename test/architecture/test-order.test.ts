import { describe, expect, it } from 'vitest';
import { longestFirst, type OrderedFile } from '../support/test-order';

const file = (project: string, name: string, slow = false, group = 0): OrderedFile & { name: string } => ({ project, name, slow, group });

describe('test order', () => {
  it('starts the slow tier before the fast tiers and ends with the project of the most files', () => {
    const vitestOrder = [
      file('docs', 'd1'),
      file('fast', 'f1'),
      file('fast', 'f2'),
      file('fast', 'f3'),
      file('slow', 's1', true),
      file('slow', 's2', true),
    ];
    expect(longestFirst(vitestOrder).map((f) => f.name)).toEqual(['s1', 's2', 'd1', 'f1', 'f2', 'f3']);
  });

  it("keeps each project's files together and in vitest's order", () => {
    const ordered = longestFirst([file('fast', 'f2'), file('slow', 's9', true), file('fast', 'f1'), file('slow', 's1', true)]);
    expect(ordered.map((f) => f.name)).toEqual(['s9', 's1', 'f2', 'f1']);
  });

  it('puts a project mostly of slow files before one with a few', () => {
    const mixed = [file('few', 'a', true), file('few', 'b'), file('few', 'c'), file('most', 'x', true), file('most', 'y', true), file('most', 'z')];
    expect(longestFirst(mixed).map((f) => f.project)).toEqual(['most', 'most', 'most', 'few', 'few', 'few']);
  });

  it("leaves vitest's sequence groups first", () => {
    const grouped = [file('slow', 'late', true, 1), file('fast', 'early', false, 0)];
    expect(longestFirst(grouped).map((f) => f.name)).toEqual(['early', 'late']);
  });
});
