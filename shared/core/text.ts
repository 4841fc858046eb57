/**
 * A leading UTF-8 byte-order mark is not part of a JSON document, but editors on Windows (and
 * PowerShell's Out-File) write one; JSON.parse would fail on it with "Unexpected token".
 */
export function stripBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}
