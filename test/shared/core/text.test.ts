import { describe, expect, it } from 'vitest';
import { SelectorNotFoundError } from '../../../shared/core/errors';
import { printable, stripBom } from '../../../shared/core/text';

describe('printable', () => {
  it('shows control, ANSI and bidi characters as escapes and leaves the rest', () => {
    expect(printable('R1\u001b[2J\u001b]0;owned\u0007 \u009b31m \u202eevil')).toBe('R1\\u001b[2J\\u001b]0;owned\\u0007 \\u009b31m \\u202eevil');
    expect(printable('Board “Ünïcode” — ok, tabs\tand\nlines')).toBe('Board “Ünïcode” — ok, tabs\\u0009and\\u000alines');
  });

  it('is applied to every selector-not-found message (ids and names from the planning tool)', () => {
    const error = new SelectorNotFoundError('risks.registers: no visible risk register has the id or key "x". Visible registers: \u001b[31mRED\u001b[0m.');
    expect(error.message).toBe('risks.registers: no visible risk register has the id or key "x". Visible registers: \\u001b[31mRED\\u001b[0m.');
    expect(error.message).not.toContain('\u001b');
  });

  it('stripBom still strips a leading byte-order mark only', () => {
    expect(stripBom('\ufeff{}')).toBe('{}');
  });
});
