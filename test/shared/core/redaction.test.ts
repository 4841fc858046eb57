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
