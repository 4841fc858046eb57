import { describe, expect, it } from 'vitest';
import { createRedactor, REDACTED, redactError } from '../../../shared/core/redaction';

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
});
