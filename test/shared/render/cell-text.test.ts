import { describe, expect, it } from 'vitest';
import {
  EXCEL_CELL_MAX_CHARS,
  neutraliseFormula,
  removeXmlForbidden,
  restoreFormula,
  truncateForExcel,
  worksheetText,
} from '../../../shared/render/cell-text';

describe('neutraliseFormula', () => {
  it.each([
    ['=1+1', "'=1+1"],
    ['+49 30 1234', "'+49 30 1234"],
    ['-5', "'-5"],
    ['@SUM(A1:A2)', "'@SUM(A1:A2)"],
    ['\tindented', "'\tindented"],
    ['\rcarriage', "'\rcarriage"],
    ["=cmd|' /C calc'!A0", "'=cmd|' /C calc'!A0"],
  ])('prefixes one apostrophe to text a spreadsheet would evaluate: %j', (input, expected) => {
    expect(neutraliseFormula(input)).toBe(expected);
  });

  it.each(['plain', '', '1+1', ' =x', 'a=b', "'quoted", "''", 'Ünïcödé 🚀', '\n=x'])(
    'leaves text a spreadsheet would not evaluate unchanged: %j',
    (input) => {
      expect(neutraliseFormula(input)).toBe(input);
    },
  );

  it('adds one more apostrophe to text that already looks neutralised, so the rule can be reversed', () => {
    expect(neutraliseFormula("'=1")).toBe("''=1");
    expect(neutraliseFormula("''-2")).toBe("'''-2");
  });
});

describe('restoreFormula', () => {
  it('removes exactly one apostrophe from neutralised text and leaves other text alone', () => {
    expect(restoreFormula("'=1+1")).toBe('=1+1');
    expect(restoreFormula("''=1")).toBe("'=1");
    expect(restoreFormula("'quoted")).toBe("'quoted");
    expect(restoreFormula("'")).toBe("'");
    expect(restoreFormula('plain')).toBe('plain');
  });

  it('is the exact inverse of neutraliseFormula for every text, including tricky ones', () => {
    const alphabet = ["'", '=', '+', '-', '@', '\t', '\r', '\n', 'a', ' ', '"'];
    const samples: string[] = [''];
    // Every string of up to 4 characters over an alphabet of the characters the rule looks at.
    for (let length = 1; length <= 4; length++) {
      const next: string[] = [];
      for (const prefix of samples.filter((s) => s.length === length - 1)) {
        for (const c of alphabet) next.push(prefix + c);
      }
      samples.push(...next);
    }
    expect(samples.length).toBeGreaterThan(15_000);
    for (const text of samples) {
      expect(restoreFormula(neutraliseFormula(text))).toBe(text);
    }
  });

  it('is injective: two different texts never neutralise to the same text', () => {
    const texts = ['=1', "'=1", "''=1", '1', "'1", "''1", '-', "'-", "'"];
    const neutralised = new Set(texts.map(neutraliseFormula));
    expect(neutralised.size).toBe(texts.length);
  });
});

describe('removeXmlForbidden', () => {
  it('removes C0 controls other than TAB, LF and CR, DEL, U+FFFE, U+FFFF and lone surrogates', () => {
    const input = 'a\u0000b\u0001c\u0008d\u000Be\u000Cf\u001Fg\u007Fh\uFFFEi\uFFFFj\uD800k\uDC00l';
    expect(removeXmlForbidden(input)).toBe('abcdefghijkl');
  });

  it('keeps TAB, LF, CR, surrogate pairs (emoji) and other non-ASCII text', () => {
    const input = 'tab\there\nline\rcr Ünïcödé 日本 🚀👩‍👩‍👧';
    expect(removeXmlForbidden(input)).toBe(input);
  });
});

describe('worksheetText', () => {
  it('turns CRLF and lone CR into LF, the line break Excel shows', () => {
    expect(worksheetText('a\r\nb\rc\nd')).toBe('a\nb\nc\nd');
  });

  it('cuts text longer than 32,767 characters with a marker giving the full length', () => {
    const long = 'x'.repeat(40_000);
    const cut = worksheetText(long);
    expect(cut.length).toBeLessThanOrEqual(EXCEL_CELL_MAX_CHARS);
    expect(cut.endsWith('… [truncated: 40,000 characters in full, see the CSV]')).toBe(true);
    expect(cut.startsWith('x'.repeat(32_000))).toBe(true);
  });

  it('keeps text of exactly 32,767 characters whole', () => {
    const exact = 'y'.repeat(EXCEL_CELL_MAX_CHARS);
    expect(worksheetText(exact)).toBe(exact);
  });

  it('never cuts an emoji in half at the truncation point', () => {
    for (let shift = 0; shift < 2; shift++) {
      const text = 'a'.repeat(shift) + '🚀'.repeat(20_000);
      const cut = truncateForExcel(text);
      expect(cut.length).toBeLessThanOrEqual(EXCEL_CELL_MAX_CHARS);
      expect(removeXmlForbidden(cut)).toBe(cut);
    }
  });
});
