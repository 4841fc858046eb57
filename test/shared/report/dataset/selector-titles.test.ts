import { describe, expect, it } from 'vitest';
import { selectAll, selectRecord } from '../../../../shared/report/dataset/selector-titles';

const registers = [
  { id: 'r-1', key: 'PAY', title: 'Payments risks' },
  { id: 'r-2', key: 'MOB', title: 'Mobile risks' },
  { id: 'r-3', key: 'OPS', title: 'Shared risks' },
  { id: 'r-4', key: 'SEC', title: 'Shared risks' },
];
const words = { noun: 'risk register', keyed: true };

describe('selectRecord', () => {
  it('finds a record by id, by key and by title', () => {
    expect(selectRecord(registers, 'r-2', words).record?.key).toBe('MOB');
    expect(selectRecord(registers, 'PAY', words).record?.id).toBe('r-1');
    expect(selectRecord(registers, 'Mobile risks', words).record?.id).toBe('r-2');
  });

  it('matches a title regardless of case and blanks when no title matches exactly', () => {
    expect(selectRecord(registers, '  payments   RISKS ', words).record?.id).toBe('r-1');
  });

  it('prefers an id or key over a record whose title is that text', () => {
    const tricky = [...registers, { id: 'r-5', key: 'X', title: 'PAY' }];
    expect(selectRecord(tricky, 'PAY', words).record?.id).toBe('r-1');
  });

  it('refuses an ambiguous title and lists the records that have it', () => {
    expect(selectRecord(registers, 'Shared risks', words)).toEqual({
      problem: '"Shared risks" is ambiguous: 2 visible risk registers have that title: OPS "Shared risks", SEC "Shared risks". Name one by its key or id instead.',
    });
  });

  it('refuses an unknown selector and lists every visible candidate with the hint', () => {
    const boards = [{ id: 'b-1', title: 'Payments ART' }, { id: 'b-2', title: 'Mobile Release Train' }];
    expect(selectRecord(boards, 'Payment ART', { noun: 'board', keyed: false, hint: 'Run npm run discover.' })).toEqual({
      problem: '"Payment ART" is not a board this key can see (by id or title); visible: b-1 "Payments ART", b-2 "Mobile Release Train". Run npm run discover.',
    });
  });

  it('says (none) when nothing is visible', () => {
    expect(selectRecord([], 'x', words).problem).toMatch(/visible: \(none\)\.$/);
  });
});

describe('selectAll', () => {
  it('keeps the selectors\' order (a record named twice comes twice) and places each problem at its index', () => {
    expect(selectAll(registers, ['MOB', 'nope', 'Mobile risks', 'Shared risks'], 'datasets.risks.registers', words)).toEqual({
      records: [registers[1], registers[1]],
      issues: [
        { path: 'datasets.risks.registers[1]', message: expect.stringMatching(/^"nope" is not a risk register this key can see \(by id, key or title\); visible: PAY/) as unknown },
        { path: 'datasets.risks.registers[3]', message: expect.stringMatching(/^"Shared risks" is ambiguous/) as unknown },
      ],
    });
  });
});
