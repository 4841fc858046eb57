import { createRedactor, REDACTED } from '../../core/redaction';
import type { Credentials } from '../credentials';

/**
 * One HTTP exchange with the planning API: builds the Basic Authorization header, applies the
 * per-request time limit and reads the whole body as text. It never throws for an HTTP status or a
 * network failure; it reports an outcome and lets the retry loop in client.ts decide.
 *
 * The Authorization header lives only in a private field of this class (not enumerable, not shown by
 * util.inspect or JSON.stringify) and every text that leaves this module through an error message can
 * be passed through `redact`, because a misbehaving server or proxy may echo request headers back.
 */

export type HttpMethod = 'GET' | 'POST';

export interface TransportRequest {
  method: HttpMethod;
  url: URL;
  /** JSON body (POST operations of the PI Board Items API). */
  body?: unknown;
  /** Time limit of this attempt when shorter than the transport's (an overall deadline is near). */
  timeoutMs?: number;
}

export type TransportOutcome =
  /** `bytes`: the body's length as it came over the wire (before decoding). */
  | { kind: 'response'; status: number; headers: Headers; text: string; bytes: number; durationMs: number }
  | { kind: 'timeout'; durationMs: number }
  /** The body grew past `maxResponseBytes`; reading stopped there and the connection was dropped. */
  | { kind: 'too-large'; status: number; bytes: number; durationMs: number }
  | { kind: 'network'; message: string; code: string | undefined; durationMs: number };

export interface HttpTransportOptions {
  credentials: Pick<Credentials, 'email' | 'apiKey'> & Partial<Pick<Credentials, 'documentValues'>>;
  fetch?: typeof fetch | undefined;
  /** Time limit of one attempt, headers and body together. */
  timeoutMs: number;
  /** Largest body read; a longer one is abandoned while it streams in, not after it was buffered. */
  maxResponseBytes: number;
  /** The signal that ends an attempt after `ms`. Default AbortSignal.timeout; tests inject their own. */
  timeoutSignal?: ((ms: number) => AbortSignal) | undefined;
}

/** Values of the secret document shorter than this are not treated as secrets (the key always is). */
const MIN_REDACTED_VALUE_LENGTH = 8;

export class HttpTransport {
  readonly #fetch: typeof fetch;
  readonly #authorization: string;
  readonly #redact: (text: string) => string;
  readonly #timeoutMs: number;
  readonly #maxResponseBytes: number;
  readonly #timeoutSignal: (ms: number) => AbortSignal;

  constructor(options: HttpTransportOptions) {
    const token = Buffer.from(`${options.credentials.email}:${options.credentials.apiKey}`, 'utf8').toString('base64');
    this.#authorization = `Basic ${token}`;
    // Every spelling of each (core/redaction.ts), longest first, so the header goes as a whole before
    // its parts. The other values of the secret document count as secret too (a document may hold
    // more than the key), except short ones such as a company prefix: replacing "acme" everywhere
    // would garble every message.
    const otherValues = (options.credentials.documentValues ?? []).filter((v) => v.length >= MIN_REDACTED_VALUE_LENGTH);
    // The key and the token are also redacted in part (any run of 8 of their characters, core/redaction.ts):
    // a server may echo the first half of a key it refuses. The other values only whole: a piece of the
    // base URL is not a secret.
    this.#redact = createRedactor([this.#authorization, token, options.credentials.apiKey, ...otherValues], [options.credentials.apiKey, token]);
    // Bind so that a fetch taken from globalThis is not called with this transport as `this`.
    this.#fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.#timeoutMs = options.timeoutMs;
    this.#maxResponseBytes = options.maxResponseBytes;
    this.#timeoutSignal = options.timeoutSignal ?? ((ms) => AbortSignal.timeout(ms));
  }

  get timeoutMs(): number {
    return this.#timeoutMs;
  }

  get maxResponseBytes(): number {
    return this.#maxResponseBytes;
  }

  /**
   * Replaces the API key, the Basic token, the header value and the secret document's other values,
   * raw, URL-encoded, JSON- or HTML-escaped or in base64, in any letter case, by [REDACTED], and
   * any run of 8 or more characters of the key or the token in one of those spellings. Call it on the WHOLE text
   * before anything cuts it: a cut through the key leaves a fragment that no longer matches.
   */
  redact(text: string): string {
    const out = this.#redact(text);
    // Also any other Basic credential a proxy may echo (e.g. re-wrapped or URL-safe encoded). The
    // look-ahead demands a digit or base64 symbol so that prose like "Basic authentication" survives.
    return out.replace(/Basic\s+(?=[A-Za-z0-9+/_-]*[0-9+/=_-])[A-Za-z0-9+/_-]{12,}={0,2}/g, `Basic ${REDACTED}`);
  }

  async send(request: TransportRequest): Promise<TransportOutcome> {
    const started = performance.now();
    const elapsed = (): number => Math.round(performance.now() - started);
    // One signal for the whole exchange: a server that sends headers and then stalls the body must
    // time out as surely as one that never answers.
    const signal = this.#timeoutSignal(Math.max(1, Math.min(this.#timeoutMs, request.timeoutMs ?? Infinity)));
    const headers: Record<string, string> = { Authorization: this.#authorization, Accept: 'application/json' };
    let body: string | undefined;
    if (request.body !== undefined) {
      headers['Content-Type'] = 'application/json';
      body = JSON.stringify(request.body);
    }
    try {
      const response = await this.#fetch(request.url, { method: request.method, headers, signal, ...(body !== undefined && { body }) });
      const read = await readCapped(response, this.#maxResponseBytes);
      if (read.kind === 'too-large') {
        return { kind: 'too-large', status: response.status, bytes: read.bytes, durationMs: elapsed() };
      }
      return { kind: 'response', status: response.status, headers: response.headers, text: decodeBody(read.body), bytes: read.body.byteLength, durationMs: elapsed() };
    } catch (error) {
      if (signal.aborted || isTimeout(error)) return { kind: 'timeout', durationMs: elapsed() };
      const { message, code } = describeNetworkError(error);
      return { kind: 'network', message: this.redact(message), code, durationMs: elapsed() };
    }
  }
}

/**
 * Reads the body chunk by chunk and stops as soon as it passes `limit` bytes (a declared
 * Content-Length above it stops it before the first chunk): a 300 MB answer must not be held in
 * memory before it is refused. Cancelling the reader drops the connection.
 */
async function readCapped(
  response: Response,
  limit: number,
): Promise<{ kind: 'body'; body: Uint8Array } | { kind: 'too-large'; bytes: number }> {
  const declared = Number(response.headers.get('content-length') ?? Number.NaN);
  if (Number.isFinite(declared) && declared > limit) {
    await response.body?.cancel().catch(() => undefined);
    return { kind: 'too-large', bytes: declared };
  }
  if (!response.body) return { kind: 'body', body: new Uint8Array(0) };
  const reader: ReadableStreamDefaultReader<Uint8Array> = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    bytes += value.byteLength;
    if (bytes > limit) {
      await reader.cancel().catch(() => undefined);
      return { kind: 'too-large', bytes };
    }
    chunks.push(value);
  }
  return { kind: 'body', body: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, bytes) };
}

/**
 * The body as text, like `response.text()` (UTF-8, a leading byte-order mark dropped), decoded by
 * Buffer: measurably cheaper than the TextDecoder that `text()` uses, on bodies of up to megabytes.
 */
export function decodeBody(body: ArrayBuffer | Uint8Array): string {
  const bytes = body instanceof Uint8Array ? Buffer.from(body.buffer, body.byteOffset, body.byteLength) : Buffer.from(body);
  const bom = bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  return bytes.toString('utf8', bom);
}

function isTimeout(error: unknown): boolean {
  return error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
}

/**
 * Node's fetch reports every network failure as `TypeError: fetch failed` and puts the useful part
 * (ECONNRESET, ECONNREFUSED, "other side closed") in `cause`. Only the message and code are kept:
 * the original error objects are not passed on as causes, so nothing the HTTP stack attached to them
 * can reach a log.
 */
function describeNetworkError(error: unknown): { message: string; code: string | undefined } {
  if (!(error instanceof Error)) return { message: String(error), code: undefined };
  const cause: unknown = error.cause;
  if (cause instanceof Error) {
    const code = (cause as { code?: unknown }).code;
    const codeText = typeof code === 'string' ? code : undefined;
    return { message: `${error.message}: ${cause.message}`, code: codeText };
  }
  const code = (error as { code?: unknown }).code;
  return { message: error.message, code: typeof code === 'string' ? code : undefined };
}

/** Longest error text put into an error message; longer bodies are cut with an ellipsis. */
export const MAX_ERROR_TEXT = 300;

/**
 * The human-readable part of an error body. Bodies seen from this kind of service:
 * `{ "errorMessages": ["..."], "errors": { "field": "..." } }`, `{ "errorMessages": "..." }`, `{ "error": "..." }`,
 * `{ "message": "..." }`, or plain text / an HTML page from a gateway.
 */
export function extractErrorText(
  text: string,
  maxLength: number = MAX_ERROR_TEXT,
  redact: (text: string) => string = (t) => t,
): string {
  const trimmed = text.trim();
  if (trimmed === '') return '';
  let extracted: string | undefined;
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    try {
      extracted = messageFromJson(JSON.parse(trimmed) as unknown);
    } catch {
      // not JSON after all: fall through to text
    }
  }
  if (extracted === undefined) {
    extracted = /<[a-z!][^>]*>/i.test(trimmed) ? stripHtml(trimmed) : trimmed;
  }
  // Redacted before it is cut, never after: see HttpTransport.redact.
  const oneLine = redact(extracted.replace(/\s+/g, ' ').trim());
  return oneLine.length > maxLength ? `${oneLine.slice(0, maxLength - 1)}…` : oneLine;
}

function messageFromJson(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (value === null || typeof value !== 'object') return undefined;
  const record = value as Record<string, unknown>;
  const parts: string[] = [];
  // The service sends `errorMessages` as an array or, on some operations, as one string.
  if (Array.isArray(record.errorMessages)) {
    parts.push(...record.errorMessages.filter((m): m is string => typeof m === 'string'));
  } else if (typeof record.errorMessages === 'string') {
    parts.push(record.errorMessages);
  }
  if (record.errors !== null && typeof record.errors === 'object' && !Array.isArray(record.errors)) {
    for (const [field, message] of Object.entries(record.errors)) {
      if (typeof message === 'string') parts.push(`${field}: ${message}`);
    }
  }
  for (const key of ['error', 'message', 'errorMessage', 'detail']) {
    const candidate = record[key];
    if (typeof candidate === 'string') parts.push(candidate);
    else if (candidate !== null && typeof candidate === 'object') {
      const nested = messageFromJson(candidate);
      if (nested) parts.push(nested);
    }
  }
  return parts.length > 0 ? parts.join('; ') : JSON.stringify(value);
}

function stripHtml(html: string): string {
  const title = /<title[^>]*>([^<]*)<\/title>/i.exec(html)?.[1];
  if (title && title.trim() !== '') return title;
  return html
    .replace(/<(script|style)[^>]*>[\s\S]*?<\/\1>/gi, ' ')
    .replace(/<[^>]+>/g, ' ');
}

/**
 * Joins a base URL (with or without a trailing slash, possibly with a path of its own) and an API path.
 */
export function joinUrl(base: string, path: string, query?: Record<string, string | undefined>): URL {
  const url = new URL(`${base.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`);
  for (const [name, value] of Object.entries(query ?? {})) {
    if (value !== undefined) url.searchParams.set(name, value);
  }
  return url;
}
