/**
 * Redaction of secrets in every spelling a server, a proxy or our own formatting may give them: the
 * raw value, in any letter case (a server that lower-cases what it echoes), and each of its
 * characters as it is or escaped: URL-encoded (`%2F`, `%2f`, `+` for a space), JSON (`\u00e9`, `\"`),
 * HTML (`&amp;`, `&#39;`, `&#x27;`, `&apos;`, `&#233;`, with or without a given character escaped:
 * escapers differ in which ones they touch), and base64 and base64url of the value wherever it sits
 * inside a longer base64 text (Basic credentials, tokens), their characters escaped the same ways.
 * Apply it to a WHOLE text before anything cuts it: a cut through a secret leaves a fragment that no
 * longer matches. For the API key (`partsOf`) a piece is enough: any run of PART_RUN characters of
 * one of its spellings is replaced as well.
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

/**
 * A function that replaces every spelling of every value by [REDACTED], and, for each value of
 * `partsOf` (the API key: a server that echoes only its first half still leaks half of it), every
 * run of PART_RUN or more characters of one of its spellings (`partialRedactor`).
 */
export function createRedactor(values: readonly string[], partsOf: readonly string[] = []): (text: string) => string {
  const forms = [...new Set(values.filter((v) => v.length > 0).flatMap(secretForms))].sort((a, b) => b.length - a.length);
  const parts = partialRedactor(partsOf);
  if (forms.length === 0) return parts;
  // One pass, leftmost first; at one place the longest form is tried first, so a whole Basic
  // header goes before the key inside it. `i` with `u` folds case the Unicode way (É and é).
  const pattern = new RegExp(forms.map(spellingPattern).join('|'), 'giu');
  return (text) => parts(text.replace(pattern, REDACTED));
}

/** The shortest run of a secret's characters (in one of its spellings) that is redacted on its own. */
export const PART_RUN = 8;

/**
 * Replaces every run of PART_RUN or more characters that is a piece of a spelling of one of `values`
 * (raw, URL-, form-, JSON- or HTML-escaped as the usual escapers write it, base64 at any alignment;
 * in any letter case) by one [REDACTED]. Linear in the text: the PART_RUN-character windows of every
 * spelling go into one set, the text is case-folded once and each of its windows looked up; hits
 * that overlap or touch make one run. A value shorter than PART_RUN has no piece of that length: it is
 * redacted only whole (createRedactor's patterns).
 */
function partialRedactor(values: readonly string[]): (text: string) => string {
  const windows = new Set<string>();
  for (const value of values.filter((v) => [...v].length >= PART_RUN)) {
    for (const spelling of partSpellings(value)) {
      const folded = foldCase(spelling);
      for (let i = 0; i + PART_RUN <= folded.length; i++) windows.add(folded.slice(i, i + PART_RUN));
    }
  }
  if (windows.size === 0) return (text) => text;
  return (text) => {
    const folded = foldCase(text);
    let out = '';
    let kept = 0;
    let runStart = -1;
    let runEnd = -1;
    const close = (): void => {
      if (runStart < 0) return;
      out += text.slice(kept, runStart) + REDACTED;
      kept = runEnd;
    };
    for (let i = 0; i + PART_RUN <= folded.length; i++) {
      if (!windows.has(folded.slice(i, i + PART_RUN))) continue;
      if (i > runEnd) {
        close();
        runStart = outsidePair(text, i, -1);
      }
      runEnd = outsidePair(text, i + PART_RUN, 1);
    }
    close();
    return kept === 0 ? text : out + text.slice(kept);
  };
}

/** The spellings of `value` whose pieces are looked for: the usual escapers' outputs and the base64 cores. */
function partSpellings(value: string): string[] {
  const htmlNamed = (text: string, apostrophe: string): string =>
    text.replace(/[&<>"']/g, (c) => (c === "'" ? apostrophe : (HTML_NAMED[c]?.[0] ?? c)));
  const numeric = (text: string, hex: boolean): string =>
    text.replace(/[^A-Za-z0-9 ]/gu, (c) => `&#${hex ? `x${c.codePointAt(0)!.toString(16)}` : String(c.codePointAt(0))};`);
  const json = JSON.stringify(value).slice(1, -1);
  return [
    value,
    encodeURIComponent(value),
    encodeURIComponent(value).replace(/%20/g, '+'),
    encodeURI(value),
    json,
    json.replace(/\//g, '\\/'),
    json.replace(/[^\x20-\x7e]/g, (c) => jsonEscapes(c)[0]!),
    ...["'", '&#39;', '&#x27;', '&apos;'].map((apostrophe) => htmlNamed(value, apostrophe)),
    value.replace(/&/g, '&amp;'),
    numeric(value, false),
    numeric(value, true),
    ...base64Cores(Buffer.from(value, 'utf8')),
  ];
}

/**
 * Lower-cases `text` without changing its length, so that offsets in the result are offsets in
 * `text`: a character whose lower case is longer (İ) stays as it is.
 */
function foldCase(text: string): string {
  const lower = text.toLowerCase();
  if (lower.length === text.length) return lower;
  let out = '';
  for (const character of text) {
    const folded = character.toLowerCase();
    out += folded.length === character.length ? folded : character;
  }
  return out;
}

/** `at`, moved by `step` when it falls between the two halves of a surrogate pair (no lone half is left). */
function outsidePair(text: string, at: number, step: 1 | -1): number {
  const low = text.charCodeAt(at);
  return at > 0 && at < text.length && low >= 0xdc00 && low <= 0xdfff ? at + (step === 1 ? 1 : -1) : at;
}

/** A pattern that matches `form` with each character in any of its spellings and any letter case. */
function spellingPattern(form: string): string {
  return [...form].map(characterPattern).join('');
}

function characterPattern(character: string): string {
  const code = character.codePointAt(0) ?? 0;
  // The `i` flag folds one character to one; upper-casing may make two of one (ß → SS). Only a case
  // the flag does not fold is added: two alternatives matching the same text made the pattern try
  // 2^n ways before giving up on a text that spelled n letters of the key and then stopped (a
  // 40-letter partial echo of the key's base64 ran for minutes).
  const otherCases = [character.toUpperCase(), character.toLowerCase()].filter((c) => !new RegExp(`^${escapeRegExp(character)}$`, 'iu').test(c));
  const spellings = new Set<string>([
    escapeRegExp(character),
    ...otherCases.map(escapeRegExp),
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
