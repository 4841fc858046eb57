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
