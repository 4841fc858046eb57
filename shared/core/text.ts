/**
 * A leading UTF-8 byte-order mark is not part of a JSON document, but editors on Windows (and
 * PowerShell's Out-File) write one; JSON.parse would fail on it with "Unexpected token".
 */
export function stripBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/**
 * Text safe to print on a terminal: control characters (C0, DEL, C1, among them ESC and CSI that
 * start ANSI sequences) and the bidirectional overrides are shown as `\u001b`-style escapes instead
 * of being obeyed. For messages that quote what a user or the planning tool wrote (selector ids,
 * names).
 */
export function printable(text: string): string {
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is escaped
  return text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** The JSON document in `bytes` (UTF-8), or undefined when they hold none: for stored objects a reader may find damaged. */
export function parseJsonBytes(bytes: Uint8Array): unknown {
  try {
    return JSON.parse(Buffer.from(bytes).toString('utf8'));
  } catch {
    return undefined;
  }
}

/**
 * One word for a POSIX shell, as a command we suggest to people is pasted: left bare when it holds
 * only characters no shell reads specially, else in single quotes (a quote inside as `'\''`), so an
 * address with `$`, a backtick or `|` stays one argument and runs nothing.
 */
export function shellQuoted(word: string): string {
  if (/^[A-Za-z0-9@%+=:,./_-]+$/.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/** Thrown inside the scanner below with the offset of the first character that cannot be JSON. */
class JsonStop extends Error {
  constructor(readonly at: number) {
    super(`not JSON at ${at}`);
  }
}

const JSON_NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
// eslint-disable-next-line no-control-regex -- JSON strings may not hold raw control characters
const JSON_STRING = /"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/y;

/**
 * The offset of the first character of `text` that no JSON document could have there, or undefined
 * when `text` is JSON. A scanner of its own because JSON.parse names no position for most mistakes
 * (Node 20 and 22 quote the text around an unexpected token instead).
 */
export function jsonErrorOffset(text: string): number | undefined {
  let at = 0;
  const space = () => {
    while (at < text.length && ' \t\n\r'.includes(text[at]!)) at += 1;
  };
  const token = (pattern: RegExp): void => {
    pattern.lastIndex = at;
    if (!pattern.test(text)) throw new JsonStop(at);
    at = pattern.lastIndex;
  };
  const expect = (char: string): void => {
    space();
    if (text[at] !== char) throw new JsonStop(at);
    at += 1;
  };
  const items = (close: string, item: () => void): void => {
    space();
    if (text[at] === close) {
      at += 1;
      return;
    }
    for (;;) {
      item();
      space();
      if (text[at] === close) break;
      expect(',');
    }
    at += 1;
  };
  const value = (): void => {
    space();
    const c = text[at];
    if (c === '{') {
      at += 1;
      items('}', () => {
        space();
        token(JSON_STRING);
        expect(':');
        value();
      });
    } else if (c === '[') {
      at += 1;
      items(']', value);
    } else if (c === '"') token(JSON_STRING);
    else if (c !== undefined && /[-\d]/.test(c)) token(JSON_NUMBER);
    else {
      const word = ['true', 'false', 'null'].find((w) => text.startsWith(w, at));
      if (word === undefined) throw new JsonStop(at);
      at += word.length;
    }
  };
  try {
    value();
    space();
    return at < text.length ? at : undefined;
  } catch (stop) {
    if (stop instanceof JsonStop) return stop.at;
    throw stop;
  }
}

/** `line 3, column 7` of an offset of `text`, as an editor counts them (from 1). */
export function lineAndColumn(text: string, offset: number): string {
  const before = text.slice(0, offset).split('\n');
  return `line ${before.length}, column ${before.at(-1)!.length + 1}`;
}

/**
 * Where the first JSON syntax error of `text` is, as a person finds it in an editor: `line 3,
 * column 7`; undefined when the text is JSON.
 */
export function jsonErrorPlace(text: string): string | undefined {
  const offset = jsonErrorOffset(text);
  return offset === undefined ? undefined : lineAndColumn(text, offset);
}

/**
 * A JSON syntax error in words a person can act on: what is wrong and where (line and column),
 * without the character position or the quoted input Node adds (the text may be a secret's):
 * `unexpected "[" at line 3, column 13`, `the text ends before the JSON does at line 3, column 1`.
 */
export function jsonSyntaxProblem(text: string): string {
  const offset = jsonErrorOffset(text);
  if (offset === undefined) return 'not JSON';
  const what = offset >= text.length ? 'the text ends before the JSON does' : `unexpected ${JSON.stringify(text[offset])}`;
  return `${what} at ${lineAndColumn(text, offset)}`;
}
