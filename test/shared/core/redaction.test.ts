import { describe, expect, it } from 'vitest';
import { createRedactor, PART_RUN, REDACTED, redactError } from '../../../shared/core/redaction';

const KEY = 'k3y&v<a"l\'ue 42/+=%';

describe('redaction', () => {
  const redact = createRedactor([KEY]);

  it('replaces the raw, URL-, form-, JSON- and HTML-escaped and base64 spellings', () => {
    for (const form of [
      KEY,
      encodeURIComponent(KEY),
      encodeURIComponent(KEY).replace(/%20/g, '+'),
      JSON.stringify(KEY).slice(1, -1),
      KEY.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;'),
      Buffer.from(KEY).toString('base64'),
      Buffer.from(KEY).toString('base64url'),
    ]) {
      const out = redact(`before ${form} after`);
      expect(out, form).toContain(REDACTED);
      expect(out, form).toMatch(/^before .{0,4}\[REDACTED\].{0,4} after$/);
    }
  });

  // Before: an escaper that leaves `'` alone (`&quot;&lt;&amp;'`) and a server that lower-cases what it
  // echoes both got the key past the redaction.
  it('replaces every HTML escaping (whichever characters it touches) and the key in any letter case', () => {
    const html = (k: string, apostrophe: string | undefined) =>
      k.replace(/[&<>"']/g, (c) => (c === "'" ? (apostrophe ?? c) : { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' }[c]!));
    for (const form of [
      html(KEY, undefined),
      html(KEY, '&#39;'),
      html(KEY, '&#x27;'),
      html(KEY, '&apos;'),
      KEY.replace(/&/g, '&amp;'),
      KEY.replace(/[&<>"'/+=%]/g, (c) => `&#x${c.charCodeAt(0).toString(16).toUpperCase()};`),
      KEY.replace(/[&<>"'/+=%]/g, (c) => `&#00${c.charCodeAt(0)};`),
      KEY.toLowerCase(),
      KEY.toUpperCase(),
      html(KEY.toLowerCase(), undefined),
      encodeURIComponent(KEY).toLowerCase(),
      KEY.replace(/[^a-z0-9]/gi, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`),
    ]) {
      expect(redact(`before ${form} after`), form).toBe(`before ${REDACTED} after`);
    }
  });

  it('replaces a non-ASCII key in its UTF-8 percent, numeric HTML and JSON spellings, and its case-folded form', () => {
    const key = 'Kx+/=é"<&\'y9Z-ÄÖß';
    const redactIt = createRedactor([key]);
    for (const form of [key, key.toLowerCase(), key.toUpperCase(), encodeURIComponent(key), JSON.stringify(key).slice(1, -1),
      key.replace(/[^\x20-\x7e]/g, (c) => `&#${c.charCodeAt(0)};`), key.replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)]) {
      expect(redactIt(`<${form}>`), form).toBe(`<${REDACTED}>`);
    }
  });

  it('leaves ordinary text alone', () => {
    expect(redact('the export of 42 rows failed: HTTP 503')).toBe('the export of 42 rows failed: HTTP 503');
  });

  it('redacts an error, its stack and its causes in place', () => {
    const cause = new Error(`inner ${KEY}`);
    const error = new TypeError(`outer ${encodeURIComponent(KEY)}`, { cause });
    expect(redactError(error, redact)).toBe(error);
    expect(error).toBeInstanceOf(TypeError);
    expect(error.message).toBe(`outer ${REDACTED}`);
    expect(error.stack).not.toContain(encodeURIComponent(KEY));
    expect(cause.message).toBe(`inner ${REDACTED}`);
    expect(redactError('plain', redact)).toBe('plain');
  });

  // Before: a 401 echoing the first 75 % (or 50 %) of the key (`invalid api key 'sim-K'e"y<&>/ +=é%2FÆ...'`)
  // went out whole; only the whole key, in any spelling, was redacted.
  describe('a run of 8 or more characters of the key', () => {
    const key = 'sim-K\'e"y<&>/ +=é%2FÆ-q7vR2xW9mTp4nB8cL';
    const redactParts = createRedactor([key], [key]);
    const spellings: [string, (k: string) => string][] = [
      ['raw', (k) => k],
      ['URL-encoded', encodeURIComponent],
      ['form-encoded', (k) => encodeURIComponent(k).replace(/%20/g, '+')],
      ['JSON-escaped', (k) => JSON.stringify(k).slice(1, -1)],
      ['HTML-escaped', (k) => k.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;')],
      ["HTML-escaped, ' left alone", (k) => k.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;')],
      ['lower-cased', (k) => k.toLowerCase()],
      ['upper-cased', (k) => k.toUpperCase()],
      ['base64', (k) => Buffer.from(k).toString('base64')],
      ['base64url', (k) => Buffer.from(k).toString('base64url')],
      ['hex', (k) => Buffer.from(k).toString('hex')],
      ['upper-case hex', (k) => Buffer.from(k).toString('hex').toUpperCase()],
      ['\\x-escaped', (k) => [...Buffer.from(k)].map((b) => `\\x${b.toString(16).padStart(2, '0')}`).join('')],
      ['\\u-escaped', (k) => [...k].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('')],
      ['UTF-16LE base64', (k) => Buffer.from(k, 'utf16le').toString('base64')],
      ['UTF-16BE base64', (k) => Buffer.from(k, 'utf16le').swap16().toString('base64')],
    ];
    /** Every PART_RUN-character piece of `secret` found in `text`. */
    const pieces = (text: string, secret: string): string[] =>
      Array.from({ length: Math.max(0, secret.length - PART_RUN + 1) }, (_, i) => secret.slice(i, i + PART_RUN)).filter((p) => text.includes(p));
    const chars = [...key];

    it.each(spellings)('%s: the first three quarters and half, a middle piece and the last 8 characters leave no piece behind', (_name, spell) => {
      for (const part of [chars.slice(0, 30), chars.slice(0, 20), chars.slice(9, 25), chars.slice(-PART_RUN)].map((c) => c.join(''))) {
        const echoed = spell(part);
        const out = redactParts(`invalid api key '${echoed}...' (HTTP 401)`);
        expect(out, echoed).toContain(REDACTED);
        expect(out.startsWith("invalid api key '"), out).toBe(true);
        expect(out.endsWith("...' (HTTP 401)"), out).toBe(true);
        expect({ echoed, leaked: [...pieces(out, echoed), ...pieces(out, part)] }).toEqual({ echoed, leaked: [] });
      }
    });

    it('two pieces far apart are two redactions; ordinary text and a 7-character piece stay', () => {
      expect(redactParts(`a ${key.slice(0, 10)} b ${key.slice(-12)} c`)).toBe(`a ${REDACTED} b ${REDACTED} c`);
      expect(redactParts(`piece ${key.slice(0, PART_RUN - 1)} stays`)).toBe(`piece ${key.slice(0, PART_RUN - 1)} stays`);
      expect(redactParts('the export of 42 rows failed: HTTP 503')).toBe('the export of 42 rows failed: HTTP 503');
    });

    it('a key shorter than 8 characters is redacted only whole, as before', () => {
      const short = createRedactor(['k3y&v<a'], ['k3y&v<a']);
      expect(short('x k3y&v<a y')).toBe(`x ${REDACTED} y`);
      expect(short('x k3y&v< y')).toBe('x k3y&v< y');
    });

    it('keeps the offsets of a text whose lower case is longer (İ) and never cuts a surrogate pair', () => {
      expect(redactParts(`İİ ${key.slice(0, 12).toUpperCase()} İ`)).toBe(`İİ ${REDACTED} İ`);
      const astral = createRedactor([], ['😀abcdefgh😀']);
      expect(astral('x 😀abcdefg y')).toBe(`x ${REDACTED} y`);
    });

    it('redacts a long text with many pieces in one pass', () => {
      const text = Array.from({ length: 20_000 }, (_, i) => `line ${i}: ${key.slice(i % 10, (i % 10) + 9)} `).join('\n');
      const out = redactParts(text);
      expect(out.split(REDACTED)).toHaveLength(20_001);
      expect(pieces(out, key)).toEqual([]);
    });
  });

  // Before: the API key in hex, `\x` escapes or UTF-16 base64 was not redacted even whole (37 of 68
  // spellings passed); the whole key reached stderr in hex.
  describe('the API key in hex, source-code escapes and UTF-16 base64, whole and embedded', () => {
    const key = 'sim-K\'e"y<&>/ +=é%2FÆ-q7vR2xW9mTp4nB8cL';
    const redactKey = createRedactor([key], [key]);
    const utf16be = (text: string): Buffer => Buffer.from(text, 'utf16le').swap16();
    const hexEscapes = (bytes: Buffer, upper: boolean): string => [...bytes].map((b) => `\\x${upper ? b.toString(16).toUpperCase() : b.toString(16)}`.replace(/\\x(.)$/, '\\x0$1')).join('');
    const u4 = (text: string, upper: boolean): string =>
      [...Array(text.length).keys()].map((i) => `\\u${text.charCodeAt(i).toString(16).padStart(4, '0')}`).map((e) => (upper ? `\\u${e.slice(2).toUpperCase()}` : e)).join('');
    type Spelling = [name: string, spell: (text: string) => string, redacted: (before: string, after: string) => (out: string) => void];
    /** One encoding per character or byte: exactly the key's spelling is replaced, its neighbours stay. */
    const perUnit = (name: string, spell: (text: string) => string): Spelling => [
      name,
      spell,
      (before, after) => (out) => expect(out).toBe(`request body ${spell(before)}${REDACTED}${spell(after)} (HTTP 401)`),
    ];
    /** Base64 of a text's bytes: no piece is left of the characters made of the key's bytes alone. */
    const base64 = (name: string, bytes: (text: string) => Buffer, encoding: 'base64' | 'base64url'): Spelling => [
      name,
      (text) => bytes(text).toString(encoding),
      (before) => (out) => {
        const from = bytes(before).length;
        const to = from + bytes(key).length;
        const inner = bytes(before + key).toString(encoding).slice(Math.ceil(from / 3) * 4, Math.floor(to / 3) * 4);
        expect(inner.length).toBeGreaterThan(PART_RUN * 4);
        expect(out.startsWith('request body '), out).toBe(true);
        expect(out.endsWith(' (HTTP 401)'), out).toBe(true);
        expect({ out, leaked: pieces(out, inner) }).toEqual({ out, leaked: [] });
      },
    ];
    const SPELLINGS = [
      perUnit('hex', (t) => Buffer.from(t).toString('hex')),
      perUnit('upper-case hex', (t) => Buffer.from(t).toString('hex').toUpperCase()),
      perUnit('\\x of the UTF-8 bytes', (t) => hexEscapes(Buffer.from(t), false)),
      perUnit('\\x of the UTF-8 bytes, upper-case digits', (t) => hexEscapes(Buffer.from(t), true)),
      perUnit('\\x of the Latin-1 characters', (t) => hexEscapes(Buffer.from(t, 'latin1'), false)),
      perUnit('\\u of every character', (t) => u4(t, false)),
      perUnit('\\u of every character, upper-case digits', (t) => u4(t, true)),
      perUnit('\\u{…} of every character', (t) => [...t].map((c) => `\\u{${c.codePointAt(0)!.toString(16)}}`).join('')),
      perUnit('\\U of every character', (t) => [...t].map((c) => `\\U${c.codePointAt(0)!.toString(16).padStart(8, '0')}`).join('')),
      perUnit('Python bytes repr (printable ASCII raw, the rest \\x)', (t) => [...Buffer.from(t)].map((b) => (b >= 0x20 && b < 0x7f && b !== 0x5c ? String.fromCharCode(b) : `\\x${b.toString(16)}`)).join('')),
      base64('UTF-16LE base64', (t) => Buffer.from(t, 'utf16le'), 'base64'),
      base64('UTF-16LE base64url', (t) => Buffer.from(t, 'utf16le'), 'base64url'),
      base64('UTF-16BE base64', utf16be, 'base64'),
      base64('UTF-16BE base64url', utf16be, 'base64url'),
    ];
    const pieces = (text: string, secret: string): string[] =>
      Array.from({ length: Math.max(0, secret.length - PART_RUN + 1) }, (_, i) => secret.slice(i, i + PART_RUN)).filter((p) => text.toLowerCase().includes(p.toLowerCase()));

    it.each(SPELLINGS)('%s: the whole key alone is one redaction', (_name, spell) => {
      expect(redactKey(`api key ${spell(key)} refused`)).toBe(`api key ${REDACTED} refused`);
    });

    it.each(SPELLINGS)('%s: the key inside a longer text of the same spelling leaves none of its characters', (_name, spell, redacted) => {
      // Three lengths before the key, so that base64 meets it at each of its three alignments.
      for (const before of ['{"Authorization":"ApiKey ', '{"Authorization": "ApiKey ', '{"Authorization":  "ApiKey ']) {
        const after = '","retry":1}';
        redacted(before, after)(redactKey(`request body ${spell(`${before}${key}${after}`)} (HTTP 401)`));
      }
    });

    it('a value that is not the key in hex stays: ids, checksums and short hex', () => {
      const text = `request 0123456789abcdef failed, sha256 ${'ab'.repeat(32)}, byte \\x41`;
      expect(redactKey(text)).toBe(text);
    });
  });
});
