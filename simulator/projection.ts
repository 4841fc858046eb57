/** `fields` and paging parameters of the v1 operations (contract 2.1, 4.1, 8). */

/** How `fields` was given. */
export type FieldsMode = { kind: 'minimal' } | { kind: 'all' } | { kind: 'list'; names: readonly string[] };

/**
 * Fields returned when `fields` is omitted (the "minimal" set, not documented by the contract).
 * `id` is always included in list mode too.
 */
export const MINIMAL_FIELDS = {
  register: ['id', 'key', 'title'],
  risk: ['id', 'key', 'title'],
  portfolioTheme: ['id', 'key', 'title'],
  strategicTheme: ['id', 'key', 'title'],
  objectiveGroup: ['id', 'level', 'type', 'title'],
  objective: ['id', 'level', 'type', 'key', 'title'],
  keyResult: ['id', 'level', 'type', 'key', 'title'],
} as const satisfies Record<string, readonly string[]>;

/** v1 page size default and silent maximum. */
export const V1_PAGE_LIMIT = 50;

/** Parses `fields`: absent, empty or `minimal` -> minimal; `all` -> all; otherwise a comma-separated list. */
export function parseFields(value: string | null): FieldsMode {
  const text = value?.trim() ?? '';
  if (text === '' || text === 'minimal') return { kind: 'minimal' };
  if (text === 'all') return { kind: 'all' };
  const names = text
    .split(',')
    .map((n) => n.trim())
    .filter((n) => n !== '');
  return names.length > 0 ? { kind: 'list', names } : { kind: 'minimal' };
}

/**
 * Projects a record: minimal -> the minimal keys; all -> the record; list -> `id` plus the named
 * fields, in the record's own key order (unknown names are ignored). `restrict`, when given, limits
 * every mode to those keys (used where the contract shows a reduced record).
 */
export function projectRecord(
  record: object,
  mode: FieldsMode,
  minimal: readonly string[],
  restrict?: readonly string[],
): Record<string, unknown> {
  const source = record as Record<string, unknown>;
  let keys: readonly string[];
  if (mode.kind === 'all') {
    if (!restrict) return source;
    keys = Object.keys(source);
  } else if (mode.kind === 'minimal') {
    keys = minimal;
  } else {
    const wanted = new Set(mode.names);
    wanted.add('id');
    keys = Object.keys(source).filter((k) => wanted.has(k));
  }
  const out: Record<string, unknown> = {};
  for (const key of keys) {
    if (restrict && !restrict.includes(key)) continue;
    if (source[key] !== undefined) out[key] = source[key];
  }
  return out;
}

/** Paging: startAt defaults to 0 (negative or non-numeric -> 0); pageLimit defaults to 50, values below 1 or non-numeric -> 50, above 50 -> 50. */
export function parsePaging(query: URLSearchParams): { startAt: number; pageLimit: number } {
  const startRaw = Number.parseInt(query.get('startAt') ?? '', 10);
  const limitRaw = Number.parseInt(query.get('pageLimit') ?? '', 10);
  const startAt = Number.isFinite(startRaw) && startRaw > 0 ? startRaw : 0;
  const pageLimit = Number.isFinite(limitRaw) && limitRaw >= 1 ? Math.min(limitRaw, V1_PAGE_LIMIT) : V1_PAGE_LIMIT;
  return { startAt, pageLimit };
}

/** A v1 list envelope of one page of `items`, projected. */
export function pageEnvelope(
  envelopeKey: 'data' | 'Data',
  items: readonly object[],
  query: URLSearchParams,
  project: (record: object) => unknown,
): Record<string, unknown> {
  const { startAt, pageLimit } = parsePaging(query);
  const page = items.slice(startAt, startAt + pageLimit).map(project);
  return { startAt, pageLimit, total: items.length, [envelopeKey]: page };
}
