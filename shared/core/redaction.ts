/**
 * Redaction of secrets in every spelling a server, a proxy or our own formatting may give them: the
 * raw value, in any letter case (a server that lower-cases what it echoes), and each of its
 * characters as it is or escaped: URL-encoded (`%2F`, `%2f`, `+` for a space), JSON (`\u00e9`, `\"`),
 * source-code escapes (`\x6b`, `\xc3\xa9`, `\u{6b}`, `\U0000006b`: a debugger's or a language's dump
 * of a string or its bytes), HTML (`&amp;`, `&#39;`, `&#x27;`, `&apos;`, `&#233;`, with or without a
 * given character escaped: escapers differ in which ones they touch); the hex of its UTF-8 bytes in
 * either case (a hexdump, a byte log); and base64 and base64url of its UTF-8, UTF-16LE and UTF-16BE
 * bytes wherever they sit inside a longer base64 text (Basic credentials, tokens, a Windows tool's
 * encoded command), their characters escaped the same ways.
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
 * The texts replaced only as they are (in any letter case): the hex of the value's UTF-8 bytes and the
 * base64 of its UTF-16 bytes, as dumps and encoders write them, never escaped again. Matched apart
 * from the escaped forms: giving them each character's dozen escapes made every redaction 5 times slower.
 */
function plainForms(value: string): string[] {
  const hex = Buffer.from(value, 'utf8').toString('hex');
  const [, ...utf16] = encodedBytes(value);
  return [...(hex.length >= MIN_HEX ? [hex] : []), ...utf16.flatMap(base64Cores)];
}

/** Hex shorter than this (4 bytes) is too generic to replace: it would garble ids and checksums. */
const MIN_HEX = 8;

/** The value's bytes in the encodings a program may base64: UTF-8, UTF-16LE (Windows, .NET) and UTF-16BE. */
function encodedBytes(value: string): Buffer[] {
  const littleEndian = Buffer.from(value, 'utf16le');
  return [Buffer.from(value, 'utf8'), littleEndian, Buffer.from(littleEndian).swap16()];
}

/**
 * A function that replaces every spelling of every value by [REDACTED], and, for each value of
 * `partsOf` (the API key: a server that echoes only its first half still leaks half of it), every
 * run of PART_RUN or more characters of one of its spellings (`partialRedactor`).
 */
export function createRedactor(values: readonly string[], partsOf: readonly string[] = []): (text: string) => string {
  const given = values.filter((v) => v.length > 0);
  const forms = [...new Set(given.flatMap(secretForms))].sort((a, b) => b.length - a.length);
  const plain = [...new Set(given.flatMap(plainForms))].sort((a, b) => b.length - a.length);
  const parts = partialRedactor(partsOf);
  if (forms.length === 0) return parts;
  // One pass, leftmost first; at one place the longest form is tried first, so a whole Basic
  // header goes before the key inside it. `i` with `u` folds case the Unicode way (É and é). The
  // source-code escapes belong to the values themselves (nobody \x-escapes base64).
  const raw = new Set(given);
  const pattern = new RegExp(forms.map((form) => spellingPattern(form, raw.has(form))).join('|'), 'giu');
  const plainPattern = plain.length === 0 ? undefined : new RegExp(plain.map(escapeRegExp).join('|'), 'gi');
  return (text) => {
    const escaped = text.replace(pattern, REDACTED);
    return parts(plainPattern === undefined ? escaped : escaped.replace(plainPattern, REDACTED));
  };
}

/** The shortest run of a secret's characters (in one of its spellings) that is redacted on its own. */
export const PART_RUN = 8;

/**
 * Replaces every run of PART_RUN or more characters that is a piece of a spelling of one of `values`
 * (raw, URL-, form-, JSON- or HTML-escaped as the usual escapers write it, base64 at any alignment;
 * in any letter case) by one [REDACTED]. A spelling that writes each character or byte in more
 * characters (hex and UTF-16 base64: 2, `\x`: 4, `\u`: 6) counts its pieces in those units: PART_RUN of
 * them, so a piece always carries PART_RUN characters of the secret (8 characters of `\u0065\u…`
 * say only "e" and would redact any escaped text). Linear in the text: the windows of every
 * spelling go into one set per window length, the text is case-folded once and each of its windows
 * looked up; hits that overlap or touch make one run. A value shorter than PART_RUN has no piece of
 * that length: it is redacted only whole (createRedactor's patterns).
 */
function partialRedactor(values: readonly string[]): (text: string) => string {
  const windows = new Map<number, Set<string>>();
  for (const value of values.filter((v) => [...v].length >= PART_RUN)) {
    for (const { text: spelling, unit } of partSpellings(value)) {
      const folded = foldCase(spelling);
      const length = PART_RUN * unit;
      const set = windows.get(length) ?? new Set<string>();
      for (let i = 0; i + length <= folded.length; i++) set.add(folded.slice(i, i + length));
      windows.set(length, set);
    }
  }
  if (windows.size === 0) return (text) => text;
  const shortest = windows.get(PART_RUN) ?? new Set<string>();
  const longer = [...windows].filter(([length]) => length > PART_RUN);
  // The first PART_RUN characters of every longer window: only where the text starts one is a longer window looked up.
  const starts = new Set(longer.flatMap(([, set]) => [...set].map((w) => w.slice(0, PART_RUN))));
  return (text) => {
    const folded = foldCase(text);
    const hits: [number, number][] = [];
    const hit = (at: number, length: number): void => {
      hits.push([outsidePair(text, at, -1), outsidePair(text, at + length, 1)]);
    };
    for (let i = 0; i + PART_RUN <= folded.length; i++) {
      const window = folded.slice(i, i + PART_RUN);
      if (shortest.has(window)) hit(i, PART_RUN);
      if (!starts.has(window)) continue;
      for (const [length, set] of longer) if (set.has(folded.slice(i, i + length))) hit(i, length);
    }
    return hits.length === 0 ? text : replaceRuns(text, hits);
  };
}

/** `text` with every run of overlapping or touching [start, end) hits replaced by one [REDACTED]. */
function replaceRuns(text: string, hits: [number, number][]): string {
  hits.sort((a, b) => a[0] - b[0]);
  let out = '';
  let kept = 0;
  let [runStart, runEnd] = hits[0]!;
  for (const [start, end] of hits) {
    if (start > runEnd) {
      out += text.slice(kept, runStart) + REDACTED;
      kept = runEnd;
      runStart = start;
    }
    runEnd = Math.max(runEnd, end);
  }
  return out + text.slice(kept, runStart) + REDACTED + text.slice(runEnd);
}

/**
 * The spellings of `value` whose pieces are looked for, each with the characters it writes per unit
 * of the value: the usual escapers' outputs and the base64 of its UTF-8 (1), the base64 of its UTF-16
 * and the hex of its bytes (2), and
 * every byte `\x`-escaped (4) or every UTF-16 unit `\u`-escaped (6), as source code and dumps write them.
 */
function partSpellings(value: string): { readonly text: string; readonly unit: number }[] {
  const htmlNamed = (text: string, apostrophe: string): string =>
    text.replace(/[&<>"']/g, (c) => (c === "'" ? apostrophe : (HTML_NAMED[c]?.[0] ?? c)));
  const numeric = (text: string, hex: boolean): string =>
    text.replace(/[^A-Za-z0-9 ]/gu, (c) => `&#${hex ? `x${c.codePointAt(0)!.toString(16)}` : String(c.codePointAt(0))};`);
  const json = JSON.stringify(value).slice(1, -1);
  const bytes = Buffer.from(value, 'utf8');
  const escapedUnits = [...Array(value.length).keys()].map((i) => `\\u${value.charCodeAt(i).toString(16).padStart(4, '0')}`).join('');
  const oneUnit = [
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
    ...base64Cores(bytes),
  ].map((text) => ({ text, unit: 1 }));
  const [, ...utf16] = encodedBytes(value);
  return [
    ...oneUnit,
    // Base64 of UTF-16 spends twice the characters on an ASCII key: 8 of them hold 3 of its characters.
    ...utf16.flatMap(base64Cores).map((text) => ({ text, unit: 2 })),
    { text: bytes.toString('hex'), unit: 2 },
    { text: [...bytes].map((byte) => `\\x${byte.toString(16).padStart(2, '0')}`).join(''), unit: 4 },
    { text: escapedUnits, unit: 6 },
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
function spellingPattern(form: string, withSourceEscapes: boolean): string {
  return [...form].map((character) => characterPattern(character, withSourceEscapes)).join('');
}

function characterPattern(character: string, withSourceEscapes: boolean): string {
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
    ...(withSourceEscapes ? sourceEscapes(character) : []),
    // URL: the percent-encoded UTF-8 bytes (hex in either case); a space also as `+`.
    utf8Percent(character),
    ...(character === ' ' ? ['\\+'] : []),
  ]);
  // Longest first: the last character of a secret has nothing after it to make the regex try on, so
  // `%` would take the `%` of `%25` and leave `25` behind.
  const ordered = [...spellings].sort((a, b) => b.length - a.length);
  return ordered.length === 1 ? ordered[0]! : `(?:${ordered.join('|')})`;
}

/** Source code's escapes of a character: \u{…} and \U…… of the code point, \x of a Latin-1 character and of each UTF-8 byte. */
function sourceEscapes(character: string): string[] {
  const hex = (character.codePointAt(0) ?? 0).toString(16);
  return [
    `\\\\u\\{0*${hex}\\}`,
    // \U with exactly eight digits: with fewer it would also match the JSON \u, and two ways to match one text backtrack.
    `\\\\U${hex.padStart(8, '0')}`,
    ...(hex.length <= 2 ? [`\\\\x${hex.padStart(2, '0')}`] : []),
    [...Buffer.from(character, 'utf8')].map((byte) => `\\\\x${byte.toString(16).padStart(2, '0')}`).join(''),
  ];
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
