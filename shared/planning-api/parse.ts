import type { z } from 'zod';
import { SchemaMismatchError } from '../core/errors';
import { canonicalCheckOf } from './canonical';

/**
 * Validation at the edge: every response body is read here, and every record is checked against its
 * zod schema (schemas.ts) before anything else sees it. A mismatch becomes a SchemaMismatchError that
 * names the operation, the record and the path of the bad field, e.g.
 *   listRisks: record "r-12" field customFields[2].title: expected string or number, received object
 * so that a user can tell the API owner exactly what changed.
 */

export type EnvelopeKey = 'data' | 'Data';

export interface ListEnvelope {
  records: unknown[];
  /** `total` of a v1 list response; undefined when absent (legacy lists carry none). */
  total: number | undefined;
}

/** Parses a response body as JSON; a body that is not JSON is a contract break, not a transient error. */
export function parseJsonBody(text: string, operation: string, redact: (text: string) => string = (t) => t): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    // Redacted before the cut (the body may echo the key); only the head is redacted, as the preview
    // needs no more and a whole large body would be costly to scan.
    const preview = redact(text.slice(0, 4096).replace(/\s+/g, ' ').trim()).slice(0, 80);
    throw new SchemaMismatchError(`${operation}: the response is not JSON (starts with "${preview}")`, {
      operation,
      path: '(body)',
      cause: error,
    });
  }
}

function asObject(body: unknown, operation: string): Record<string, unknown> {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new SchemaMismatchError(`${operation}: response body: expected an object, received ${describeType(body)}`, {
      operation,
      path: '(body)',
    });
  }
  return body as Record<string, unknown>;
}

/**
 * The envelope key must be read exactly as documented (`data` for Risk and the legacy groups, `Data`
 * for Strategic Themes & OKRs). When the other spelling is present the message says so, because that
 * is the likeliest way for this contract to break.
 */
function envelopeValue(object: Record<string, unknown>, key: EnvelopeKey, operation: string): unknown {
  const value = object[key];
  if (value === undefined) {
    const other: EnvelopeKey = key === 'data' ? 'Data' : 'data';
    const hint = other in object ? ` (found "${other}" instead; this API group uses "${key}")` : '';
    throw new SchemaMismatchError(`${operation}: response field ${key}: missing${hint}`, { operation, path: key });
  }
  return value;
}

/** Reads a list envelope `{ startAt, pageLimit, total, data|Data: [...] }` (or the legacy `{ data: [...] }`). */
export function readListEnvelope(body: unknown, key: EnvelopeKey, operation: string): ListEnvelope {
  const object = asObject(body, operation);
  const value = envelopeValue(object, key, operation);
  if (!Array.isArray(value)) {
    throw new SchemaMismatchError(
      `${operation}: response field ${key}: expected array, received ${describeType(value)}`,
      { operation, path: key },
    );
  }
  return { records: value as unknown[], total: readTotal(object.total, operation) };
}

function readTotal(value: unknown, operation: string): number | undefined {
  if (value === undefined || value === null) return undefined;
  const total = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
  if (typeof total !== 'number' || !Number.isInteger(total) || total < 0) {
    throw new SchemaMismatchError(
      `${operation}: response field total: expected a non-negative integer, received ${describeValue(value)}`,
      { operation, path: 'total' },
    );
  }
  return total;
}

/**
 * Reads the record of a single-record response: documented as a one-element array in the envelope
 * key; a bare object is accepted too. Returns undefined when the array is empty (the caller treats
 * that as not found, like a 404).
 */
export function readSingleEnvelope(body: unknown, key: EnvelopeKey, operation: string): unknown {
  const object = asObject(body, operation);
  const value = envelopeValue(object, key, operation);
  if (Array.isArray(value)) return value[0];
  if (value !== null && typeof value === 'object') return value;
  throw new SchemaMismatchError(
    `${operation}: response field ${key}: expected array or object, received ${describeType(value)}`,
    { operation, path: key },
  );
}

/** Reads an envelope whose key holds an object (Strategic Theme progress). */
export function readObjectEnvelope(body: unknown, key: EnvelopeKey, operation: string): unknown {
  const object = asObject(body, operation);
  const value = envelopeValue(object, key, operation);
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new SchemaMismatchError(
      `${operation}: response field ${key}: expected object, received ${describeType(value)}`,
      { operation, path: key },
    );
  }
  return value;
}

/** The body itself as an object (statuses: `{ parentStatuses, childrenStatuses }`, no data key). */
export function readBareObject(body: unknown, operation: string): Record<string, unknown> {
  return asObject(body, operation);
}

/**
 * Validates one record. `index` is its position in the response, used when the record has no
 * usable id. `pathPrefix` places a nested record (e.g. `parentStatuses[3]`) in the message.
 */
export function parseRecord<S extends z.ZodType>(
  schema: S,
  raw: unknown,
  operation: string,
  where: { index?: number; pathPrefix?: string } = {},
): z.output<S> {
  // A record that already is what its schema outputs is used as it came (canonical.ts says why).
  if (canonicalCheckOf(schema)?.(raw)) return raw as z.output<S>;
  const result = schema.safeParse(raw);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const recordId = readId(raw);
  const recordLabel =
    recordId !== undefined ? `record "${recordId}"` : `record #${where.index !== undefined ? where.index + 1 : '?'} (no id)`;
  const fieldPath = formatPath([...(issue?.path ?? [])]);
  const path = where.pathPrefix ? (fieldPath ? `${where.pathPrefix}.${fieldPath}` : where.pathPrefix) : fieldPath;
  const problem = issue ? describeIssue(issue, raw) : 'does not match the schema';
  const more = result.error.issues.length > 1 ? ` (and ${result.error.issues.length - 1} more)` : '';
  throw new SchemaMismatchError(`${operation}: ${recordLabel} field ${path || '(record)'}: ${problem}${more}`, {
    operation,
    recordId,
    path: path || '(record)',
    cause: result.error,
  });
}

function readId(raw: unknown): string | undefined {
  if (raw === null || typeof raw !== 'object') return undefined;
  const id = (raw as Record<string, unknown>).id;
  return typeof id === 'string' || typeof id === 'number' ? String(id) : undefined;
}

/** `customFields[2].title`, `groupsProgress["g-1"]`. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else if (typeof segment === 'string' && /^[A-Za-z_$][\w$]*$/.test(segment)) out += out ? `.${segment}` : segment;
    else out += `[${JSON.stringify(String(segment))}]`;
  }
  return out;
}

function valueAt(raw: unknown, path: readonly PropertyKey[]): unknown {
  let current: unknown = raw;
  for (const segment of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<PropertyKey, unknown>)[segment];
  }
  return current;
}

/** Zod 4 issue → "expected string or number, received object" (no "Invalid input:" noise). */
function describeIssue(issue: z.core.$ZodIssue, raw: unknown): string {
  const received = valueAt(raw, issue.path);
  switch (issue.code) {
    case 'invalid_type':
      return `expected ${issue.expected}, received ${describeType(received)}`;
    case 'invalid_union': {
      const expected = new Set<string>();
      for (const branch of issue.errors) {
        for (const inner of branch) {
          if (inner.code === 'invalid_type' && inner.path.length === 0) expected.add(inner.expected);
        }
      }
      if (expected.size > 0) return `expected ${[...expected].join(' or ')}, received ${describeType(received)}`;
      return issue.message;
    }
    case 'invalid_format':
      // The schemas only use a format for "numeric string" (numbers may arrive as strings).
      return `expected a number or numeric string, received ${describeValue(received)}`;
    default:
      return issue.message;
  }
}

function describeType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

/**
 * A value as a message may show it. A string is quoted only whole (so redaction, which matches whole
 * secrets, still sees any secret in it); a longer one is described, never cut: a cut through a key
 * echoed by the server would leave a fragment no redaction recognises.
 */
function describeValue(value: unknown): string {
  if (typeof value === 'string') return value.length > 40 ? `a string of ${value.length} characters` : JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return describeType(value);
}

