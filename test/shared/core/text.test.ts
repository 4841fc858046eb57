import { describe, expect, it } from 'vitest';
import { SelectorNotFoundError } from '../../../shared/core/errors';
import { jsonErrorOffset, jsonSyntaxProblem, printable, stripBom } from '../../../shared/core/text';

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

describe('JSON syntax errors by line and column', () => {
  it('finds no error in what JSON.parse accepts, and one in what it refuses', () => {
    const samples = [
      '{"a": [1, -2.5e3, true, false, null, "x\\"\\u00e9"], "b": {}}',
      ' [ ] ',
      '"text"',
      '{"a": 1,}',
      '[1 2]',
      '{"a" 1}',
      "{'a': 1}",
      '{"a": 01}',
      '{"a": "tab\there"}',
      '{"a": 1} x',
      '',
      'nul',
    ];
    for (const text of samples) {
      let parses = true;
      try {
        JSON.parse(text);
      } catch {
        parses = false;
      }
      expect(jsonErrorOffset(text) === undefined, text).toBe(parses);
    }
  });

  it('says what is wrong and where, as an editor counts lines and columns', () => {
    expect(jsonSyntaxProblem('{\n  "name": "acme",\n  "formats": ["csv",]\n}')).toBe('unexpected "]" at line 3, column 21');
    expect(jsonSyntaxProblem('{\n  "name": "acme"')).toBe('the text ends before the JSON does at line 2, column 17');
  });
});
