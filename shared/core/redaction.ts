/**
 * Redaction of secrets in every spelling a server, a proxy or our own formatting may give them: the
 * raw value, in any letter case (a server that lower-cases what it echoes), and each of its
 * characters as it is or escaped: URL-encoded (`%2F`, `%2f`, `+` for a space), JSON (`\u00e9`, `\"`),
 * HTML (`&amp;`, `&#39;`, `&#x27;`, `&apos;`, `&#233;`, with or without a given character escaped:
 * escapers differ in which ones they touch), and base64 and base64url of the value wherever it sits
 * inside a longer base64 text (Basic credentials, tokens), their characters escaped the same ways.
 * Apply it to a WHOLE text before anything cuts it: a cut through a secret leaves a fragment that no
 * longer matches.
 */
export const REDACTED = '[REDACTED]';

/** Base64 shorter than this is too generic to replace (it would garble ordinary words). */
const MIN_BASE64_CORE = 8;

/**
 * The texts whose spellings are replaced for `value`, longest first: the value and the base64 of it
 * at each alignment. Each one is matched character by character in any of the escapes above
 * (`spellingPattern`), so mixtures (one escaper's `&quot;` beside a raw `'`) match as well.
 */
export function secretForms(value: string): string[] {
  const forms = new Set<string>([value, ...base64Cores(Buffer.from(value, 'utf8'))]);
  return [...forms].filter((f) => f.length > 0).sort((a, b) => b.length - a.length);
}

/** A function that replaces every spelling of every value by [REDACTED]. */
export function createRedactor(values: readonly string[]): (text: string) => string {
  const forms = [...new Set(values.filter((v) => v.length > 0).flatMap(secretForms))].sort((a, b) => b.length - a.length);
  if (forms.length === 0) return (text) => text;
  // One pass, leftmost first; at one place the longest form is tried first, so a whole Basic
  // header goes before the key inside it. `i` with `u` folds case the Unicode way (É and é).
  const pattern = new RegExp(forms.map(spellingPattern).join('|'), 'giu');
  return (text) => text.replace(pattern, REDACTED);
}

/** A pattern that matches `form` with each character in any of its spellings and any letter case. */
function spellingPattern(form: string): string {
  return [...form].map(characterPattern).join('');
}

function characterPattern(character: string): string {
  const code = character.codePointAt(0) ?? 0;
  const spellings = new Set<string>([
    escapeRegExp(character),
    // The `i` flag folds one character to one; upper-casing may make two of one (ß → SS).
    escapeRegExp(character.toUpperCase()),
    escapeRegExp(character.toLowerCase()),
    // HTML: numeric in decimal and hex (leading zeros allowed), the named entity where there is one.
    `&#0*${code};`,
    `&#x0*${code.toString(16)};`,
    ...(HTML_NAMED[character] ?? []).map(escapeRegExp),
    // JSON: \uXXXX (a surrogate pair for a character past U+FFFF) and the short escapes.
    ...jsonEscapes(character).map(escapeRegExp),
    // URL: the percent-encoded UTF-8 bytes (hex in either case); a space also as `+`.
    utf8Percent(character),
    ...(character === ' ' ? ['\\+'] : []),
  ]);
  // Longest first: the last character of a secret has nothing after it to make the regex try on, so
  // `%` would take the `%` of `%25` and leave `25` behind.
  const ordered = [...spellings].sort((a, b) => b.length - a.length);
  return ordered.length === 1 ? ordered[0]! : `(?:${ordered.join('|')})`;
}

const HTML_NAMED: Readonly<Record<string, readonly string[]>> = {
  '&': ['&amp;'],
  '<': ['&lt;'],
  '>': ['&gt;'],
  '"': ['&quot;'],
  "'": ['&apos;'],
  '\u00a0': ['&nbsp;'],
};

function jsonEscapes(character: string): string[] {
  const units = [...Array(character.length).keys()].map((i) => `\\u${character.charCodeAt(i).toString(16).padStart(4, '0')}`).join('');
  const short: Record<string, string> = { '"': '\\"', '\\': '\\\\', '/': '\\/' };
  return [units, ...(short[character] === undefined ? [] : [short[character]])];
}

function utf8Percent(character: string): string {
  return [...Buffer.from(character, 'utf8')].map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`).join('');
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
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
