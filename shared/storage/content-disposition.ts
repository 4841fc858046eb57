/**
 * `Content-Disposition: attachment` with both a plain `filename` (for old clients) and an RFC 5987
 * `filename*` (for non-ASCII names), as RFC 6266 recommends. Used for stored objects and for the
 * response override of presigned URLs, so a browser saves `acme-weekly.xlsx` rather than a key.
 */
export function attachmentDisposition(downloadName: string): string {
  const name = baseName(downloadName);
  return `attachment; filename="${asciiFallback(name)}"; filename*=UTF-8''${encodeRfc5987(name)}`;
}

/** A name cannot carry a path: browsers strip it anyway, and a `/` would confuse some clients. */
function baseName(name: string): string {
  const last = name.split(/[/\\]/).pop() ?? '';
  return last === '' ? 'download' : last;
}

/** The quoted-string form: printable ASCII only, no quote or backslash (which would need escaping). */
function asciiFallback(name: string): string {
  return name.replace(/[^\x20-\x7e]|["\\]/g, '_');
}

/** RFC 5987 attr-char excludes `'()*`, which encodeURIComponent leaves alone. */
function encodeRfc5987(name: string): string {
  return encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}
