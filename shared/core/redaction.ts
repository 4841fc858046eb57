/**
 * Redaction of secrets in every spelling a server, a proxy or our own formatting may give them: the
 * raw value, URL-encoded (also with `+` for spaces), JSON-escaped, HTML-escaped, and base64 and
 * base64url of the value wherever it sits inside a longer base64 text (Basic credentials, tokens).
 * Apply it to a WHOLE text before anything cuts it: a cut through a secret leaves a fragment that no
 * longer matches.
 */
export const REDACTED = '[REDACTED]';

/** Base64 shorter than this is too generic to replace (it would garble ordinary words). */
const MIN_BASE64_CORE = 8;

/** Every spelling of `value` to replace, longest first. */
export function secretForms(value: string): string[] {
  const forms = new Set<string>([
    value,
    encodeURIComponent(value),
    encodeURIComponent(value).replace(/%20/g, '+'),
    JSON.stringify(value).slice(1, -1),
    htmlEscape(value, (c) => `&#${c.charCodeAt(0)};`),
    htmlEscape(value, (c) => `&#x${c.charCodeAt(0).toString(16)};`),
    htmlEscape(value, (c) => NAMED_ENTITIES[c] ?? `&#${c.charCodeAt(0)};`),
    ...base64Cores(Buffer.from(value, 'utf8')),
  ]);
  return [...forms].filter((f) => f.length > 0).sort((a, b) => b.length - a.length);
}

/** A function that replaces every form of every value by [REDACTED]. */
export function createRedactor(values: readonly string[]): (text: string) => string {
  const forms = [...new Set(values.filter((v) => v.length > 0).flatMap(secretForms))].sort((a, b) => b.length - a.length);
  return (text) => {
    let out = text;
    for (const form of forms) if (out.includes(form)) out = out.split(form).join(REDACTED);
    return out;
  };
}

/**
 * Redacts an error's message and stack, and those of its causes, in place (the same object, so its
 * class and fields stay), and returns it. Anything else is returned as it is.
 */
export function redactError<T>(error: T, redact: (text: string) => string): T {
  const seen = new Set<unknown>();
  for (let at: unknown = error; at instanceof Error && !seen.has(at); at = at.cause) {
    seen.add(at);
    at.message = redact(at.message);
    if (at.stack !== undefined) at.stack = redact(at.stack);
    // An exporter error also carries the text callers are told (job status, events): the same text, the same rule.
    const told = at as Error & { publicMessage?: unknown };
    if (typeof told.publicMessage === 'string') told.publicMessage = redact(told.publicMessage);
  }
  return error;
}

const NAMED_ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

function htmlEscape(value: string, entity: (c: string) => string): string {
  return value.replace(/[&<>"']/g, entity);
}

/**
 * The base64 characters that encode `bytes` whatever its offset inside a longer encoded text: for
 * each of the three alignments, the whole 3-byte groups from that offset on. What stays unreplaced
 * next to a match is at most two bytes of the secret, in at most three characters on either side.
 */
function base64Cores(bytes: Buffer): string[] {
  const cores: string[] = [];
  for (let shift = 0; shift < 3; shift++) {
    const groups = Math.floor((bytes.length - shift) / 3);
    if (groups <= 0) continue;
    const core = bytes.subarray(shift, shift + groups * 3);
    for (const encoding of ['base64', 'base64url'] as const) {
      const text = core.toString(encoding);
      if (text.length >= MIN_BASE64_CORE) cores.push(text);
    }
  }
  return cores;
}
