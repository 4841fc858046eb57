import { describe, expect, it } from 'vitest';
import { SelectorNotFoundError } from '../../../shared/core/errors';
import { resolveSelector } from '../../../shared/report/selector-titles';

const registers = [
  { id: 'r-1', key: 'PAY', title: 'Payments risks' },
  { id: 'r-2', key: 'MOB', title: 'Mobile risks' },
  { id: 'r-3', key: 'OPS', title: 'Shared risks' },
  { id: 'r-4', key: 'SEC', title: 'Shared risks' },
];
const words = { path: 'risks.registers', noun: 'risk register', keyed: true };

describe('resolveSelector', () => {
  it('finds a record by id, by key and by title', () => {
    expect(resolveSelector(registers, 'r-2', words).key).toBe('MOB');
    expect(resolveSelector(registers, 'PAY', words).id).toBe('r-1');
    expect(resolveSelector(registers, 'Mobile risks', words).id).toBe('r-2');
  });

  it('matches a title regardless of case and blanks when no title matches exactly', () => {
    expect(resolveSelector(registers, '  payments   RISKS ', words).id).toBe('r-1');
  });

  it('prefers an id or key over a record whose title is that text', () => {
    const tricky = [...registers, { id: 'r-5', key: 'X', title: 'PAY' }];
    expect(resolveSelector(tricky, 'PAY', words).id).toBe('r-1');
  });

  it('refuses an ambiguous title and lists the records that have it', () => {
    const attempt = () => resolveSelector(registers, 'Shared risks', words);
    expect(attempt).toThrow(SelectorNotFoundError);
    expect(attempt).toThrow('risks.registers: "Shared risks" is ambiguous: 2 visible risk registers have that title: OPS "Shared risks", SEC "Shared risks". Name one by its key or id instead.');
  });

  it('refuses an unknown selector and lists every visible candidate with the hint', () => {
    const boards = [{ id: 'b-1', title: 'Payments ART' }, { id: 'b-2', title: 'Mobile Release Train' }];
    const attempt = () => resolveSelector(boards, 'Payment ART', { path: 'boardItems.boards', noun: 'board', keyed: false, hint: 'Run npm run discover.' });
    expect(attempt).toThrow(
      'boardItems.boards: no visible board has the id "Payment ART", nor a title of that name. Run npm run discover. Visible boards: b-1 "Payments ART", b-2 "Mobile Release Train".',
    );
  });

  it('says (none) when nothing is visible', () => {
    expect(() => resolveSelector([], 'x', words)).toThrow(/Visible risk registers: \(none\)\./);
  });
});
